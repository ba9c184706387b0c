#!/usr/bin/env bash
# Builds the probe image (lab/probe/Dockerfile) on the Docker engine the environment names
# (DOCKER_CONTEXT / DOCKER_HOST) and prints its tag, jsonbench/probe:<inputs hash>: the tag names
# its inputs, so checkouts with different probe code share one engine without rebuilding each other's,
# and an unchanged input is not built again.
#   lab/probe/build.sh [BASE]    BASE: the Debian bookworm image to start from (default: the
#                                stand-in base jsonbench-standin/debian:bookworm when USE_STANDINS=1
#                                or it is the only one present, else debian:bookworm-slim)
# The context holds the Dockerfile and the probe's Python only (lab/driver/__init__.py, probe.py,
# cgroup_processes.py, probe_server.py): none of the repository's other files.
set -Eeuo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
driver=$here/../driver
log() { printf 'probe image: %s\n' "$*" >&2; }

base=${1:-}
if [[ -z $base ]]; then
  if [[ ${USE_STANDINS:-0} == 1 ]] || ! docker image inspect debian:bookworm-slim >/dev/null 2>&1 &&
     docker image inspect jsonbench-standin/debian:bookworm >/dev/null 2>&1; then
    base=jsonbench-standin/debian:bookworm
  else
    base=debian:bookworm-slim
  fi
fi
ctx=$(mktemp -d "${TMPDIR:-/tmp}/probe-image.XXXXXX")
trap 'rm -rf "$ctx" "$ctx.log"' EXIT
mkdir -p "$ctx/driver"
cp "$here/Dockerfile" "$ctx/"
for f in __init__.py probe.py cgroup_processes.py probe_server.py; do cp "$driver/$f" "$ctx/driver/"; done
hash=$({ docker image inspect --format '{{.Id}}' "$base" 2>/dev/null || echo "$base"
         (cd "$ctx" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum); } | sha256sum | cut -c1-16)
tag=jsonbench/probe:$hash
if docker image inspect "$tag" >/dev/null 2>&1; then
  log "$tag is up to date"
  printf '%s\n' "$tag"
  exit 0
fi
t0=$SECONDS
log "building $tag from $base"
# --network host: apt-get reaches the mirror even where dockerd runs with iptables off (as
# lab/standins/build.sh); --force-rm: a failed step leaves no stopped container behind.
DOCKER_BUILDKIT=0 docker build --network host --force-rm --build-arg "BASE=$base" \
  --label "jsonbench.inputs=$hash" -t "$tag" "$ctx" >"$ctx.log" 2>&1 ||
  { tail -n 30 "$ctx.log" >&2; log "building $tag failed (log above)"; exit 1; }
log "built $tag in $((SECONDS - t0)) s"
printf '%s\n' "$tag"
