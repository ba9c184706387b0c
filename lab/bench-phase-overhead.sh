#!/usr/bin/env bash
# The lab's own time around each measured window (issue 26 asks for it before and after the driver
# moves out of bash): a small bench (three databases, a short insert phase each, REPEAT=2: six
# windows) run as a user runs it, then from its phase files: the seconds between one window's end and
# the next window's start (starting the next database, readiness, settling, the client's start), and
# the seconds before the first window and after the last one. QUIET_S=0: the quiet period before a
# window (60 s by default) is a reading the user asks for, not the lab's overhead.
#
#   lab/bench-phase-overhead.sh [--set KEY=VALUE]...   (e.g. --set DATABASES="mongodb postgres")
#   JSONBENCH_STANDINS=1 lab/bench-phase-overhead.sh   on the local stand-in images
#
# Run with --no-branch --no-check: no git branch is made, and the check before the run (not a phase)
# is left out.
# Its own compose project and ports; the bench folder is kept in a temporary directory (printed).
# Prints each gap, their median and maximum. No target yet: the figure is compared side by side
# between two commits (run it on each).
set -Euo pipefail
LAB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=$(mktemp -d /tmp/jsonbench-phase-overhead.XXXXXX)
bench=$work/overhead
mkdir -p "$bench"
cat >"$bench/bench.env" <<'BENCH'
DESCRIPTION="the lab's time between windows (lab/bench-phase-overhead.sh)"
DATABASES="mongodb postgres mysql"
KEY=uuidv7
LAYOUT=clustered
FIELDS=10
FIELD_BYTES=100
CLIENTS=2
RATE=50
DOCS=1000
SEED=7
REPEAT=2
QUIET_S=0
BENCH
export COMPOSE_PROJECT_NAME=jsonbench-phase-overhead
export PG_PORT=27432 MONGO_PORT=27117 MYSQL_PORT=27306 TIMESCALEDB_PORT=27433 PROMETHEUS_PORT=27090 GRAFANA_PORT=27300
export JSONBENCH_CLIENT_TAG=phase-overhead
started=$(date +%s.%N)
"$LAB_ROOT/runme.sh" --no-branch --no-check "$bench" "$@" >"$work/runme.log" 2>&1
rc=$?
ended=$(date +%s.%N)
echo "bench-phase-overhead: runme.sh exit $rc; bench folder $bench; log $work/runme.log"
"$LAB_ROOT/runme.sh" down >/dev/null 2>&1 || true
python3 - "$bench" "$started" "$ended" <<'PY'
import glob, json, os, statistics, sys
bench, started, ended = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
windows = []
for path in glob.glob(os.path.join(bench, "**", "*.phase.json"), recursive=True):
    with open(path) as f:
        w = json.load(f).get("window") or {}
    if w.get("start") and w.get("end"):
        windows.append((w["start"], w["end"], os.path.relpath(path, bench)))
windows.sort()
print(f"bench-phase-overhead: runme.sh took {ended - started:.0f} s")
if len(windows) < 2:
    sys.exit(f"bench-phase-overhead: {len(windows)} windows in {bench}: nothing to compare")
gaps = []
for (s0, e0, n0), (s1, e1, n1) in zip(windows, windows[1:]):
    gaps.append(s1 - e0)
    print(f"  {n0} -> {n1}: {s1 - e0:6.1f} s")
print(f"bench-phase-overhead: {len(windows)} windows; between windows median {statistics.median(gaps):.1f} s, "
      f"max {max(gaps):.1f} s; before the first {windows[0][0] - started:.1f} s, after the last {ended - windows[-1][1]:.1f} s")
PY
