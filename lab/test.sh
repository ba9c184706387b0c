#!/usr/bin/env bash
# The test command (./runme.sh test): installs what is missing, then runs every suite against real
# components: client unit+integration (node --test, real PostgreSQL and the MongoDB stand-in), analysis and
# dashboard tests (pytest, real Prometheus), and the end-to-end lab run (pytest, real Docker).
set -Euo pipefail
LAB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
unset JSONBENCH_DOCKERD_PID  # set only by this shell if it starts the engine itself
. "$LAB_ROOT/lab/setup-host.sh"
. "$LAB_ROOT/lab/tools.sh"

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
"$LAB_ROOT/lab/install-prometheus.sh" || exit 2

failed=()
say "client: unit and integration tests"
(cd "$LAB_ROOT/client" && npm test) || failed+=(client)

say "analysis and dashboards: pytest"
(cd "$LAB_ROOT" && "$VENV/bin/python" -m pytest -q tests/unit tests/input analysis/tests grafana/tests) || failed+=(analysis)

say "end to end: the lab on a real Docker engine"
(cd "$LAB_ROOT" && "$VENV/bin/python" -m pytest -q -x --durations=12 tests/e2e "$@") || failed+=(e2e)

if [ ${#failed[@]} -gt 0 ]; then
  say "FAILED suites: ${failed[*]}"
  exit 1
fi
say "all suites passed"
