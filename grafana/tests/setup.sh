#!/usr/bin/env bash
# Installs what grafana/tests needs on a fresh Debian/Ubuntu machine; skips what is present.
# Grafana itself is not needed: the tests check the dashboards against a real Prometheus.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"

if ! command -v prometheus >/dev/null || ! command -v promtool >/dev/null; then
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
    echo "grafana/tests/setup.sh: need prometheus and promtool; as root on Debian/Ubuntu run:" >&2
    echo "  apt-get update && apt-get install -y prometheus" >&2
    exit 1
  fi
  apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends prometheus
  # Only the binaries are wanted: on a systemd host the package also starts a Prometheus on
  # :9090, the port the lab's own Prometheus publishes. We installed it, so we stop it.
  if [ -d /run/systemd/system ] && command -v systemctl >/dev/null; then
    systemctl disable --now prometheus.service || true
  fi
fi

# pip only when a pinned version is missing, so a second run costs nothing.
if ! python3 - "$here/requirements.txt" <<'PY'
import sys
from importlib.metadata import version, PackageNotFoundError
for line in open(sys.argv[1]):
    name, _, want = line.strip().partition("==")
    try:
        if version(name) != want:
            sys.exit(1)
    except PackageNotFoundError:
        sys.exit(1)
PY
then
  python3 -m pip install -q -r "$here/requirements.txt"
fi
