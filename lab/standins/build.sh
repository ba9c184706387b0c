#!/usr/bin/env bash
# Builds the local stand-in images used where no container registry is reachable:
#   jsonbench-standin/debian:<suite>    bases, debootstrap minbase + docker import; each image's
#                                       Dockerfile names its suite in `ARG BASE=` (the suite of the
#                                       official image it stands in for: bookworm, trixie or sid)
#   jsonbench-standin/cadvisor:0.49.2   cAdvisor library v0.49.2 in a small main (bookworm)
#   jsonbench-standin/prometheus:3.5    Debian sid's Prometheus 3.5.3 (the official image: v3.5.0)
#   jsonbench-standin/node:20           Debian 13's Node.js 20.x + npm, base of the client image
#   jsonbench-standin/<db>:<tag>        a database folder's own stand-in: databases/<db>/standin/ is
#                                       its context, databases/<db>/database.json its standin.image
#                                       (the tag names the version, so checkouts of two versions
#                                       share one engine without rebuilding each other's) and label
#                                       (mongodb: SecantusDB 0.7.0b3, NOT MongoDB; postgres: Debian
#                                       PostgreSQL 17 on trixie behind the official image's env/args contract;
#                                       timescaledb: Debian's TimescaleDB 2.19.3 on the postgres one)
# An image whose inputs (build context, binaries, base image) are unchanged is not rebuilt:
# the inputs' hash is stored in the image label jsonbench.inputs.
#
# Usage: lab/standins/build.sh [cadvisor prometheus node <db>...]   (default: all)
# Env: JSONBENCH_CACHE (default /var/cache/jsonbench), DEBIAN_MIRROR.
set -Eeuo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
databases=$(cd "$here/../../databases" 2>/dev/null && pwd || true)
cache=${JSONBENCH_CACHE:-/var/cache/jsonbench}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
all_images=(cadvisor prometheus node)
# The lab's own stand-ins' tags (a database's is its manifest's standin.image).
declare -A image_tag=(
  [cadvisor]=jsonbench-standin/cadvisor:0.49.2
  [prometheus]=jsonbench-standin/prometheus:3.5
  [node]=jsonbench-standin/node:20
)

# What each image stands in for; runme.sh shows this label in every result (never hide a stand-in).
declare -A stand_in=(
  [cadvisor]="cAdvisor v0.49.2 library build standing in for ghcr.io/google/cadvisor:v0.60.5 (the series the lab reads are the same; no containerd image store, Docker API <= 1.41: lab/standins/README.md)"
  [prometheus]="Prometheus 3.5.3 (Debian package) standing in for prom/prometheus:v3.5.0"
  [node]="Node.js 20.x (Debian 13 package) standing in for node:20-bookworm-slim"
)
# A database folder with a standin/ context brings its own image; its label is the manifest's.

declare -A context_dir
for img in "${all_images[@]}"; do context_dir[$img]=$here/$img; done
for dir in "${databases:-/nonexistent}"/*/standin; do
  [[ -d $dir && -f $dir/../database.json ]] || continue
  img=$(basename "$(dirname "$dir")")
  { read -r image_tag[$img]; read -r stand_in[$img]; } < <(python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["standin"]
image = s["image"]
print(image if ":" in image else image + ":latest")
print(s["label"])' "$dir/../database.json") && [[ -n ${stand_in[$img]:-} ]] ||
    { printf 'standins: %s has no standin.image and standin.label\n' "$dir/../database.json" >&2; exit 1; }
  context_dir[$img]=$dir
  all_images+=("$img")
done

log() { printf 'standins: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

images=("$@")
[[ ${#images[@]} -gt 0 ]] || images=("${all_images[@]}")
for img in "${images[@]}"; do
  [[ -n ${stand_in[$img]:-} ]] || die "unknown stand-in '$img'; allowed: ${all_images[*]}"
done

command -v docker >/dev/null || die "docker is not installed (host/setup-host.sh ensure_docker)"
docker info >/dev/null 2>&1 || die "no Docker engine answers (host/setup-host.sh ensure_docker)"

# The base an image's Dockerfile names (`ARG BASE=...`): a Debian suite's, or another stand-in's.
dockerfile_base() {
  sed -n 's/^ARG BASE=\([^[:space:]]*\).*/\1/p' "$1/Dockerfile" | head -n 1
}

