# Compose wrappers: the stack, the databases of a bench, the client containers. Sourced by runme.sh.

# Exports .env's settings that the environment does not already set: as in compose, a variable
# of the caller's environment wins over .env.
load_env_defaults() {
  local line key
  while IFS= read -r line || [ -n "$line" ]; do
    case $line in '' | '#'*) continue ;; esac
    key=${line%%=*}
    [[ $key =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || continue
    [ -n "${!key+set}" ] || eval "export $line"
  done <"$1"
}

compose() {
  # shellcheck disable=SC2046  # compose_files prints several -f arguments on purpose
  docker compose --project-directory "$LAB_ROOT" $(compose_files) --env-file "$LAB_ROOT/.env" "$@"
}

project_name() {
  compose config --format json 2>/dev/null | python3 "$LAB_ROOT/lab/json-get.py" name
}

monitoring_services() {
  if [ "$USE_STANDINS" = 1 ]; then echo "cadvisor prometheus"; else echo "cadvisor prometheus grafana"; fi
}

start_monitoring() {
  # shellcheck disable=SC2046
  compose up -d $(monitoring_services) && services_running $(monitoring_services)
}

# 0 when every SERVICE's container runs, else names the others. After `up -d`, in place of
# `up --wait`: compose refuses to wait for a service whose healthcheck is disabled ("has no
# healthcheck configured"), and no service of the lab runs one (tests/unit/test_compose_config.py).
services_running() {
  local running svc missing=()
  running=" $(compose ps --status running --services "$@" | tr '\n' ' ') "
  for svc in "$@"; do [[ $running == *" $svc "* ]] || missing+=("$svc"); done
  [ ${#missing[@]} = 0 ] && return 0
  echo "runme.sh: not running after start: ${missing[*]} (docker compose logs ${missing[*]})" >&2
  return 1
}

# The variables each database's compose service reads from the bench (databases/<db>/lab.sh
# lab_compose_env prints NAME=VALUE lines; an empty value unsets NAME): exported before `up`.
export_compose_env() {
  local db out line name
  for db in $1; do
    # captured first: a hook that fails (its lab.sh does not load) stops the run, not a silent nothing
    out=$(database_hook "$db" lab_compose_env) || { echo "runme.sh: databases/$db/lab.sh lab_compose_env failed" >&2; return 1; }
    while IFS= read -r line; do
      [ -n "$line" ] || continue
      name=${line%%=*}
      [[ $name =~ ^[A-Z][A-Z0-9_]*$ ]] || { echo "runme.sh: databases/$db/lab.sh lab_compose_env printed '$line', not NAME=VALUE" >&2; return 1; }
      if [ -n "${line#*=}" ]; then export "$line"; else unset "$name"; fi
    done <<<"$out"
  done
}

# KEY of every database's manifest (databases/<name>/database.json), or of the databases named
# after it: one value a line (databases/manifests.py; exit 2 naming the file and key of a bad one).
database_fields() { "$VENV/bin/python" "$LAB_ROOT/databases/manifests.py" fields "$@"; }

# Every manifest and the stated baseline valid (databases/*.schema.json), before anything starts.
check_database_manifests() { "$VENV/bin/python" "$LAB_ROOT/databases/manifests.py" check; }
# Each database's compose files (databases/<name>/compose.yaml and compose.standins.yaml, which the
# top compose files include), relative to LAB_ROOT: configuration a run's branch keeps with them.
database_compose_files() {
  local names db f
  names=$("$VENV/bin/python" "$LAB_ROOT/databases/manifests.py" names) || return 2
  for db in $names; do
    for f in compose.yaml compose.standins.yaml; do
      [ ! -f "$LAB_ROOT/databases/$db/$f" ] || echo "databases/$db/$f"
    done
    # a service of a folder inside the database's (PgBouncer: databases/postgres/pgbouncer, included by
    # its compose.yaml): the whole folder, since the image the run used is built from it
    for f in "$LAB_ROOT/databases/$db"/*/compose.yaml; do
      [ ! -f "$f" ] || echo "databases/$db/$(basename "$(dirname "$f")")"
    done
  done
}

# Every database container and volume of the project, whichever databases ran; the monitoring stays.
remove_databases() {
  local services volumes v
  services=$(database_fields service) && volumes=$(database_fields volume) && [ -n "$services" ] || return 2
  # never without names: `compose rm --stop` alone would stop the monitoring too
  # shellcheck disable=SC2086
  compose rm --stop --force --volumes $services >/dev/null 2>&1 || true
  pool_remove  # lab/pool.sh: a pooler goes with the databases
  for v in $volumes; do docker volume rm "${PROJECT}_$v" >/dev/null 2>&1 || true; done
}

# The database containers stopped and removed at the end of a run, their volumes kept (the data
# stays readable until the next bench or `./runme.sh down`).
remove_database_containers() {
  local services; services=$(database_fields service) && [ -n "$services" ] || return 0
  # shellcheck disable=SC2086
  compose rm --stop --force $services >/dev/null 2>&1 || true
  pool_remove
}

# Fresh database volumes for every bench; the monitoring data stays.
refresh_databases() {
  local dbs=$1
  export_compose_env "$dbs" || return 1
  remove_databases || return 1
  # No healthcheck runs in a database container (nothing but the server may run there): readiness
  # is checked from outside, with the client's own authenticated connect (docs/contracts.md §3).
  local services; services=$(database_fields service $dbs) || return 1
  # shellcheck disable=SC2086
  compose up -d $services
  local db
  for db in $dbs; do
    # an interrupt (runme.sh's on_signal) during `up` may leave a database that never starts: not
    # waited for (wait-ready would wait READY_TIMEOUT_S for it)
    [ "${INTERRUPTED:-0}" = 0 ] || return 1
    database_ready "$db" || return 1
    read_image_os "$db"
  done
  pool_start "$dbs"  # the bench's POOL, after the database offering it is ready (lab/pool.sh)
}

# The operating system and C library of each running service's image (lab/image-os.py), by
# service, for D.phase.json `image_os` (a pooler's: its `pooler.image_os`). Read once per bench
# after the service started and before any phase, outside every window, from the image the
# container runs (its id), in a throwaway container of its own: never inside a measured one.
declare -gA IMAGE_OS=()
read_image_os() {
  local service=$1 cid image
  cid=$(container_of "$service") && [ -n "$cid" ] && image=$(docker inspect -f '{{.Image}}' "$cid" 2>/dev/null) &&
    [ -n "$image" ] && IMAGE_OS[$service]=$(python3 "$LAB_ROOT/lab/image-os.py" "$image") && return 0
  IMAGE_OS[$service]=$(python3 "$LAB_ROOT/lab/json-object.py" "image?=${image:-}" "os?=" "libc?=" \
    "reason=the image of the $service container could not be read (no container, or lab/image-os.py failed)")
}

# A started database container answers the client's authenticated connect; then the database's
# own readiness extras, if its folder has any (databases/<name>/lab.sh lab_after_ready: MongoDB's
# replica-set initiation with TOPOLOGY=replset).
database_ready() {
  local db=$1
  client_oneshot "$db" wait-ready >/dev/null || {
    echo "runme.sh: $db did not become ready (see the wait-ready error above and: docker logs \$(docker compose ps -q $db))" >&2
    return 1
  }
  database_hook "$db" lab_after_ready
}

# The URI the client containers dial: databases/<name>/lab.sh lab_uri.
database_uri() { database_hook "$1" lab_uri; }

# Runs HOOK of databases/<db>/lab.sh in a subshell (the hooks of two databases share names); a
# folder without the hook has nothing to do there (lab_uri is required: every database has one).
database_hook() {
  local db=$1 hook=$2
  (
    # shellcheck disable=SC1090
    . "$LAB_ROOT/databases/$db/lab.sh" || exit 1
    if declare -F "$hook" >/dev/null; then "$hook"
    elif [ "$hook" = lab_uri ]; then echo "runme.sh: databases/$db/lab.sh defines no lab_uri" >&2; exit 1
    fi
  )
}

# A loaded bench's client containers read every setting from its plan.json (PLAN_FILE, set by
# lab/bench.sh load_run_env): the bench folder is mounted at /bench and the command gets
# `--plan /bench/plan.json` (the client's plan-options.js), with `--phase ID` in a phase and
# `--client I` for a phase's client; nothing of the plan travels in the environment. Before a bench is
# loaded (lab/bench-monitoring-cost.sh sets BENCH_KEYS by hand) the keys named in BENCH_KEYS go as
# environment variables of the same names. Either way the URI travels in the environment, so the
# password never shows in a process list or a file.
BENCH_MOUNT=/bench
client_env_args() {
  local k
  if [ -z "${PLAN_FILE:-}" ]; then
    for k in ${BENCH_KEYS:-}; do [ "$k" = DATASET ] || printf -- '-e\n%s\n' "$k"; done
    # The query of a query phase (run and the explain one-shot read QUERY).
    [ -z "${PHASE_QUERY:-}" ] || printf -- '-e\nQUERY=%s\n' "$PHASE_QUERY"
  fi
  dataset_args
  # How long a client keeps reconnecting to a lost database (the client's default when unset).
  [ -z "${RECONNECT_TIMEOUT_S:-}" ] || printf -- '-e\nRECONNECT_TIMEOUT_S\n' 
  # How long wait-ready waits for a database (the client's default, 120 s, when unset).
  [ -z "${READY_TIMEOUT_S:-}" ] || printf -- '-e\nREADY_TIMEOUT_S\n'
  # count's nothing-lost check of a transaction phase (lab/phase.sh count_phase sets it): the
  # clients' outcomes file, mounted read-only
  [ -z "${TXN_OUTCOMES:-}" ] || printf -- '-v\n%s:/txn-outcomes.json:ro\n-e\nTXN_OUTCOMES=/txn-outcomes.json\n' "$TXN_OUTCOMES"
  printf -- '-e\nURI\n'
  [ -n "${PLAN_FILE:-}" ] || printf -- '-e\nBENCH\n'
}

# The bench folder's mount for a client container (MODE: ro, rw), when a plan is loaded.
plan_mount_args() { [ -z "${PLAN_FILE:-}" ] || printf -- '-v\n%s:%s:%s\n' "$(dirname "$PLAN_FILE")" "$BENCH_MOUNT" "$1"; }

# The words after the client's command: the plan, and the phase under way (PHASE_ID) when there is one.
plan_flags() {
  [ -n "${PLAN_FILE:-}" ] || return 0
  printf -- '--plan\n%s/%s\n' "$BENCH_MOUNT" "$(basename "$PLAN_FILE")"
  [ -z "${PHASE_ID:-}" ] || printf -- '--phase\n%s\n' "$PHASE_ID"
}

# A DATASET file (WORKLOAD=events) is mounted read-only into the client container at
# /dataset/<name>, and DATASET points there. A relative DATASET is relative to the bench folder.
dataset_args() {
  [ -n "${DATASET:-}" ] || return 0
  local host=$DATASET
  [ "${host#/}" != "$host" ] || host="$BENCH_DIR/$host"
  printf -- '-v\n%s:/dataset/%s:ro\n-e\nDATASET=/dataset/%s\n' "$host" "$(basename "$host")" "$(basename "$host")"
}

# One-shot client command (wait-ready, init, count) against a database; prints its stdout.
client_oneshot() {
  local db=$1; shift
  local args flags; mapfile -t args < <(client_env_args; plan_mount_args ro); mapfile -t flags < <(plan_flags)
  URI=$(database_uri "$db") BENCH=$BENCH_NAME compose run --rm --no-deps -T "${args[@]}" client "$@" "${flags[@]}"
}

# Starts one detached client container and prints its id. PHASE (default: the database) names
# the container and the result file. With a plan loaded the client reads its phase (operations,
# rate, stage, query), its settings and its result file's name from plan.json (`run --plan
# /bench/plan.json --phase PHASE --client I`); without one (lab/bench-monitoring-cost.sh) from
# the environment, as below.
client_start() {
  local db=$1 i=$2 results_dir=$3 phase=${4:-$1}
  local args; mapfile -t args < <(client_env_args; plan_mount_args rw)
  local own=() flags=()
  if [ -n "${PLAN_FILE:-}" ]; then
    flags=(--plan "$BENCH_MOUNT/$(basename "$PLAN_FILE")" --phase "$phase" --client "$i")
  else
    own=(-v "$results_dir:/results" -e CLIENT_ID="$i" -e RESULT="/results/$phase-client-$i.json" -e METRICS_LINGER_S=3)
    [ -z "${PHASE_STAGE:-}" ] || own+=(-e "STAGE=$PHASE_STAGE")
  fi
  URI=$(client_uri "$db") BENCH=$BENCH_NAME compose run -d --no-deps --use-aliases \
    --name "${PROJECT}-client-${phase}-$i" --user "$(id -u):$(id -g)" \
    "${own[@]}" "${args[@]}" client run "${flags[@]}"
}

# Host ports published by this lab's running containers: they may stay in use across runs.
own_published_ports() {
  docker ps --filter "label=com.docker.compose.project=$PROJECT" --format '{{.Ports}}' |
    grep -o ':[0-9]*->' | tr -d ':>-' | sort -u | tr '\n' ' '
}

container_of() { compose ps -q "$1"; }

# The host address where the lab's published ports answer: BIND_ADDRESS, except that a wildcard
# (0.0.0.0, ::) or none means loopback. Every host-side URL (export, check, Grafana) is built here.
host_address() {
  case ${BIND_ADDRESS:-} in
    '' | 0.0.0.0) echo 127.0.0.1 ;;
    :: | '[::]') echo '[::1]' ;;
    \[*) echo "$BIND_ADDRESS" ;;
    *:*) echo "[$BIND_ADDRESS]" ;;
    *) echo "$BIND_ADDRESS" ;;
  esac
}

prometheus_url() { echo "http://$(host_address):${PROMETHEUS_PORT:-9090}"; }

label_of() { docker inspect -f "{{index .Config.Labels \"$2\"}}" "$1" 2>/dev/null | sed 's/<no value>//'; }

# The bench's pooler (POOL): client_uri, pool_start, pool_remove, ... used above and by lab/phase.sh.
. "$LAB_ROOT/lab/pool.sh"
