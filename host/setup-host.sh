#!/usr/bin/env bash
# Host set-up for the lab: Docker engine, Compose v2, perf, the stand-in decision and .env.
#
# Sourced by runme.sh (defines functions only, changes nothing), or run directly:
#   host/setup-host.sh ensure_docker|ensure_compose|ensure_perf|ensure_go|registry_reachable|
#                     use_standins|compose_files|ensure_env_file|stop_started_dockerd|all
#
# Contract with the caller:
#   ensure_docker      0 when an engine answers. If it had to start dockerd itself it sets (not exports)
#                      JSONBENCH_DOCKERD_PID (also in $JSONBENCH_CACHE/run/dockerd.pid); the caller
#                      stops it with stop_started_dockerd when it is done (the tests), or leaves it
#                      running with leave_started_dockerd, which says how to stop it (a bench run).
#   ensure_compose     0 when `docker compose version` answers.
#   ensure_perf        always 0; exports JSONBENCH_PERF (path or empty) and JSONBENCH_PERF_REASON.
#   registry_reachable 0 when the official images can be used (present or pullable).
#   use_standins       0 when the stand-in images must be used (the inverse, cached for the process).
#   compose_files      prints "-f <repo>/compose.yaml [-f <repo>/compose.standins.yaml]".
#   ensure_env_file    creates <repo>/.env from .env.example with generated passwords if absent.
# Every function that cannot do its job without root or on a non-Debian host prints the exact
# commands to run and returns non-zero; nothing is started in that case.

JSONBENCH_CACHE=${JSONBENCH_CACHE:-/var/cache/jsonbench}
JSONBENCH_ROOT=${JSONBENCH_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
JSONBENCH_COMPOSE_VERSION=${JSONBENCH_COMPOSE_VERSION:-v2.29.7}
# Go toolchain fetched as a module from the Go proxy when the distribution's go is too old.
JSONBENCH_GO_TOOLCHAIN=${JSONBENCH_GO_TOOLCHAIN:-go1.22.12}

_setup_log() { printf 'setup-host: %s\n' "$*" >&2; }

_is_root() { [[ $(id -u) -eq 0 ]]; }

# Prints "debian" or "ubuntu" (also for derivatives that say so in ID_LIKE); empty otherwise.
_distro_family() {
  local id="" like=""
  [[ -r /etc/os-release ]] || return 0
  id=$(. /etc/os-release && printf '%s' "${ID:-}")
  like=$(. /etc/os-release && printf '%s' "${ID_LIKE:-}")
  case " $id $like " in
    *" ubuntu "*) printf 'ubuntu' ;;
    *" debian "*) printf 'debian' ;;
  esac
}

_can_apt() { _is_root && [[ -n $(_distro_family) ]] && command -v apt-get >/dev/null 2>&1; }

_apt_updated=0
_apt_install() {
  if [[ $_apt_updated -eq 0 ]]; then
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 || return 1
    _apt_updated=1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >&2
}

# Candidate version of a package, empty when the archive does not have it.
_apt_candidate() {
  apt-cache policy "$1" 2>/dev/null | awk '$1 == "Candidate:" && $2 != "(none)" { print $2 }'
}

_timeout() { if command -v timeout >/dev/null 2>&1; then timeout "$@"; else shift; "$@"; fi; }

docker_answers() { _timeout 10 docker info --format '{{.ServerVersion}}' >/dev/null 2>&1; }

ensure_docker() {
  if command -v docker >/dev/null 2>&1 && docker_answers; then
    return 0
  fi
  if ! _can_apt; then
    cat >&2 <<'MSG'
setup-host: no Docker engine answers, and this script installs one only as root on Debian/Ubuntu.
Install Docker Engine and start it, then run again, e.g. on Debian/Ubuntu:
    sudo apt-get update && sudo apt-get install -y docker.io
    sudo systemctl start docker          # or: sudo dockerd &
    sudo usermod -aG docker "$USER"      # then log in again
Other systems: https://docs.docker.com/engine/install/
MSG
    return 1
  fi
  if ! command -v dockerd >/dev/null 2>&1 || ! command -v docker >/dev/null 2>&1; then
    _setup_log "installing docker.io from the distribution"
    _apt_install docker.io || { _setup_log "apt-get install docker.io failed"; return 1; }
  fi
  docker_answers && return 0
  if [[ -d /run/systemd/system ]] && command -v systemctl >/dev/null 2>&1; then
    _setup_log "starting docker with systemctl"
    systemctl start docker >&2 || { _setup_log "systemctl start docker failed"; return 1; }
  else
    _start_dockerd || return 1
  fi
  local i
  for ((i = 0; i < 60; i++)); do
    docker_answers && return 0
    sleep 1
  done
  _setup_log "the Docker engine did not answer within 60 s"
  return 1
}

