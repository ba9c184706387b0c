#!/usr/bin/env bash
# The test command (./runme.sh test): installs what is missing, then runs every suite against real
# components: client unit+integration (node --test, real PostgreSQL and the MongoDB stand-in), analysis and
# dashboard tests (pytest, real Prometheus), and the end-to-end lab run (pytest, real Docker).
set -Euo pipefail
LAB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
unset JSONBENCH_DOCKERD_PID  # set only by this shell if it starts the engine itself
. "$LAB_ROOT/host/setup-host.sh"
. "$LAB_ROOT/host/node-python.sh"

say() { printf '\n=== %s\n' "$*"; }

ensure_node_deps || exit 2
ensure_venv || exit 2
ensure_env_file
ensure_docker || exit 2
trap 'stop_started_dockerd' EXIT
ensure_compose || exit 2
ensure_perf || true
# The tests may choose stand-ins on their own (a bench run may not): decided once here and passed
# explicitly to every runme.sh the suites start.
if [ -z "${JSONBENCH_STANDINS:-}" ]; then
  if use_standins; then JSONBENCH_STANDINS=1; else JSONBENCH_STANDINS=0; fi
  echo "test: JSONBENCH_STANDINS=$JSONBENCH_STANDINS${JSONBENCH_REGISTRY_PROBE_ERROR:+ (registry probe: $JSONBENCH_REGISTRY_PROBE_ERROR)}"
fi
export JSONBENCH_STANDINS
"$LAB_ROOT/host/install-prometheus.sh" || exit 2
# The stand-in images before any suite: unit tests start a PostgreSQL container and a busy one from
# them (tests/unit/lab_images.py), the client's tests their PostgreSQL server
# (client/test/helpers/postgres-server.js); built only later, by the first e2e runme.sh, those tests
# would skip or fail. With the official images, the PostgreSQL one pulled for the same reason.
if [ "$JSONBENCH_STANDINS" = 1 ]; then
  say "building the local stand-in images"
  "$LAB_ROOT/lab/standins/build.sh" || exit 2
else
  pg_image=$(official_images | grep -m1 '^postgres:') || { echo "test: compose.yaml names no postgres image" >&2; exit 2; }
  docker image inspect "$pg_image" >/dev/null 2>&1 || {
    say "pulling $pg_image (the unit and client suites start it)"
    docker pull "$pg_image" || exit 2
  }
fi

failed=()
suite_pids=()
stop_suites() {
  local pid
  for pid in "${suite_pids[@]}"; do kill -- "-$pid" 2>/dev/null || kill "$pid" 2>/dev/null || true; done
}
# side_by_side NAME1 HEADING1 FUNCTION1 NAME2 HEADING2 FUNCTION2: both functions at once, each in its own
# process group (an interrupted test run stops all of their processes); each one's output is kept whole
# and shown under its heading when both are done; a failed one's NAME goes into `failed`.
side_by_side() {
  local logs; logs=$(mktemp -d)
  trap 'stop_suites; stop_started_dockerd' EXIT
  set -m
  "$3" >"$logs/1.log" 2>&1 &
  suite_pids=($!)
  "$6" >"$logs/2.log" 2>&1 &
  suite_pids+=($!)
  set +m
  wait "${suite_pids[0]}" || failed+=("$1")
  wait "${suite_pids[1]}" || failed+=("$4")
  suite_pids=()
  trap 'stop_started_dockerd' EXIT
  say "$2"
  cat "$logs/1.log"
  say "$5"
  cat "$logs/2.log"
  rm -rf -- "$logs"
}

# The client suite and the Python suite side by side: both mostly wait (servers starting, Prometheus
# scraping), so on 2 cores together they take about as long as the longer one.
client_suite() { cd "$LAB_ROOT/client" && npm test; }
# -rs lists every skip with its reason; under CI=true a skip not allowed in tests/ci_skips.py fails.
python_suite() { cd "$LAB_ROOT" && "$VENV/bin/python" -m pytest -q -rs tests/unit tests/input analysis/tests grafana/tests; }
say "client (unit and integration tests) and analysis and dashboards (pytest), side by side"
side_by_side client "client: unit and integration tests" client_suite \
  analysis "analysis and dashboards: pytest" python_suite

# End to end in two streams side by side, each in a Compose project, port range and client image of its
# own: a lab run mostly waits (guard seconds, quiet periods, a fixed rate), so two on 2 cores take
# little more than the longer one. Stream b holds the long independent modules; stream a everything
# else, so a new module runs there by default (the session's lab_run stack and its live readers stay in
# one stream, in name order: tests/unit/test_e2e_module_order.py). Arguments (a module, -k ...) run
# one stream as before.
e2e_stream() {  # NAME PORT_BASE PYTEST-ARGS...
  local name=$1 base=$2; shift 2
  cd "$LAB_ROOT" && JSONBENCH_E2E_PROJECT="jsonbench-e2e-$name" JSONBENCH_E2E_PORT_BASE="$base" \
    "$VENV/bin/python" -m pytest -q -rs -x --durations=8 "$@"
}
if [ $# -gt 0 ]; then
  say "end to end: the lab on a real Docker engine"
  (cd "$LAB_ROOT" && "$VENV/bin/python" -m pytest -q -rs -x --durations=12 tests/e2e "$@") || failed+=(e2e)
else
  say "end to end: the lab on a real Docker engine, two streams side by side"
  # Balanced on a warm CI run of 61d5254: stream a 871 s, b 1108 s with the booking module (135 s) in
  # b; it runs in a now, as every module not named here does.
  stream_b=(test_queries_events_end_to_end.py test_ycsb_end_to_end.py test_tsbs_ingest_end_to_end.py
            test_three_databases_end_to_end.py)
  stream_a=()
  for f in "$LAB_ROOT"/tests/e2e/test_*.py; do
    [[ " ${stream_b[*]} " == *" $(basename "$f") "* ]] || stream_a+=("tests/e2e/$(basename "$f")")
  done
  e2e_a() { e2e_stream a 25000 "${stream_a[@]}"; }
  e2e_b() { e2e_stream b 25500 "${stream_b[@]/#/tests/e2e/}"; }
  side_by_side e2e-a "end to end, stream a: ${stream_a[*]#tests/e2e/}" e2e_a \
    e2e-b "end to end, stream b: ${stream_b[*]}" e2e_b
fi

if [ ${#failed[@]} -gt 0 ]; then
  say "FAILED suites: ${failed[*]}"
  exit 1
fi
say "all suites passed"
