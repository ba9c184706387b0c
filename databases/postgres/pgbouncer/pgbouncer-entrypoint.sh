#!/usr/bin/env bash
# Writes PgBouncer's configuration from the environment, then execs pgbouncer as PID 1 (so
# `docker stop` reaches it and nothing else runs in the container).
#   POSTGRES_USER, POSTGRES_PASSWORD, POSTGRES_DB  the server's account (the generated password of .env)
#   PGBOUNCER_SERVER_HOST / _PORT                  the server (postgres:5432 on the lab network)
#   POOL_MODE (transaction|session), POOL_SIZE     bench keys (client/src/bench-schema.js)
#   POOL_SYNCHRONOUS_COMMIT (on|off)               DURABILITY, set on every server connection
set -Eeuo pipefail

: "${POSTGRES_USER:?POSTGRES_USER is not set}"
: "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD is not set; run ./runme.sh once to create .env}"
: "${POSTGRES_DB:=$POSTGRES_USER}"
: "${POOL_MODE:=transaction}" "${POOL_SIZE:=20}" "${POOL_SYNCHRONOUS_COMMIT:=on}"
case $POOL_MODE in transaction | session) ;; *) echo "pgbouncer-entrypoint: POOL_MODE=$POOL_MODE; allowed: transaction, session" >&2; exit 2 ;; esac
case $POOL_SIZE in '' | *[!0-9]*) echo "pgbouncer-entrypoint: POOL_SIZE=$POOL_SIZE; allowed: an integer >= 1" >&2; exit 2 ;; esac
case $POOL_SYNCHRONOUS_COMMIT in on | off) ;; *) echo "pgbouncer-entrypoint: POOL_SYNCHRONOUS_COMMIT=$POOL_SYNCHRONOUS_COMMIT; allowed: on, off" >&2; exit 2 ;; esac
# A double quote in a name or the password would end userlist.txt's quoted field.
for v in POSTGRES_USER POSTGRES_PASSWORD POSTGRES_DB; do
  [[ ${!v} != *'"'* && ${!v} != *"'"* && ${!v} != *' '* ]] || { echo "pgbouncer-entrypoint: $v must not contain quotes or spaces" >&2; exit 2; }
done

version=$(pgbouncer --version | sed -n 's/^PgBouncer \([0-9.]*\).*/\1/p' | head -1)
dir=$(mktemp -d /tmp/pgbouncer.XXXXXX)
umask 077
# The password in clear, readable by pgbouncer's user only: it answers the clients' SCRAM
# exchange and logs into PostgreSQL (scram-sha-256, the server's pg_hba method) with it.
printf '"%s" "%s"\n' "$POSTGRES_USER" "$POSTGRES_PASSWORD" >"$dir/userlist.txt"

# The clients send named prepared statements on every path (parsed once per client session, then
# Bind/Execute only). In transaction mode a client's next transaction may land on another server
# connection: PgBouncer (1.21+, the Dockerfile's PGBOUNCER_MIN on both paths) keeps each client's
# statements and prepares one on a server connection the first time it runs there, so the server
# parses it once per server connection, as without a pool once per session. 200 (1.22's default)
# holds every statement of a workload (oltp names 9, booking 4): none is evicted and parsed
# again. 0 would pass the names through to a server connection that never saw them.
MAX_PREPARED_STATEMENTS=200
dpkg --compare-versions "$version" ge 1.21 ||
  { echo "pgbouncer-entrypoint: PgBouncer $version has no max_prepared_statements (1.21+)" >&2; exit 2; }

cat >"$dir/pgbouncer.ini" <<INI
[databases]
; every server connection gets the session's commit durability (DURABILITY) before any client
; uses it: in transaction mode a client's own SET would land on one server connection only
$POSTGRES_DB = host=${PGBOUNCER_SERVER_HOST:-postgres} port=${PGBOUNCER_SERVER_PORT:-5432} dbname=$POSTGRES_DB connect_query='set synchronous_commit = $POOL_SYNCHRONOUS_COMMIT'

[pgbouncer]
listen_addr = *
listen_port = 6432
unix_socket_dir =
auth_type = scram-sha-256
auth_file = $dir/userlist.txt
; the admin console (database pgbouncer): the lab's readiness check and SHOW VERSION, and the
; KILL that closes the pool's server connections after each window
admin_users = $POSTGRES_USER
pool_mode = $POOL_MODE
default_pool_size = $POOL_SIZE
min_pool_size = 0
reserve_pool_size = 0
max_client_conn = 2000
; no server check query: it would be a statement on the server nobody in the lab sent
server_check_query =
; node-postgres sends none of these, but a psql or another driver may
ignore_startup_parameters = extra_float_digits
max_prepared_statements = $MAX_PREPARED_STATEMENTS
INI
echo "pgbouncer-entrypoint: PgBouncer $version, pool_mode=$POOL_MODE default_pool_size=$POOL_SIZE synchronous_commit=$POOL_SYNCHRONOUS_COMMIT max_prepared_statements=$MAX_PREPARED_STATEMENTS" >&2
exec pgbouncer "$dir/pgbouncer.ini"