# No systemd (containers, CI sandboxes): run dockerd ourselves. iptables off because such sandboxes
# usually cannot program netfilter; bridge networks, container DNS and 127.0.0.1 ports still work.
_start_dockerd() {
  local run_dir=$JSONBENCH_CACHE/run
  mkdir -p "$run_dir"
  _setup_log "starting dockerd in the background (log $run_dir/dockerd.log)"
  # setsid: a Ctrl-C in the caller's terminal must not kill the engine before the caller cleans up.
  setsid dockerd --iptables=false --ip-masq=false >>"$run_dir/dockerd.log" 2>&1 </dev/null &
  # Not exported: only the shell that started the engine may stop it (a nested runme.sh, e.g. in
  # the end-to-end tests, must leave its caller's engine running).
  JSONBENCH_DOCKERD_PID=$!
  printf '%s\n' "$JSONBENCH_DOCKERD_PID" >"$run_dir/dockerd.pid.tmp"
  mv -f "$run_dir/dockerd.pid.tmp" "$run_dir/dockerd.pid"
  local i
  for ((i = 0; i < 60; i++)); do
    docker_answers && return 0
    if ! kill -0 "$JSONBENCH_DOCKERD_PID" 2>/dev/null; then
      _setup_log "dockerd exited at start; last lines of its log:"
      tail -n 20 "$run_dir/dockerd.log" >&2
      unset JSONBENCH_DOCKERD_PID
      return 1
    fi
    sleep 1
  done
  _setup_log "dockerd (pid $JSONBENCH_DOCKERD_PID) did not answer within 60 s"
  return 1
}

# Stops the dockerd that ensure_docker started in this process (or whose pid is given), by its pid.
stop_started_dockerd() {
  local pid=${1:-${JSONBENCH_DOCKERD_PID:-}}
  [[ -n $pid ]] || return 0
  if kill -0 "$pid" 2>/dev/null; then
    _setup_log "stopping dockerd (pid $pid)"
    kill -TERM "$pid" 2>/dev/null || true
    local i
    for ((i = 0; i < 30; i++)); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 1
    done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null
  fi
  local pidfile=$JSONBENCH_CACHE/run/dockerd.pid
  if [[ -f $pidfile && $(cat "$pidfile" 2>/dev/null) == "$pid" ]]; then rm -f "$pidfile"; fi
  unset JSONBENCH_DOCKERD_PID
  return 0
}

# A bench run's end: the dockerd ensure_docker started in this process stays up (the monitoring's
# containers run on it, to be read after the run); says how to stop it and forgets the pid, so that a
# later stop_started_dockerd in this process leaves it alone.
leave_started_dockerd() {
  local pid=${JSONBENCH_DOCKERD_PID:-}
  [[ -n $pid ]] || return 0
  _setup_log "the Docker engine this run started (dockerd, pid $pid) is left running: Prometheus and Grafana stay up to be read"
  _setup_log "to stop it: ./runme.sh down && $JSONBENCH_ROOT/host/setup-host.sh stop_started_dockerd $pid"
  unset JSONBENCH_DOCKERD_PID
}

# go >= 1.21 knows GOTOOLCHAIN and fetches newer toolchains itself; older ones (Debian 12 ships
# 1.19) get a toolchain module from the Go proxy, put first on PATH.
_go_minor() { go env GOVERSION 2>/dev/null | sed -n 's/^go1\.\([0-9]*\).*/\1/p'; }

