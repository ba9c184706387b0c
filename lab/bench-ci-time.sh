#!/usr/bin/env bash
# The CI-time target: a full `.ci/run` (the README's test command) in under 30 minutes on a 2-core
# host, as a newcomer meets it: a clean clone of HEAD with ../shared beside it, run as CI runs it
# (CI=true, no stdin), timed from the first command to the last line.
#
#   lab/bench-ci-time.sh            on this host as it is (images and tools already built: warm)
#   lab/bench-ci-time.sh --fresh    first sets aside all that earlier runs left: the Docker engine's
#                                   data (every image and build cache), the lab's cache
#                                   ($JSONBENCH_CACHE: Compose and cAdvisor binaries, debootstrap
#                                   tarballs, the SecantusDB venv), the Go, npm and pip caches and the
#                                   Compose plugin; so the run installs and builds every image and
#                                   tool from nothing; then puts all of it back
#
# What --fresh does not undo: the distribution packages (docker.io, perf, debootstrap, nodejs,
# python3-venv, golang) that host/setup-host.sh installs on a bare host; their time is not in the
# figure. --fresh needs root, an engine it can stop (systemd's docker, or the one host/setup-host.sh
# started) and no container running (it will not stop other work).
# Output: the run's log path, its set-up lines and suites' times, the total and a met/MISSED line.
set -Euo pipefail
LAB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TARGET_S=1800
fresh=0
for arg in "$@"; do
  case $arg in
    --fresh) fresh=1 ;;
    *) echo "bench-ci-time: unknown argument '$arg'; allowed: --fresh" >&2; exit 2 ;;
  esac
done
[[ -d $LAB_ROOT/../shared ]] || { echo "bench-ci-time: $LAB_ROOT/../shared is missing (.ci/run needs it beside the clone)" >&2; exit 2; }
JSONBENCH_CACHE=${JSONBENCH_CACHE:-/var/cache/jsonbench}
say() { printf 'bench-ci-time: %s\n' "$*" >&2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/ci-time.XXXXXX")
log=$work/ci.log
aside=()        # paths moved to "$path.ci-time-aside"
engine_was=""   # how to start the engine stopped for --fresh: systemd | setup-host

engine_stop() {
  if [[ -d /run/systemd/system ]] && systemctl is-active --quiet docker 2>/dev/null; then
    systemctl stop docker.socket docker >&2 && engine_was=systemd
    return
  fi
  local pidfile=$JSONBENCH_CACHE/run/dockerd.pid pid
  pid=$(cat "$pidfile" 2>/dev/null || true)
  if [[ -n $pid ]] && [[ $(cat "/proc/$pid/comm" 2>/dev/null) == dockerd ]]; then
    kill "$pid"
    local i; for ((i = 0; i < 60; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
    ! kill -0 "$pid" 2>/dev/null || { say "dockerd ($pid) did not stop in 60 s"; return 1; }
    engine_was=setup-host
    return
  fi
  docker info >/dev/null 2>&1 || return 0  # no engine runs
  say "an engine runs that neither systemd nor host/setup-host.sh started: stop it, then run again"
  return 1
}

# A path is renamed to $p.ci-time-aside; a mount point (the engine's data root often is one) cannot
# be, so its entries move into $p/.ci-time-aside instead, on the same filesystem.
aside_of() { if mountpoint -q "$1"; then printf '%s/.ci-time-aside' "$1"; else printf '%s.ci-time-aside' "$1"; fi; }

set_aside() {
  local p to e
  for p in "$@"; do
    [[ -e $p ]] || continue
    to=$(aside_of "$p")
    [[ ! -e $to ]] || { say "$to exists (an earlier run that did not finish?): move it back or remove it"; return 1; }
    if mountpoint -q "$p"; then
      mkdir "$to" || return 1
      aside+=("$p")
      for e in "$p"/* "$p"/.[!.]*; do
        [[ -e $e && $e != "$to" ]] || continue
        mv "$e" "$to/" || { say "could not move $e aside"; return 1; }
      done
    else
      mv "$p" "$to" || { say "could not move $p aside"; return 1; }
      aside+=("$p")
    fi
  done
}

restore() {
  local p to e rc=0
  [[ ${#aside[@]} -gt 0 ]] || return 0
  say "putting back what was set aside"
  if docker info >/dev/null 2>&1; then engine_stop || rc=1; fi
  for p in "${aside[@]}"; do
    to=$(aside_of "$p")
    if [[ $to == "$p/.ci-time-aside" ]]; then
      for e in "$p"/* "$p"/.[!.]*; do
        [[ -e $e && $e != "$to" ]] || continue
        rm -rf -- "$e" || rc=1
      done
      for e in "$to"/* "$to"/.[!.]*; do
        [[ -e $e ]] || continue
        mv "$e" "$p/" || rc=1
      done
      rmdir "$to" || { say "could not put back all of $p (the rest is in $to)"; rc=1; }
    else
      rm -rf -- "$p" && mv "$to" "$p" || { say "could not put back $p (it is at $to)"; rc=1; }
    fi
  done
  aside=()
  [[ $engine_was != systemd ]] || systemctl start docker >&2 || rc=1
  [[ $engine_was != setup-host ]] || say "the engine is stopped; the next ./runme.sh starts it again"
  return $rc
}
trap 'restore; rm -rf "$work"' EXIT
trap 'exit 130' INT TERM

if [[ $fresh = 1 ]]; then
  [[ $(id -u) = 0 ]] || { say "--fresh needs root (it stops the engine and moves its data)"; exit 2; }
  if docker info >/dev/null 2>&1; then
    running=$(docker ps -q | wc -l)
    [[ $running = 0 ]] || { say "$running containers are running: --fresh will not stop other work"; exit 2; }
    root_dir=$(docker info --format '{{.DockerRootDir}}')
  else
    root_dir=/var/lib/docker
  fi
  engine_stop || exit 2
  go_caches=()
  if command -v go >/dev/null 2>&1; then go_caches=("$(go env GOCACHE)" "$(go env GOMODCACHE)"); fi
  set_aside "$root_dir" "$JSONBENCH_CACHE" "${go_caches[@]}" "$HOME/.npm" "$HOME/.cache/pip" \
    /usr/local/lib/docker/cli-plugins/docker-compose || { say "nothing run: what was moved goes back"; exit 2; }
  say "set aside: ${aside[*]}"
fi

git clone -q "$LAB_ROOT" "$work/main"
ln -s "$(cd "$LAB_ROOT/../shared" && pwd)" "$work/shared"
say "$(git -C "$work/main" log --oneline -1), $([[ $fresh = 1 ]] && echo fresh || echo warm); log $log"
t0=$(date +%s)
(cd "$work/main" && CI=true bash .ci/run </dev/null >"$log" 2>&1)
rc=$?
elapsed=$(( $(date +%s) - t0 ))
cp "$log" "${TMPDIR:-/tmp}/ci-time-$(date +%Y%m%d-%H%M%S).log" && log_kept=$_

grep -E '^(setup-host|standins): .*( in [0-9]+ s| ready in)|passed in|failed in|^=== (FAILED|all suites|started )| \(ended at ' "$log" >&2 || true
printf '\nCI run (%s, exit %d): %d s (%d min %02d s); target under %d s: %s\n' \
  "$([[ $fresh = 1 ]] && echo 'fresh host' || echo 'warm host')" "$rc" "$elapsed" $((elapsed / 60)) $((elapsed % 60)) \
  "$TARGET_S" "$([[ $rc = 0 && $elapsed -lt $TARGET_S ]] && echo met || echo MISSED)"
printf 'log: %s\n' "$log_kept"
exit $rc
