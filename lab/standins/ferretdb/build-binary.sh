#!/usr/bin/env bash
# Builds the FerretDB binary used as the MongoDB stand-in where no container registry is reachable.
# FerretDB is fetched as a Go module (the only route to it on registry-less hosts): the proxy's
# `go install ...@version` refuses it, but `go mod download` of the module works, so we build it from
# a writable copy of the module. The binary is cached; a second call only checks its version.
#
# Usage: build-binary.sh            (env: JSONBENCH_CACHE, FERRETDB_VERSION)
# Output: logs on stderr; the binary's absolute path as the last line on stdout.
set -euo pipefail

version=${FERRETDB_VERSION:-v1.24.0}
cache=${JSONBENCH_CACHE:-/var/cache/jsonbench}
bin_dir=$cache/bin
target=$bin_dir/ferretdb
module=github.com/FerretDB/FerretDB

log() { printf 'build-binary[ferretdb]: %s\n' "$*" >&2; }

case $version in
  v[0-9]*.[0-9]*.[0-9]*) ;;
  *) log "FERRETDB_VERSION='$version' is not a version like v1.24.0"; exit 2 ;;
esac

# FerretDB prints "version: vX.Y.Z" among other lines on --version.
cached_version() {
  [[ -x $target ]] || return 1
  "$target" --version 2>/dev/null | awk '$1 == "version:" { print $2; exit }'
}

if [[ "$(cached_version || true)" == "$version" ]]; then
  log "cached $target is $version; nothing to build"
  printf '%s\n' "$target"
  exit 0
fi

if ! command -v go >/dev/null 2>&1; then
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  # shellcheck source=../../setup-host.sh
  . "$here/../../setup-host.sh"
  ensure_go >&2
fi

mkdir -p "$bin_dir"
work=$(mktemp -d "$cache/ferretdb-build.XXXXXX")
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT

started=$SECONDS
log "downloading $module@$version from the Go module proxy"
# GOTOOLCHAIN=auto lets an older host go fetch the toolchain the module asks for (also via the proxy).
moddir=$(cd "$work" && GOTOOLCHAIN=${GOTOOLCHAIN:-auto} GOFLAGS=-mod=mod \
  go mod download -json "$module@$version" | awk -F'"' '$2 == "Dir" { print $4 }')
[[ -n $moddir && -d $moddir ]] || { log "go mod download gave no module directory"; exit 1; }

# The module cache is read-only; the build wants to write the version file.
cp -r "$moddir" "$work/src"
chmod -R u+w "$work/src"
printf '%s\n' "$version" > "$work/src/build/version/version.txt"

log "building ./cmd/ferretdb (takes a minute or two on 2 cores)"
# Pure Go (SQLite via modernc.org), so a static binary runs in any base image.
(cd "$work/src" && CGO_ENABLED=0 GOFLAGS=-buildvcs=false GOTOOLCHAIN=${GOTOOLCHAIN:-auto} \
  go build -trimpath -o "$work/ferretdb" ./cmd/ferretdb) >&2

got=$("$work/ferretdb" --version 2>/dev/null | awk '$1 == "version:" { print $2; exit }')
if [[ "$got" != "$version" ]]; then
  log "built binary reports version '$got', expected '$version'"
  exit 1
fi
mv -f "$work/ferretdb" "$target.tmp.$$"
mv -f "$target.tmp.$$" "$target"
log "built $target ($version) in $((SECONDS - started)) s"
printf '%s\n' "$target"