ensure_go() {
  if ! command -v go >/dev/null 2>&1; then
    for d in /usr/local/go/bin /usr/lib/go/bin; do
      [[ -x $d/go ]] && { PATH=$d:$PATH; export PATH; break; }
    done
  fi
  if ! command -v go >/dev/null 2>&1; then
    if ! _can_apt; then
      _setup_log "Go is needed to build this; install it (https://go.dev/doc/install) and run again"
      return 1
    fi
    _setup_log "installing golang-go from the distribution"
    _apt_install golang-go ca-certificates git || return 1
  fi
  local minor
  minor=$(_go_minor)
  if [[ -n $minor && $minor -lt 21 ]]; then
    local arch mod dir
    arch=$(go env GOARCH)
    mod=golang.org/toolchain@v0.0.1-$JSONBENCH_GO_TOOLCHAIN.linux-$arch
    _setup_log "go 1.$minor is too old; fetching $mod from the Go module proxy"
    dir=$(cd /tmp && GO111MODULE=on GOFLAGS=-mod=mod go mod download -json "$mod" |
      awk -F'"' '$2 == "Dir" { print $4 }') || return 1
    [[ -x $dir/bin/go ]] || { _setup_log "no go binary in $mod"; return 1; }
    PATH=$dir/bin:$PATH
    export PATH
  fi
  export GOTOOLCHAIN=${GOTOOLCHAIN:-auto}
  return 0
}

# The oldest Compose the lab's files work with: compose.standins.yaml's `!override` needs 2.24.4,
# the `include:` of each database's compose file (databases/<name>/compose.yaml) 2.20.
JSONBENCH_COMPOSE_MIN=2.24.4

