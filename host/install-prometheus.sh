#!/usr/bin/env bash
# The Prometheus binaries (prometheus, promtool) for the analysis and dashboard tests (the lab itself
# runs Prometheus in a container); prints the folder that holds them. The tests answer for the
# Prometheus users run: the version of the lab's Prometheus stand-in (PROMETHEUS_VERSION in
# lab/standins/prometheus/Dockerfile), of the official image's line (compose.yaml
# prom/prometheus:v3.5.0). Prometheus 3 changed what queries return (left-open range selectors,
# regexes matching newlines, ...): a distribution's Prometheus 2 on PATH would test another program.
#
# Debian sid's packages of that version (no other Debian suite has Prometheus 3), fetched by
# host/debian-fetch.sh (the host's sources stay as they are) and kept in a folder of their own, named
# by the version: nothing on PATH changes. The binaries need only glibc >= 2.34 (Debian 12,
# Ubuntu 22.04 and later). Does nothing when the folder holds them already.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
want=$(sed -n 's/^ARG PROMETHEUS_VERSION=\([0-9.]*\)$/\1/p' "$here/../lab/standins/prometheus/Dockerfile")
[ -n "$want" ] || { echo "install-prometheus: no ARG PROMETHEUS_VERSION= in lab/standins/prometheus/Dockerfile" >&2; exit 1; }
if [ "$(id -u)" = 0 ]; then
  dest=${JSONBENCH_CACHE:-/var/cache/jsonbench}/bin/prometheus-$want
else
  dest=${XDG_CACHE_HOME:-$HOME/.cache}/jsonbench/prometheus-$want
fi

# version_of BINARY: the version its --version names ("prometheus, version 3.5.3+ds1 (...)" -> 3.5.3).
version_of() {
  [ -x "$1" ] || return 0
  "$1" --version 2>&1 | sed -n "1s/^$(basename "$1"), version \([0-9.]*\).*/\1/p"
}
if [ "$(version_of "$dest/prometheus")" = "$want" ] && [ "$(version_of "$dest/promtool")" = "$want" ]; then
  echo "$dest"
  exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "install-prometheus: fetching Prometheus $want (Debian sid's prometheus and promtool) into $dest" >&2
"$here/debian-fetch.sh" sid "$work/root" prometheus promtool >/dev/null
got=$(version_of "$work/root/usr/bin/prometheus")
if [ "$got" != "$want" ] || [ "$(version_of "$work/root/usr/bin/promtool")" != "$want" ]; then
  echo "install-prometheus: Debian sid now has Prometheus ${got:-?}, the lab is tested on $want: test the lab" \
       "on ${got:-it}, then pin it (PROMETHEUS_VERSION in lab/standins/prometheus/Dockerfile)" >&2
  exit 1
fi
mkdir -p "$dest"
install -m 0755 "$work/root/usr/bin/prometheus" "$work/root/usr/bin/promtool" "$dest/"
echo "$dest"
