#!/usr/bin/env bash
# host/debian-fetch.sh SUITE DEST PACKAGE...: downloads Debian packages of SUITE (trixie, sid) from
# Debian's archive and unpacks them into DEST (a folder of their own: nothing is installed, PATH and
# the host's sources stay as they are). apt checks the archive's signatures with Debian's keyring; an
# apt configuration of its own in a temporary folder, so it runs beside the host's apt without its
# locks. Prints each package's version as "PACKAGE VERSION" on stdout, for the caller to check
# against the one it pins. Needs apt-get and dpkg-deb (Debian, Ubuntu); the keyring as root.
# Callers: host/install-prometheus.sh (sid's Prometheus 3), host/setup-host.sh ensure_compose
# (trixie's Compose v2 plugin, when the host's own distribution has none).
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: host/debian-fetch.sh SUITE DEST PACKAGE..." >&2; exit 2; }
suite=$1 dest=$2
shift 2
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
command -v apt-get >/dev/null 2>&1 && command -v dpkg-deb >/dev/null 2>&1 || {
  echo "debian-fetch: Debian's packages $* are fetched with apt-get and dpkg-deb, which this system lacks" >&2
  exit 1
}
# Debian's archive key (on Ubuntu the debian-archive-keyring package brings it too).
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
if [ ! -s "$keyring" ]; then
  [ "$(id -u)" = 0 ] || { echo "debian-fetch: $keyring is missing: as root run apt-get install debian-archive-keyring" >&2; exit 1; }
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debian-archive-keyring >&2 ||
    { apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debian-archive-keyring >&2; }
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/state/lists/partial" "$work/cache/archives/partial" "$work/debs"
echo "deb [signed-by=$keyring] $mirror $suite main" >"$work/sources.list"
# sid is served from a snapshot whose Release file may have expired; callers check the version.
# As root apt would download as _apt, which cannot write into $work: it stays root (no effect otherwise).
apt_opts=(-qq -o "Dir::Etc::sourcelist=$work/sources.list" -o Dir::Etc::sourceparts=/nonexistent
          -o "Dir::State=$work/state" -o "Dir::Cache=$work/cache" -o Acquire::Check-Valid-Until=false
          -o APT::Sandbox::User=root)
apt-get "${apt_opts[@]}" update >&2
(cd "$work/debs" && apt-get "${apt_opts[@]}" download "$@" >&2)
mkdir -p "$dest"
for deb in "$work"/debs/*.deb; do
  dpkg-deb -x "$deb" "$dest"
  printf '%s %s\n' "$(dpkg-deb -f "$deb" Package)" "$(dpkg-deb -f "$deb" Version)"
done