# 0 when `docker compose` answers with at least JSONBENCH_COMPOSE_MIN; an older one is said once.
compose_answers() {
  local v
  v=$(_timeout 10 docker compose version --short 2>/dev/null) || return 1
  v=${v#v}
  [[ $(printf '%s\n%s\n' "$JSONBENCH_COMPOSE_MIN" "${v%%[-+]*}" | sort -V | head -n1) == "$JSONBENCH_COMPOSE_MIN" ]] && return 0
  _setup_log "docker compose $v is older than $JSONBENCH_COMPOSE_MIN, which the lab's compose files need (include:, !override)"
  return 1
}

# The part of ensure_compose that may run apt-get (the distribution's plugin, or Go to build one):
# run first and alone, it leaves ensure_compose only the Go build, which lab/test.sh runs beside the
# stand-in images' builds without two apt-gets at once (apt refuses a second one).
ensure_compose_prereqs() {
  compose_answers && return 0
  local plugin_dir=/usr/local/lib/docker/cli-plugins
  local cached=$JSONBENCH_CACHE/bin/docker-compose-$JSONBENCH_COMPOSE_VERSION
  if ! _can_apt; then
    cat >&2 <<MSG
setup-host: 'docker compose' (Compose v2) does not answer; this script installs it only as root
on Debian/Ubuntu. Install the Compose plugin ($JSONBENCH_COMPOSE_MIN or newer) and run again, e.g.:
    sudo apt-get update && sudo apt-get install -y docker-compose-plugin   # Docker's apt repository
    # or build it: go install github.com/docker/compose/v2/cmd@$JSONBENCH_COMPOSE_VERSION &&
    #   sudo install -D ~/go/bin/cmd $plugin_dir/docker-compose
MSG
    return 1
  fi
  local pkg
  for pkg in docker-compose-v2 docker-compose-plugin; do
    if [[ -n $(_apt_candidate "$pkg") ]] || { [[ $_apt_updated -eq 0 ]] &&
      DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 && _apt_updated=1 &&
      [[ -n $(_apt_candidate "$pkg") ]]; }; then
      _setup_log "installing $pkg from the distribution"
      _apt_install "$pkg" && compose_answers && return 0
    fi
  done
  [[ -x $cached ]] && return 0
  _compose_from_debian >/dev/null && return 0
  ensure_go
}

# Compose from Debian 13 (trixie), whose docker-compose package is the v2 plugin (Debian 12's is
# Compose v1): a 13 MB download instead of a Go build of 1.5 to 3 min of both cores. Pinned by its
# upstream version; another one (after a trixie point release) is not used: Compose is built instead,
# and that is said. Prints the cached binary's path.
JSONBENCH_COMPOSE_DEBIAN=${JSONBENCH_COMPOSE_DEBIAN:-2.26.1}
_compose_from_debian() {
  local cached=$JSONBENCH_CACHE/bin/docker-compose-debian-$JSONBENCH_COMPOSE_DEBIAN root got
  if [[ ! -x $cached ]]; then
    root=$(mktemp -d)
    got=$("$JSONBENCH_ROOT/host/debian-fetch.sh" trixie "$root" docker-compose) || { rm -rf "$root"; return 1; }
    got=${got#docker-compose }
    if [[ ${got%%-*} != "$JSONBENCH_COMPOSE_DEBIAN" ]]; then
      _setup_log "Debian trixie's docker-compose is $got, the lab is tested with $JSONBENCH_COMPOSE_DEBIAN: building Compose instead (test the lab with it, then set JSONBENCH_COMPOSE_DEBIAN)"
      rm -rf "$root"
      return 1
    fi
    mkdir -p "$JSONBENCH_CACHE/bin"
    install -m 0755 "$root/usr/libexec/docker/cli-plugins/docker-compose" "$cached.tmp" &&
      mv -f "$cached.tmp" "$cached" || { rm -rf "$root"; return 1; }
    rm -rf "$root"
    _setup_log "fetched Compose $got from Debian trixie, cached at $cached"
  fi
  printf '%s\n' "$cached"
}

ensure_compose() {
  local plugin_dir=/usr/local/lib/docker/cli-plugins
  local cached=$JSONBENCH_CACHE/bin/docker-compose-$JSONBENCH_COMPOSE_VERSION debian
  ensure_compose_prereqs || return 1
  compose_answers 2>/dev/null && return 0
  if [[ ! -x $cached ]] && debian=$(_compose_from_debian); then
    cached=$debian
  elif [[ ! -x $cached ]]; then
    local gobin started=$SECONDS
    mkdir -p "$JSONBENCH_CACHE/bin"
    gobin=$(mktemp -d "$JSONBENCH_CACHE/compose-build.XXXXXX")
    _setup_log "building Compose $JSONBENCH_COMPOSE_VERSION from the Go module proxy (about 3 min on 2 cores)"
    if ! GOBIN=$gobin CGO_ENABLED=0 GOFLAGS=-buildvcs=false \
      go install -trimpath -ldflags "-s -w -X github.com/docker/compose/v2/internal.Version=$JSONBENCH_COMPOSE_VERSION" \
      "github.com/docker/compose/v2/cmd@$JSONBENCH_COMPOSE_VERSION" >&2; then
      rm -rf "$gobin"
      _setup_log "building Compose failed"
      return 1
    fi
    mv -f "$gobin/cmd" "$cached.tmp" && mv -f "$cached.tmp" "$cached"
    rm -rf "$gobin"
    _setup_log "built Compose in $((SECONDS - started)) s, cached at $cached"
  fi
  mkdir -p "$plugin_dir"
  install -m 0755 "$cached" "$plugin_dir/docker-compose.tmp"
  mv -f "$plugin_dir/docker-compose.tmp" "$plugin_dir/docker-compose"
  compose_answers || { _setup_log "docker compose still does not answer"; return 1; }
}

# Never fatal: the run goes on without perf and says why (JSONBENCH_PERF_REASON).
ensure_perf() {
  JSONBENCH_PERF="" JSONBENCH_PERF_REASON=""
  if ! perf --version >/dev/null 2>&1 && _can_apt; then
    case $(_distro_family) in
      debian) _apt_install linux-perf || true ;;
      ubuntu) _apt_install "linux-tools-$(uname -r)" linux-tools-common ||
        _apt_install linux-tools-generic linux-tools-common || true ;;
    esac
  fi
  if perf --version >/dev/null 2>&1; then
    JSONBENCH_PERF=$(command -v perf)
  else
    JSONBENCH_PERF_REASON="perf is not installed or has no build for kernel $(uname -r)"
    _is_root || JSONBENCH_PERF_REASON+=" (not root: cannot install it)"
  fi
  _mount_perf_event_cgroup
  export JSONBENCH_PERF JSONBENCH_PERF_REASON
  [[ -n $JSONBENCH_PERF_REASON ]] && _setup_log "perf: $JSONBENCH_PERF_REASON"
  return 0
}

