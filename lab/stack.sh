# Compose wrappers for runme.sh's part before the driver (the stack: monitoring up, the project's
# name and ports) and for the benchmarks in lab/; the databases and the client containers of a run
# are the driver's (lab/driver/bench.py, engine.py). Sourced by runme.sh.

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

# KEY of every database's manifest (databases/<name>/database.json), or of the databases named
# after it: one value a line (databases/manifests.py; exit 2 naming the file and key of a bad one).
database_fields() { "$VENV/bin/python" "$LAB_ROOT/databases/manifests.py" fields "$@"; }

# Every manifest and the stated baseline valid (databases/*.schema.json), before anything starts.
check_database_manifests() { "$VENV/bin/python" "$LAB_ROOT/databases/manifests.py" check; }
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