ensure_debootstrap() {
  command -v debootstrap >/dev/null && return 0
  [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null ||
    die "debootstrap is missing; install it (apt-get install debootstrap) and run again"
  log "installing debootstrap"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >&2 ||
    { apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >&2; }
}

# ensure_base SUITE: jsonbench-standin/debian:SUITE, debootstrapped once and cached as a tarball.
ensure_base() {
  local suite=$1 base_image=jsonbench-standin/debian:$1 base_tar=$cache/debootstrap/$1-minbase.tar
  case $suite in bookworm | trixie | sid) ;; *) die "unknown Debian suite '$suite'; allowed: bookworm trixie sid" ;; esac
  if docker image inspect "$base_image" >/dev/null 2>&1; then
    return 0
  fi
  if [[ ! -s $base_tar ]]; then
    ensure_debootstrap
    local root t0=$SECONDS
    mkdir -p "$(dirname "$base_tar")"
    root=$(mktemp -d "$cache/debootstrap/rootfs.XXXXXX")
    log "debootstrap $suite minbase from $mirror (about 30 s)"
    debootstrap --variant=minbase "$suite" "$root" "$mirror" >"$root.log" 2>&1 ||
      { tail -n 20 "$root.log" >&2; rm -rf "$root"; die "debootstrap failed (log above)"; }
    rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
    # sid is served from a snapshot whose Release file has expired; apt would refuse it. The images
    # pin the package versions they were tested with, so a stale index cannot change what they hold.
    [[ $suite != sid ]] ||
      echo 'Acquire::Check-Valid-Until "false";' >"$root/etc/apt/apt.conf.d/99jsonbench-snapshot"
    tar --numeric-owner -C "$root" -cf "$base_tar.tmp" .
    mv -f "$base_tar.tmp" "$base_tar"
    rm -rf "$root" "$root.log"
    log "base tarball $base_tar in $((SECONDS - t0)) s"
  fi
  log "importing $base_image"
  docker import --change 'CMD ["bash"]' --change 'ENV LANG=C.UTF-8' \
    --change "LABEL jsonbench.inputs=$(sha256sum "$base_tar" | cut -c1-16)" \
    "$base_tar" "$base_image" >/dev/null
}

# Copies the image's folder into a fresh context and adds the binaries it needs.
prepare_context() {
  local img=$1 ctx=$2
  cp -r "${context_dir[$img]}/." "$ctx/"
  # Hosts behind a TLS-inspecting proxy need their added CAs for npm ci / pip install: given to
  # every image whose Dockerfile copies extra-ca/ (node, the MongoDB stand-in).
  if grep -q '^COPY extra-ca/' "$ctx/Dockerfile"; then
    mkdir -p "$ctx/extra-ca"
    touch "$ctx/extra-ca/.keep"
    local crt
    for crt in /usr/local/share/ca-certificates/*.crt; do
      [[ -f $crt ]] && cp "$crt" "$ctx/extra-ca/"
    done
  fi
  case $img in
    cadvisor)
      cp "$(build_cadvisor)" "$ctx/cadvisor-standin"
      rm -f "$ctx/main.go" "$ctx/go.mod" "$ctx/go.sum" ;;
  esac
  if grep -q '^COPY npm.tgz ' "$ctx/Dockerfile"; then
    cp "$(fetch_npm "$ctx/Dockerfile")" "$ctx/npm.tgz"
  fi
}

# The npm tarball a Dockerfile pins (ARG NPM_VERSION, ARG NPM_INTEGRITY), fetched once from the npm
# registry the host's npm is configured for (its proxy and CAs) and cached; its digest is checked
# against the pin on every use.
fetch_npm() {
  local dockerfile=$1 version integrity out got
  version=$(sed -n 's/^ARG NPM_VERSION=\([^[:space:]]*\).*/\1/p' "$dockerfile")
  integrity=$(sed -n 's/^ARG NPM_INTEGRITY=\([^[:space:]]*\).*/\1/p' "$dockerfile")
  [[ -n $version && $integrity == sha512-* ]] ||
    die "$dockerfile: COPY npm.tgz needs ARG NPM_VERSION=<x.y.z> and ARG NPM_INTEGRITY=sha512-<base64>"
  out=$cache/npm/npm-$version.tgz
  if [[ ! -s $out ]]; then
    command -v npm >/dev/null || die "npm is missing on this host (host/node-python.sh ensure_node_deps installs it)"
    mkdir -p "$cache/npm"
    local dir; dir=$(mktemp -d "$cache/npm/pack.XXXXXX")
    log "fetching npm $version from the npm registry"
    (cd "$dir" && npm pack --silent "npm@$version" >/dev/null) >&2 || { rm -rf "$dir"; die "npm pack npm@$version failed"; }
    mv -f "$dir/npm-$version.tgz" "$out"
    rm -rf "$dir"
  fi
  got=sha512-$(python3 -c 'import base64, hashlib, sys; print(base64.b64encode(hashlib.sha512(open(sys.argv[1], "rb").read()).digest()).decode())' "$out")
  [[ $got == "$integrity" ]] || { rm -f "$out"; die "$out: digest $got is not the pinned $integrity ($dockerfile NPM_INTEGRITY)"; }
  printf '%s\n' "$out"
}