# cgroup v1 hosts may have the perf_event controller compiled in but not mounted; `perf -G` needs it.
_mount_perf_event_cgroup() {
  [[ -f /sys/fs/cgroup/cgroup.controllers ]] && return 0   # cgroup v2: perf_event is built in
  awk '$1 == "perf_event" && $4 == 1 { found = 1 } END { exit !found }' /proc/cgroups 2>/dev/null || {
    JSONBENCH_PERF_REASON+="${JSONBENCH_PERF_REASON:+; }the kernel has no perf_event cgroup controller"
    return 0
  }
  awk '$3 == "cgroup" && $4 ~ /(^|,)perf_event(,|$)/ { found = 1 } END { exit !found }' /proc/mounts &&
    return 0
  if _is_root && mkdir -p /sys/fs/cgroup/perf_event 2>/dev/null &&
    mount -t cgroup -o perf_event perf_event /sys/fs/cgroup/perf_event 2>/dev/null; then
    _setup_log "mounted the perf_event cgroup controller at /sys/fs/cgroup/perf_event"
  else
    JSONBENCH_PERF_REASON+="${JSONBENCH_PERF_REASON:+; }perf_event cgroup controller not mounted (needs root)"
  fi
  return 0
}

# Images compose.yaml pulls (services with `image:` and no `build:`), one per line: its own and
# those of the files its `include:` lists (each database's compose.yaml, in databases/<name>/).
official_images() {
  local files=("$JSONBENCH_ROOT/compose.yaml") inc
  while read -r inc; do files+=("$JSONBENCH_ROOT/$inc"); done < <(
    awk '/^[^ #]/ { in_include = ($1 == "include:") } in_include && $1 == "-" { print $2 }' "$JSONBENCH_ROOT/compose.yaml")
  awk '/^[^ #]/ { in_services = ($1 == "services:") }
       in_services && $1 == "image:" { print $2 }' "${files[@]}" |
    # an image a variable may replace (${TIMESCALEDB_IMAGE:-<official>}): the official default
    tr -d "\"'" | sed -E 's/^\$\{[A-Za-z_][A-Za-z0-9_]*:-(.*)\}$/\1/' | grep -v '^jsonbench'
}

