#!/usr/bin/env bash
# Installs what grafana/tests needs on a fresh Debian/Ubuntu machine; skips what is present.
# Grafana itself is not needed: the tests check the dashboards against a real Prometheus.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"

bash "$here/../../host/install-prometheus.sh"

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