# The cAdvisor stand-in binary, cached by the hash of its sources.
build_cadvisor() {
  local src=$here/cadvisor hash out
  hash=$(cat "$src/main.go" "$src/go.mod" "$src/go.sum" | sha256sum | cut -c1-16)
  out=$cache/bin/cadvisor-standin-$hash
  if [[ ! -x $out ]]; then
    command -v go >/dev/null || { . "$here/../../host/setup-host.sh"; ensure_go >&2; }
    log "building the cAdvisor stand-in from the Go module proxy"
    mkdir -p "$cache/bin"
    (cd "$src" && CGO_ENABLED=0 GOFLAGS="-buildvcs=false -mod=readonly" GOTOOLCHAIN=${GOTOOLCHAIN:-auto} \
      go build -trimpath -o "$out.tmp" .) >&2
    mv -f "$out.tmp" "$out"
  fi
  printf '%s\n' "$out"
}

context_hash() {
  local ctx=$1
  { docker image inspect --format '{{.Id}}' "$(dockerfile_base "$ctx")"
    (cd "$ctx" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
  } | sha256sum | cut -c1-16
}

build_image() {
  local img=$1 tag=${image_tag[$1]} ctx hash have base t0=$SECONDS
  [[ -n ${built[$img]:-} ]] && return 0
  base=$(dockerfile_base "${context_dir[$img]}")
  case $base in
    jsonbench-standin/debian:*) ensure_base "${base#jsonbench-standin/debian:}" ;;
    *)  # another stand-in image: build it first
      local from
      for from in "${all_images[@]}"; do [[ ${image_tag[$from]} == "$base" ]] && build_image "$from"; done
      docker image inspect "$base" >/dev/null 2>&1 || die "$img: its base $base is no stand-in this script builds" ;;
  esac
  built[$img]=1
  ctx=$(mktemp -d "${TMPDIR:-/tmp}/standin-$img.XXXXXX")
  trap 'rm -rf "$ctx"' RETURN
  prepare_context "$img" "$ctx"
  hash=$(context_hash "$ctx")
  have=$(docker image inspect --format '{{index .Config.Labels "jsonbench.inputs"}}' "$tag" 2>/dev/null || true)
  if [[ $have == "$hash" ]]; then
    log "$tag is up to date ($hash)"
    return 0
  fi
  log "building $tag"
  # --network host: apt-get and pip reach the mirror and PyPI even where dockerd runs with iptables off.
  # --force-rm: a failed step leaves no stopped container behind
  DOCKER_BUILDKIT=0 docker build --network host --force-rm \
    --label "jsonbench.inputs=$hash" --label "jsonbench.stand_in=${stand_in[$img]}" \
    -t "$tag" "$ctx" >"$ctx.log" 2>&1 ||
    { tail -n 30 "$ctx.log" >&2; rm -f "$ctx.log"; die "building $tag failed (log above)"; }
  rm -f "$ctx.log"
  log "built $tag in $((SECONDS - t0)) s ($(docker image inspect --format '{{.Size}}' "$tag" | awk '{ printf "%.0f MB", $1 / 1e6 }'))"
}

# side_by_side WHAT FN ARG...: FN ARG for each ARG at once, each in its own process; dies naming the
# ones that failed once all have ended. On a fresh host most of a build waits on the Debian mirror
# (debootstrap, apt-get) or compiles (the cAdvisor binary), so builds run side by side rather than
# one after another (the node, prometheus, mysql and postgres images each wait on apt; sequentially
# they took most of the stand-ins' time).
side_by_side() {
  local what=$1 fn=$2 arg pids=() args=() failed=() i
  shift 2
  for arg in "$@"; do
    "$fn" "$arg" &
    pids+=($!); args+=("$arg")
  done
  for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || failed+=("${args[$i]}")
  done
  [[ ${#failed[@]} -eq 0 ]] || die "$what failed: ${failed[*]}"
}

t_all=$SECONDS
declare -A built
# The Debian bases first, each suite once; then the images on them; then the images built on
# another stand-in (timescaledb on postgres), whose base is there by then.
suites=() on_debian=() on_standin=()
for img in "${images[@]}"; do
  base=$(dockerfile_base "${context_dir[$img]}")
  case $base in
    jsonbench-standin/debian:*)
      [[ " ${suites[*]} " == *" ${base#jsonbench-standin/debian:} "* ]] || suites+=("${base#jsonbench-standin/debian:}")
      on_debian+=("$img") ;;
    *) on_standin+=("$img") ;;
  esac
done
missing=()
for suite in "${suites[@]}"; do
  docker image inspect "jsonbench-standin/debian:$suite" >/dev/null 2>&1 || missing+=("$suite")
done
[[ ${#missing[@]} -eq 0 ]] || ensure_debootstrap
side_by_side "the Debian bases" ensure_base "${suites[@]}"
side_by_side "building" build_image "${on_debian[@]}"
for img in "${on_debian[@]}"; do built[$img]=1; done  # built in the processes above
for img in "${on_standin[@]}"; do
  build_image "$img"  # builds its stand-in base first when that was not asked for
done
log "stand-in images ready in $((SECONDS - t_all)) s"
