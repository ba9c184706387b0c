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
# Compose's own set-up in two: what may run apt-get now; the rest (Debian 13's plugin, a few seconds,
# or where that cannot be had a Go build of 1.5 to 3 min) below, beside the stand-in images' builds.
ensure_compose_prereqs || exit 2
ensure_perf || true
# The tests may choose stand-ins on their own (a bench run may not): decided once here and passed
# explicitly to every runme.sh the suites start.
if [ -z "${JSONBENCH_STANDINS:-}" ]; then
  if use_standins; then JSONBENCH_STANDINS=1; else JSONBENCH_STANDINS=0; fi
  echo "test: JSONBENCH_STANDINS=$JSONBENCH_STANDINS${JSONBENCH_REGISTRY_PROBE_ERROR:+ (registry probe: $JSONBENCH_REGISTRY_PROBE_ERROR)}"
fi
export JSONBENCH_STANDINS
# pytest keeps no cache folder (.pytest_cache) in the checkout: the tests write nothing into it
export PYTEST_ADDOPTS="${PYTEST_ADDOPTS:+$PYTEST_ADDOPTS }-p no:cacheprovider"
"$LAB_ROOT/host/install-prometheus.sh" || exit 2
# The stand-in images before any suite: unit tests start a PostgreSQL container and a busy one from
# them (tests/unit/lab_images.py), the client's tests their PostgreSQL server
# (client/test/helpers/postgres-server.js); built only later, by the first e2e runme.sh, those tests
# would skip or fail. With the official images, the PostgreSQL one pulled for the same reason.
if [ "$JSONBENCH_STANDINS" = 1 ]; then
  say "building the local stand-in images, and Compose beside them if it is missing"
  compose_log=$(mktemp)
  ensure_compose >"$compose_log" 2>&1 &
  compose_pid=$!
  if ! "$LAB_ROOT/lab/standins/build.sh"; then
    kill "$compose_pid" 2>/dev/null; wait "$compose_pid"; rm -f -- "$compose_log"; exit 2
  fi
  wait "$compose_pid"; compose_rc=$?
  cat "$compose_log"; rm -f -- "$compose_log"
  [ "$compose_rc" = 0 ] || exit 2
else
  ensure_compose || exit 2
  pg_image=$(official_images | grep -m1 '^postgres:') || { echo "test: compose.yaml names no postgres image" >&2; exit 2; }
  docker image inspect "$pg_image" >/dev/null 2>&1 || {
    say "pulling $pg_image (the unit and client suites start it)"
    docker pull "$pg_image" || exit 2
  }
fi

failed=()
. "$LAB_ROOT/lab/at-a-time.sh"
# Then no container of the client's tests may be left (the label its server helpers give each one,
# with the test file that started it): a test stops what it starts, by its id.
client_suite() {
  cd "$LAB_ROOT/client" && npm test || return 1
  local left
  left=$(docker ps -a --filter label=jsonbench.test.file --format '{{.ID}} {{.Image}} {{.Label "jsonbench.test.file"}}')
  [ -z "$left" ] || { printf 'client tests left these containers (id, image, test file):\n%s\n' "$left"; return 1; }
}
# -rs lists every skip with its reason; under CI=true a skip not allowed in tests/ci_skips.py fails.
# analysis/tests/test_export.py spends about 100 s waiting for a real Prometheus to scrape (1 s
# intervals, lookbacks of several scrapes) and little of it on the CPU: it runs beside the rest of the
# suite (the Python suite is on CI's longest path: it ends before stream a starts). Prometheus's
# binaries are installed first, once, so that the two never fetch them at the same time.
# Three pytest processes side by side: their tests mostly wait (real servers, Prometheus, Docker:
# analysis/tests took 257 s of wall time for 126 s of CPU on a loaded host), and the suite is on the
# critical path (stream a starts when it ends). The export tests (the longest) in one with the other
# tests that wait without work (SIDE_TESTS: a silent engine's timeouts) and the short tests/input
# (37 s alone; beside two e2e streams the unit process ended 190 s later, at 1054 s, and stream a
# starts then), analysis/tests and grafana/tests in another, tests/unit in this one.
SIDE_TESTS=(analysis/tests/test_export.py tests/unit/test_engine_timeouts.py tests/input)
python_suite() {
  cd "$LAB_ROOT" || return 1
  bash host/install-prometheus.sh >/dev/null || return 1
  local export_out analysis_out export_pid analysis_pid rc=0
  export_out=$(mktemp "${TMPDIR:-/tmp}/jsonbench-export-tests.XXXXXX") || return 1
  analysis_out=$(mktemp "${TMPDIR:-/tmp}/jsonbench-analysis-tests.XXXXXX") || { rm -f "$export_out"; return 1; }
  "$VENV/bin/python" -m pytest -q -rs "${SIDE_TESTS[@]}" >"$export_out" 2>&1 &
  export_pid=$!
  local ignore=("${SIDE_TESTS[@]/#/--ignore=}")  # the side tests run in their own process only
  "$VENV/bin/python" -m pytest -q -rs "${ignore[@]}" analysis/tests grafana/tests \
    >"$analysis_out" 2>&1 &
  analysis_pid=$!
  "$VENV/bin/python" -m pytest -q -rs "${ignore[@]}" tests/unit || rc=1
  wait "$analysis_pid" || rc=1
  wait "$export_pid" || rc=1
  echo "--- analysis/tests (but test_export.py) and grafana/tests, run beside:"
  cat "$analysis_out"
  echo "--- ${SIDE_TESTS[*]}, run beside the rest:"
  cat "$export_out"
  rm -f "$export_out" "$analysis_out"
  return "$rc"
}

