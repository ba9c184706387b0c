# First start of the TimescaleDB stand-in (sourced by the PostgreSQL stand-in's entrypoint, from
# /docker-entrypoint-initdb.d, with its socket-only server up and its `psql` array): what the
# official timescale/timescaledb image does at first start, written anew:
#   - timescaledb.telemetry_level in postgresql.conf: off when TIMESCALEDB_TELEMETRY=off, else basic;
#   - the extension created in `postgres`, `template1` and POSTGRES_DB;
#   - with telemetry off, the telemetry job unscheduled (where the build has one: Debian's may not).
# No timescaledb-tune: the official image runs it unless NO_TS_TUNE is set, which the lab sets.
level=basic
[[ ${TIMESCALEDB_TELEMETRY:-} != off ]] || level=off
printf '\ntimescaledb.telemetry_level = %s\n' "$level" >>"$PGDATA/postgresql.conf"
ts_sql="create extension if not exists timescaledb cascade;"
if [[ $level == off ]]; then
  ts_sql+=" select alter_job(job_id, scheduled => false) from timescaledb_information.jobs where proc_name = 'policy_telemetry';"
fi
ts_dbs=(postgres template1)
[[ $POSTGRES_DB == postgres ]] || ts_dbs+=("$POSTGRES_DB")
for ts_db in "${ts_dbs[@]}"; do
  log "timescaledb: $ts_sql (database $ts_db)"
  "${psql[@]}" --dbname "$ts_db" -c "$ts_sql" >&2
done
unset level ts_sql ts_db ts_dbs
