# PgBouncer between the clients and PostgreSQL (bench key POOL=pgbouncer; postgres's manifest offers
# it: offers.poolers.pgbouncer). The pooler's hooks for the lab (docs/contracts.md §2a), each run by
# lab/pool.sh `pool_hook` in a subshell, with the lab's functions (compose, container_of, label_of,
# say), .env's variables, the bench's keys and POOL_SERVICE (the manifest's service). Values leave
# a hook by its stdout or the file it is given, never by a variable.
# The clients' `run` sessions go through the pool; every reading of the lab (wait-ready, init,
# server-stats, count and its nothing-lost check, settle) goes straight to PostgreSQL, and the pool
# itself is only ever asked on its admin console (readiness, version, closing its server
# connections after each window: databases/postgres/client/commands/pool-ready.js, pool-close.js).

# The pool's address on the lab network; DB = the pooled database, or `pgbouncer` (admin console).
pgbouncer_uri() { echo "postgres://${POSTGRES_USER}:${POSTGRES_PASSWORD}@${POOL_SERVICE}:6432/${1:-$POSTGRES_DB}"; }

# pool_uri: the URI a pooled phase's clients dial.
pool_uri() { pgbouncer_uri; }

# A one-shot client command on the pool's admin console (pool-ready, pool-close); prints its stdout.
pgbouncer_admin() {
  URI=$(pgbouncer_uri pgbouncer) BENCH=$BENCH_NAME compose run --rm --no-deps -T -e URI -e BENCH \
    -e POOL_DB="$POSTGRES_DB" ${READY_TIMEOUT_S:+-e READY_TIMEOUT_S} client "$@"
}

# pool_start READY_FILE: after PostgreSQL is ready, a fresh pgbouncer configured from the bench keys
# (POOL_MODE, POOL_SIZE; DURABILITY as the server connections' synchronous_commit), waited for on its
# admin console. READY_FILE gets pool-ready's line (product and version, for pool_phase_json).
pool_start() {
  local ready
  if [ "${DURABILITY:-strict}" = strict ]; then POOL_SYNCHRONOUS_COMMIT=on; else POOL_SYNCHRONOUS_COMMIT=off; fi
  export POOL_SYNCHRONOUS_COMMIT
  compose build "$POOL_SERVICE" >&2 || { echo "runme.sh: POOL=pgbouncer: building the pgbouncer image failed (see above)" >&2; return 1; }
  compose up -d --no-deps --force-recreate "$POOL_SERVICE" >&2 || return 1
  ready=$(pgbouncer_admin pool-ready | grep -m1 '^{') || {
    echo "runme.sh: POOL=pgbouncer: pgbouncer did not become ready (see the pool-ready error above and: docker logs \$(docker compose ps -q $POOL_SERVICE))" >&2
    return 1
  }
  printf '%s\n' "$ready" >"$1"
  local label product version
  label=$(label_of "$(container_of "$POOL_SERVICE")" jsonbench.stand_in)
  { read -r product; read -r version; } < <(printf '%s' "$ready" | python3 "$LAB_ROOT/lab/json-get.py" product version) || true
  say "POOL=pgbouncer: ${product:-None} ${version:-None}, pool_mode=$POOL_MODE default_pool_size=$POOL_SIZE${label:+ (STAND-IN: $label)}"
}

# pool_close: after a pooled phase's clients are gone (outside the window), the pool's server
# connections closed, so that the server's end reading sees no idle session the lab left behind and
# the next phase starts from an empty pool. What it did (stdout and stderr) goes to the phase's .out.
pool_close() {
  local said
  if said=$(pgbouncer_admin pool-close); then echo "pool-close: $said"
  else echo "pool-close: failed ($said): the pool's server connections may still be open at the end reading"; fi
}

# pool_phase_json READY_JSON IMAGE_OS_JSON: D.phase.json's `pooler`, what ran between the clients and
# the server; IMAGE_OS_JSON: its image's OS and C library, read by the lab before the phases.
pool_phase_json() {
  local cid image label product="" version="" prepared=""
  cid=$(container_of "$POOL_SERVICE")
  image=$(docker inspect -f '{{.Config.Image}}' "$cid" 2>/dev/null)
  label=$(label_of "$cid" jsonbench.stand_in)
  [[ ${1:-} != "{"* ]] || { read -r product; read -r version; read -r prepared; } < <(printf '%s' "$1" |
    python3 "$LAB_ROOT/lab/json-get.py" product version max_prepared_statements) || true
  # statements: named on every path and in both modes (databases/postgres/client/postgres-txn.js);
  # in transaction mode the pool's max_prepared_statements (pool-ready's SHOW CONFIG) carries them
  python3 "$LAB_ROOT/lab/json-object.py" service="$POOL_SERVICE" "product?=$product" "version?=$version" \
    mode="$POOL_MODE" "size#=$POOL_SIZE" "container_id?=$cid" "image?=$image" "stand_in?=$label" \
    statements=named "max_prepared_statements#=$prepared" "image_os:=${2:-null}" \
    readings="direct to PostgreSQL: readiness, init, server-stats, count and the nothing-lost check, settle"
}