# End to end in three streams, each in a Compose project, port range and client image of its own.
# Streams b and c hold the long independent modules; stream a everything else, so a new module runs
# there by default (the session's lab_run stack and its live readers stay in one stream, in name
# order: tests/unit/test_e2e_module_order.py). Arguments (a module, -k ...) run one stream as before.
e2e_stream() {  # NAME PORT_BASE PYTEST-ARGS...
  local name=$1 base=$2; shift 2
  cd "$LAB_ROOT" && JSONBENCH_E2E_PROJECT="jsonbench-e2e-$name" JSONBENCH_E2E_PORT_BASE="$base" \
    "$VENV/bin/python" -m pytest -q -rs -x --durations=8 "$@"
}
if [ $# -gt 0 ]; then
  say "client (unit and integration tests) and analysis and dashboards (pytest), side by side"
  at_a_time 2 client "client: unit and integration tests" client_suite \
    analysis "analysis and dashboards: pytest" python_suite
  say "end to end: the lab on a real Docker engine"
  (cd "$LAB_ROOT" && "$VENV/bin/python" -m pytest -q -rs -x --durations=12 tests/e2e "$@") || failed+=(e2e)
else
  # Five jobs four at a time: the client and Python suites and e2e streams b and c first, then
  # stream a when a slot frees. An e2e stream alone keeps about a quarter of this 2-core machine busy
  # (the ycsb module: 26% over its 182 s; it waits on guard seconds, quiet periods and fixed rates);
  # the unit suite alone keeps one core busy. Three at a time (b first, c and a when the Python and
  # client suites ended), the fresh-host run of afdec35 took 1852 s: Python ended at 864 s, client
  # 918, then streams a at 1697 s, b 1769, c 1850. Three slots cannot do better than about 1771 s
  # here: two streams started after 864 s while the machine had cores to spare beside the three
  # streams (about 0.8 core busy). So c starts with b, and each holds about as much as a plus the
  # time before a starts, on that run's times beside each other: b events 511 s, tsbs 425, three-db
  # 413 (1349); c repeat+storage-forms 515, ycsb 229, simulated hosts 229, booking 223, replica set 70
  # (1266); a the lab_run group with pgbouncer 549, check 142 (691). Fresh-host run of that split
  # (64f3864): 1762 s in all. The Python suite ended at 1054 s and the client's at 1106 (beside two
  # streams, about 190 s later than beside one), then streams b at 1675 s, a 1743, c 1760.
  # Then the replica set (65 s) moved from c to b: c ended 85 s after b.
  stream_b=(test_queries_events_end_to_end.py test_tsbs_ingest_end_to_end.py test_three_databases_end_to_end.py
            test_topology_replset_end_to_end.py)
  stream_c=(test_repeat_sweep.py test_txn_booking_end_to_end.py test_simulated_hosts.py test_ycsb_end_to_end.py)
  stream_a=()
  for f in "$LAB_ROOT"/tests/e2e/test_*.py; do
    [[ " ${stream_b[*]} ${stream_c[*]} " == *" $(basename "$f") "* ]] || stream_a+=("tests/e2e/$(basename "$f")")
  done
  e2e_a() { e2e_stream a 25000 "${stream_a[@]}"; }
  e2e_b() { e2e_stream b 25500 "${stream_b[@]/#/tests/e2e/}"; }
  # No port of a stream is another's, nor their second stacks' (base + 1000), nor tests/input's
  # (tests/unit/test_e2e_stream_ports.py)
  e2e_c() { e2e_stream c 27000 "${stream_c[@]/#/tests/e2e/}"; }
  say "client and Python suites and the three end-to-end streams (the lab on a real Docker engine), four at a time"
  at_a_time 4 client "client: unit and integration tests" client_suite \
    analysis "analysis and dashboards: pytest" python_suite \
    e2e-b "end to end, stream b: ${stream_b[*]}" e2e_b \
    e2e-c "end to end, stream c: ${stream_c[*]}" e2e_c \
    e2e-a "end to end, stream a: ${stream_a[*]#tests/e2e/}" e2e_a
fi

if [ ${#failed[@]} -gt 0 ]; then
  say "FAILED suites: ${failed[*]}"
  exit 1
fi
say "all suites passed"
