# The bench's connection pooler (bench key POOL; none by default), driven without knowing which: a
# database's manifest offers a pooler (offers.poolers.<POOL>: its compose service) and its folder
# holds it, databases/<db>/<POOL>/ (the service's compose.yaml and pool.sh, the pooler's hooks;
# docs/contracts.md §2a). When the bench's POOL is set and a database of the run offers it, the
# lab starts the pooler after that database is ready, gives that database's `run` clients the
# pool's URI, has the pool close its server connections after each of its phases and records what
# ran in D.phase.json `pooler`. Sourced at the end of lab/stack.sh.

# The readiness facts each started pooler gave (its pool_start's file), by database: read by
# pool_phase_json. Set here, in the lab's own shell, never by a hook.
declare -gA POOL_READY=()

pool_on() { [ "${POOL:-none}" != none ]; }

# "<database> <service>" of each database of DBS (default: all) offering the bench's POOL; nothing
# when POOL=none. Fails (exit 2, the manifest's error on stderr) on a bad manifest.
pooled_databases() {
  pool_on || return 0
  local rows row db pooler service
  # shellcheck disable=SC2086  # DBS: the databases, one word each
  rows=$("$VENV/bin/python" "$LAB_ROOT/databases/manifests.py" poolers $1) || return 2
  while read -r db pooler service; do
    [ -z "$db" ] || [ "$pooler" != "$POOL" ] || echo "$db $service"
  done <<<"$rows"
}

# Whether database DB's clients go through the bench's pooler (DB offers POOL).
pool_for() {
  local row; row=$(pooled_databases "$1") || return 1
  [ -n "$row" ]
}

# Runs HOOK [ARGS] of the bench's pooler of database DB (databases/<DB>/<POOL>/pool.sh) in a
# subshell, with POOL_SERVICE = its manifest's service: its values come back on stdout or in a file
# it is given, never as variables. Every pool hook is required.
pool_hook() {
  local db=$1 hook=$2 row; shift 2
  row=$(pooled_databases "$db") || return 1
  [ -n "$row" ] || { echo "runme.sh: POOL=${POOL:-none}: databases/$db/database.json offers no such pooler" >&2; return 1; }
  (
    # shellcheck disable=SC2034  # read by the hooks sourced below
    POOL_SERVICE=${row#* }
    # shellcheck disable=SC1090
    . "$LAB_ROOT/databases/$db/$POOL/pool.sh" || exit 1
    declare -F "$hook" >/dev/null || { echo "runme.sh: databases/$db/$POOL/pool.sh defines no $hook" >&2; exit 1; }
    "$hook" "$@"
  )
}

# The URI the phase's clients get: the pool's (its pool_uri) for a pooled database, else the database's own.
client_uri() { if pool_for "$1"; then pool_hook "$1" pool_uri; else database_uri "$1"; fi; }

# After the databases DBS are up and ready (refresh_databases): each one's pooler, when it offers
# the bench's POOL, started by its pool_start, which writes its readiness facts into a file.
pool_start() {
  POOL_READY=()
  local rows db ready
  rows=$(pooled_databases "$1") || return 1
  # a database's name is one word (its manifest's pattern); the hook's stdin is not these rows
  # shellcheck disable=SC2013
  for db in $(cut -d' ' -f1 <<<"$rows"); do
    ready=$(mktemp) || return 1
    pool_hook "$db" pool_start "$ready" </dev/null || { rm -f "$ready"; return 1; }
    POOL_READY[$db]=$(cat "$ready")
    rm -f "$ready"
    # its image's OS and C library, as a database's (lab/stack.sh read_image_os), for pool_phase_json
    read_image_os "$(grep "^$db " <<<"$rows" | cut -d' ' -f2)"
  done
}

# Every pooler service any database offers, stopped and removed with the databases (no volume).
pool_remove() {
  local services
  services=$("$VENV/bin/python" "$LAB_ROOT/databases/manifests.py" poolers | cut -d' ' -f3) || return 0
  [ -n "$services" ] || return 0
  # shellcheck disable=SC2086
  compose rm --stop --force $services >/dev/null 2>&1 || true
}

# After a pooled phase's clients are gone (outside the window), before the server's end reading:
# the pool's server connections closed (its pool_close); what it did goes to the phase's .out (OUT).
pool_close_servers() {
  pool_for "$1" || return 0
  pool_hook "$1" pool_close >>"$2" 2>&1 || echo "pool-close: the pooler's pool_close failed (exit $?)" >>"$2"
}

# phase.json `pooler`: null without a pool, else what ran between the clients and the server (its
# pool_phase_json, given the readiness facts its pool_start wrote and its image's OS facts).
pool_phase_json() {
  local row
  pool_for "$1" || { echo null; return 0; }
  row=$(pooled_databases "$1") || return 1
  pool_hook "$1" pool_phase_json "${POOL_READY[$1]:-}" "${IMAGE_OS[${row#* }]:-null}"
}
