#!/usr/bin/env bash
# The Prometheus binaries (prometheus, promtool) for the analysis and dashboard tests (the lab itself
# runs Prometheus in a container); prints the folder that holds them. The tests answer for the
# Prometheus users run: the version of the lab's Prometheus stand-in (PROMETHEUS_VERSION in
# lab/standins/prometheus/Dockerfile), of the official image's line (compose.yaml
# prom/prometheus:v3.5.0). Prometheus 3 changed what queries return (left-open range selectors,
# regexes matching newlines, ...): a distribution's Prometheus 2 on PATH would test another program.
#
# Debian sid's packages of that version (no other Debian suite has Prometheus 3), fetched with an apt
# configuration of its own (the host's sources stay as they are) and unpacked into a folder of their
# own, named by the version: nothing on PATH changes. The binaries need only glibc >= 2.34 (Debian 12,
# Ubuntu 22.04 and later). Does nothing when the folder holds them already.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
want=$(sed -n 's/^ARG PROMETHEUS_VERSION=\([0-9.]*\)$/\1/p' "$here/../lab/standins/prometheus/Dockerfile")
[ -n "$want" ] || { echo "install-prometheus: no ARG PROMETHEUS_VERSION= in lab/standins/prometheus/Dockerfile" >&2; exit 1; }
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
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

command -v apt-get >/dev/null 2>&1 && command -v dpkg-deb >/dev/null 2>&1 || {
  echo "install-prometheus: the tests need Prometheus $want's prometheus and promtool in $dest;" \
       "this script fetches Debian's packages with apt-get, which this system lacks: put them there" >&2
  exit 1
}
# Debian's archive key (on Ubuntu the debian-archive-keyring package brings it too).
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
if [ ! -s "$keyring" ]; then
  [ "$(id -u)" = 0 ] || { echo "install-prometheus: $keyring is missing: as root run apt-get install debian-archive-keyring" >&2; exit 1; }
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debian-archive-keyring >&2 ||
    { apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debian-archive-keyring >&2; }
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/state/lists/partial" "$work/cache/archives/partial"
echo "deb [signed-by=$keyring] $mirror sid main" >"$work/sources.list"
# sid is served from a snapshot whose Release file may have expired; the version is checked below.
# As root apt would download as _apt, which cannot write into $work: it stays root (no effect otherwise).
apt_opts=(-qq -o "Dir::Etc::sourcelist=$work/sources.list" -o Dir::Etc::sourceparts=/nonexistent
          -o "Dir::State=$work/state" -o "Dir::Cache=$work/cache" -o Acquire::Check-Valid-Until=false
          -o APT::Sandbox::User=root)
echo "install-prometheus: fetching Prometheus $want (Debian sid's prometheus and promtool) into $dest" >&2
apt-get "${apt_opts[@]}" update >&2
(cd "$work" && apt-get "${apt_opts[@]}" download prometheus promtool >&2)
for deb in "$work"/prometheus_*.deb "$work"/promtool_*.deb; do
  dpkg-deb -x "$deb" "$work/root"
done
got=$(version_of "$work/root/usr/bin/prometheus")
if [ "$got" != "$want" ] || [ "$(version_of "$work/root/usr/bin/promtool")" != "$want" ]; then
  echo "install-prometheus: Debian sid now has Prometheus ${got:-?}, the lab is tested on $want: test the lab" \
       "on ${got:-it}, then pin it (PROMETHEUS_VERSION in lab/standins/prometheus/Dockerfile)" >&2
  exit 1
fi
mkdir -p "$dest"
install -m 0755 "$work/root/usr/bin/prometheus" "$work/root/usr/bin/promtool" "$dest/"
echo "$dest"