# 0 when the official images can be used: all present locally, or the registries answer.
# JSONBENCH_STANDINS=1 forces stand-ins (returns 1), =0 forces official images (returns 0).
registry_reachable() {
  case ${JSONBENCH_STANDINS:-auto} in
    1) return 1 ;;
    0) return 0 ;;
    auto) ;;
    *) _setup_log "JSONBENCH_STANDINS='$JSONBENCH_STANDINS' is not one of auto, 1, 0"; return 2 ;;
  esac
  local img missing=0 hosts=() host
  while read -r img; do
    [[ -n $img ]] || continue
    docker image inspect "$img" >/dev/null 2>&1 && continue
    missing=1
    case $img in
      */*/*) host=${img%%/*} ;;
      *) host=registry-1.docker.io ;;
    esac
    [[ " ${hosts[*]} " == *" $host "* ]] || hosts+=("$host")
  done < <(official_images)
  [[ $missing -eq 0 ]] && return 0
  # The registry's /v2/ answers 200 or 401 when reachable; 3 s per host bounds the probe. Why it
  # failed is kept in JSONBENCH_REGISTRY_PROBE_ERROR for the caller's message.
  command -v curl >/dev/null 2>&1 || {
    JSONBENCH_REGISTRY_PROBE_ERROR="curl is not installed (the probe runs curl https://${hosts[0]}/v2/)"
    _setup_log "registry probe: $JSONBENCH_REGISTRY_PROBE_ERROR"; return 1; }
  for host in "${hosts[@]}"; do
    local code err errf
    errf=$(mktemp)
    code=$(curl -sS -o /dev/null -m 3 --connect-timeout 3 -w '%{http_code}' "https://$host/v2/" 2>"$errf")
    err=$(tr '\n' ' ' <"$errf"); rm -f "$errf"
    [[ $code == 200 || $code == 401 ]] && continue
    JSONBENCH_REGISTRY_PROBE_ERROR="curl https://$host/v2/ gave HTTP ${code:-000}${err:+: $err}"
    _setup_log "registry $host not reachable: $JSONBENCH_REGISTRY_PROBE_ERROR"
    return 1
  done
  return 0
}

# 0 when the stand-ins are to be used; decided once per process (JSONBENCH_USE_STANDINS=0|1).
use_standins() {
  if [[ -z ${JSONBENCH_USE_STANDINS:-} ]]; then
    local rc=0
    registry_reachable || rc=$?
    [[ $rc -eq 2 ]] && return 2
    if [[ $rc -eq 0 ]]; then JSONBENCH_USE_STANDINS=0; else JSONBENCH_USE_STANDINS=1; fi
    export JSONBENCH_USE_STANDINS JSONBENCH_REGISTRY_PROBE_ERROR
  fi
  [[ $JSONBENCH_USE_STANDINS == 1 ]]
}

# Absolute paths (the repository's path must not contain spaces for word-splitting callers).
compose_files() {
  local args="-f $JSONBENCH_ROOT/compose.yaml" rc=0
  use_standins || rc=$?
  [[ $rc -eq 2 ]] && return 2
  [[ $rc -eq 0 ]] && args+=" -f $JSONBENCH_ROOT/compose.standins.yaml"
  printf '%s\n' "$args"
}

_random_secret() { od -An -N18 -tx1 /dev/urandom | tr -d ' \n'; }

_secret_keys=(POSTGRES_PASSWORD MONGO_PASSWORD MYSQL_PASSWORD GRAFANA_ADMIN_PASSWORD)

# A .env made before a secret was added to .env.example gets that one generated and appended
# (its other lines are the user's and stay as they are).
_append_missing_secrets() {
  local env=$1 key
  for key in "${_secret_keys[@]}"; do
    grep -q "^$key=" "$env" && continue
    printf '%s=%s\n' "$key" "$(_random_secret)" >>"$env"
    _setup_log "added a generated $key to $env"
  done
}

ensure_env_file() {
  local env=$JSONBENCH_ROOT/.env example=$JSONBENCH_ROOT/.env.example
  if [[ -f $env ]]; then _append_missing_secrets "$env"; return 0; fi
  [[ -f $example ]] || { _setup_log "$example is missing"; return 1; }
  local tmp
  tmp=$(mktemp "$env.XXXXXX")
  chmod 600 "$tmp"
  local line key
  while IFS= read -r line || [[ -n $line ]]; do
    key=${line%%=*}
    [[ " ${_secret_keys[*]} " != *" $key "* ]] || line="$key=$(_random_secret)"
    printf '%s\n' "$line"
  done <"$example" >"$tmp"
  mv -f "$tmp" "$env"
  _setup_log "created $env with generated passwords (git-ignored)"
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
  set -uo pipefail
  cmd=${1:-help}
  case $cmd in
    ensure_docker)
      ensure_docker || exit 1
      [[ -n ${JSONBENCH_DOCKERD_PID:-} ]] &&
        _setup_log "dockerd left running, pid $JSONBENCH_DOCKERD_PID (pid file $JSONBENCH_CACHE/run/dockerd.pid)"
      exit 0 ;;
    stop_started_dockerd) stop_started_dockerd "${2:-$(cat "$JSONBENCH_CACHE/run/dockerd.pid" 2>/dev/null)}" ;;
    ensure_compose | ensure_go | ensure_env_file | registry_reachable | use_standins | compose_files | official_images)
      "$cmd" ;;
    ensure_perf)
      ensure_perf
      printf 'perf=%s\nreason=%s\n' "$JSONBENCH_PERF" "$JSONBENCH_PERF_REASON" ;;
    all)
      ensure_docker && ensure_compose && ensure_perf && ensure_env_file && compose_files ;;
    help | -h | --help)
      sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//' ;;
    *)
      _setup_log "unknown command '$cmd'; allowed: ensure_docker ensure_compose ensure_perf ensure_go registry_reachable use_standins compose_files ensure_env_file stop_started_dockerd official_images all"
      exit 2 ;;
  esac
fi
