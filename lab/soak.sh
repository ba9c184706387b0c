#!/usr/bin/env bash
# Soak benchmark (not a CI test): a long run at a modest rate through the whole lab, then
# `analysis soak-check`: every client within 1% of its target, no error, client RSS flat.
#   lab/soak.sh [MINUTES=30] [DATABASES="postgres"]     (SOAK_CLIENTS=4, SOAK_RATE=20 docs/s each)
set -euo pipefail
LAB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
minutes=${1:-30}
databases=${2:-postgres}
clients=${SOAK_CLIENTS:-4}
rate=${SOAK_RATE:-20}
dir=$(mktemp -d /tmp/jsonbench-soak.XXXXXX)/soak
mkdir -p "$dir"
cat >"$dir/bench.env" <<ENV
DESCRIPTION="soak: $minutes min at $rate docs/s x $clients clients"
KEY=uuidv7
LAYOUT=clustered
FIELDS=10
FIELD_BYTES=1000
CLIENTS=$clients
RATE=$rate
DOCS=$(( rate * minutes * 60 ))
DATABASES="$databases"
QUIET_S=10
PERF_RECORD_S=0
ENV
"$LAB_ROOT/runme.sh" --no-branch "$dir"
echo "soak results: $dir"
"$LAB_ROOT/.venv/bin/python" -m analysis soak-check --bench-dir "$dir"
