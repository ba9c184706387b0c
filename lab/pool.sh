# PgBouncer between the clients and PostgreSQL (bench key POOL=pgbouncer; the service is
# databases/postgres/pgbouncer/). The clients' `run` sessions go through the pool; every reading of
# the lab (wait-ready, init, server-stats, count and its nothing-lost check, settle) goes straight
# to PostgreSQL, and the pool itself is only ever asked on its admin console (readiness, version,
# closing its server connections after each window). Sourced at the end of lab/stack.sh.

pool_on() { [ "${POOL:-none}" = pgbouncer ]; }
# Whether database DB's clients go through the pool (PostgreSQL only).
pool_for() { pool_on && [ "$1" = postgres ]; }

# The pool's address on the lab network; DB = the pooled database, or `pgbouncer` (admin console).
pool_uri() { echo "postgres://${POSTGRES_USER}:${POSTGRES_PASSWORD}@pgbouncer:6432/${1:-$POSTGRES_DB}"; }

# The URI the phase's clients get: the pool's for a pooled PostgreSQL, else the database's own.
client_uri() { if pool_for "$1"; then pool_uri; else database_uri "$1"; fi; }

# A one-shot client command on the pool's admin console (commands/pool-admin.js); prints its stdout.
pool_oneshot() {
  URI=$(pool_uri pgbouncer) BENCH=$BENCH_NAME compose run --rm --no-deps -T -e URI -e BENCH \
    -e POOL_DB="$POSTGRES_DB" ${READY_TIMEOUT_S:+-e READY_TIMEOUT_S} client "$@"
}

# After the databases are up (refresh_databases): a fresh pgbouncer for a bench with POOL=pgbouncer
# and a PostgreSQL phase, configured from the bench keys (POOL_MODE, POOL_SIZE; DURABILITY as the
# server connections' synchronous_commit), and waited for on its admin console. POOL_READY_JSON:
# pool-ready's line (product and version, for the phase manifests).
pool_start() {
  POOL_READY_JSON=""
  pool_on && [[ " $1 " == *" postgres "* ]] || return 0
  if [ "${DURABILITY:-strict}" = strict ]; then POOL_SYNCHRONOUS_COMMIT=on; else POOL_SYNCHRONOUS_COMMIT=off; fi
  export POOL_SYNCHRONOUS_COMMIT
  compose build pgbouncer >&2 || { echo "runme.sh: POOL=pgbouncer: building the pgbouncer image failed (see above)" >&2; return 1; }
  compose up -d --no-deps --force-recreate pgbouncer >&2 || return 1
  POOL_READY_JSON=$(pool_oneshot pool-ready | grep -m1 '^{') || {
    echo "runme.sh: POOL=pgbouncer: pgbouncer did not become ready (see the pool-ready error above and: docker logs \$(docker compose ps -q pgbouncer))" >&2
    return 1
  }
  local label product version
  label=$(label_of "$(container_of pgbouncer)" jsonbench.stand_in)
  { read -r product; read -r version; } < <(printf '%s' "$POOL_READY_JSON" | python3 "$LAB_ROOT/lab/json-get.py" product version) || true
  say "POOL=pgbouncer: ${product:-None} ${version:-None}, pool_mode=$POOL_MODE default_pool_size=$POOL_SIZE${label:+ (STAND-IN: $label)}"
}

# The pgbouncer container stopped and removed with the databases' (no volume).
pool_remove() { compose rm --stop --force pgbouncer >/dev/null 2>&1 || true; }

# After a pooled phase's clients are gone (outside the window): the pool's server connections
# closed, so that the server's end reading sees no idle session the lab left behind and the next
# phase starts from an empty pool. What it did goes to the phase's .out.
pool_close_servers() {
  pool_for "$1" || return 0
  local said
  if said=$(pool_oneshot pool-close 2>>"$2"); then echo "pool-close: $said" >>"$2"
  else echo "pool-close: failed ($said): the pool's server connections may still be open at the end reading" >>"$2"; fi
}

# phase.json `pooler`: null without a pool, else what ran between the clients and the server.
pool_phase_json() {
  pool_for "$1" || { echo null; return 0; }
  local cid image label product="" version="" statements=named
  cid=$(container_of pgbouncer)
  image=$(docker inspect -f '{{.Config.Image}}' "$cid" 2>/dev/null)
  label=$(label_of "$cid" jsonbench.stand_in)
  [[ $POOL_READY_JSON != "{"* ]] ||
    { read -r product; read -r version; } < <(printf '%s' "$POOL_READY_JSON" | python3 "$LAB_ROOT/lab/json-get.py" product version) || true
  # client/src/targets/pg-unnamed.js: the same choice on both paths
  [ "$POOL_MODE" != transaction ] || statements=unnamed
  python3 "$LAB_ROOT/lab/json-object.py" service=pgbouncer "product?=$product" "version?=$version" \
    mode="$POOL_MODE" "size#=$POOL_SIZE" "container_id?=$cid" "image?=$image" "stand_in?=$label" \
    statements="$statements" \
    readings="direct to PostgreSQL: readiness, init, server-stats, count and the nothing-lost check, settle"
}
