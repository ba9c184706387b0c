#!/usr/bin/env bash
# The lab's one entry point: parses the command line, provisions the host (host/: Docker, Compose,
# perf, Node, the venv), builds the images and starts the monitoring, then hands the run to the
# driver (lab/driver: the check, the experiments, the phases, the run's branch). The logic lives in
# client/ (plan, validation, load), lab/driver and analysis/ (figures, reports, branches).
set -Eeuo pipefail
LAB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
unset JSONBENCH_DOCKERD_PID  # set only by this shell if it starts the engine itself
. "$LAB_ROOT/host/setup-host.sh"
. "$LAB_ROOT/host/node-python.sh"
. "$LAB_ROOT/lab/tools.sh"
. "$LAB_ROOT/lab/stack.sh"
. "$LAB_ROOT/host/ulimits.sh"
. "$LAB_ROOT/host/simulate-hosts.sh"

say() { printf '[%s %s] %s\n' "$(date +%H:%M:%S)" "${BENCH_NAME:-lab}" "$*"; }

# A bench folder named on the command line (or one of LAB_ROOT's), for `report`.
usage() {
  cat <<'TXT'
Usage:
  ./runme.sh [options] [bench1 bench2 ...]   run benches (default: every bench* folder)
      --set KEY=VALUE    override a bench.env setting for this run (repeatable),
                         e.g. --set FIELD_BYTES=100 for the 1 KB documents variant
      --no-branch        do not commit the run to a new git branch
      --push REMOTE      push the run's branch to REMOTE
      --no-check         skip the ~20 s per database smoke run (./runme.sh check) done before the run
      --sweep KEY=v1,v2,...  one complete run per value of a numeric or enum bench key, into
                         benchN/sweep-KEY/KEY=<v>/, then a sweep report (benches must be named);
                         twice for a grid of every combination of two keys, into
                         benchN/sweep-KEY1+KEY2/KEY1=<v>+KEY2=<w>/
  A bench with REPEAT=N (bench.env or --set) runs N times, interleaved, into benchN/repeat-1..N,
  then benchN/report.md gives every figure and ratio as mean with its 95% confidence interval.
  ./runme.sh check [bench1 ...]    smoke run: ~20 s of each bench at its rate on each database in a
                         temporary copy, then a table of what will and will not be measured on this
                         host and why; exit 1 if a figure would be missing without a reason
  ./runme.sh test        install what is missing, then run every test (unit, integration, end-to-end)
  ./runme.sh report [bench1 ...]   regenerate reports from the result files alone
  ./runme.sh compare REF1 REF2     compare two run branches or bench folders
  ./runme.sh down        remove the lab's containers, networks and volumes
  ./runme.sh simulate-hosts N   N Docker engines on this machine, each a simulated host in its own
                         network namespace (Docker contexts jsonbench-sim-1..N, addresses 10.199.K.2);
                         0 removes them all (docs/hosts.md); N: 0 to 8
  ./runme.sh help        this text
Environment: JSONBENCH_STANDINS=auto|1|0 (local stand-in images when no registry is reachable).
TXT
}

INTERRUPTED=0
STACK_UP=0
DRIVER_PID=""

on_signal() {
  [ "$INTERRUPTED" = 1 ] && return
  INTERRUPTED=1
  # the driver stops its clients and keeps what was gathered (lab/driver/lab.py on_signal)
  if [ -n "$DRIVER_PID" ]; then kill -INT "$DRIVER_PID" 2>/dev/null || true
  else say "interrupted before the run started"; fi
}

cleanup() {
  local code=$?
  set +e
  # this shell's own error or a signal before the driver took over: its containers go
  [ -z "$DRIVER_PID" ] || { kill -INT "$DRIVER_PID" 2>/dev/null; wait_driver; }
  if [ "$STACK_UP" = 1 ] && { [ "$INTERRUPTED" = 1 ] || [ "$code" != 0 ]; }; then
    say "removing the lab's containers"
    compose --profile client down --remove-orphans >/dev/null 2>&1 || true
  fi
  # An engine this run started stays up with the monitoring on it (README); the message says how to stop it.
  leave_started_dockerd || true
  exit "$code"
}

prepare_stack() {
  ensure_env_file
  load_env_defaults "$LAB_ROOT/.env"
  clamp_mongo_nofile_to_engine
  ensure_perf || true
  local rc=0; use_standins || rc=$?
  [ "$rc" != 2 ] || exit 2
  USE_STANDINS=$(( rc == 0 ))
  PROJECT=$(project_name)
  python3 "$LAB_ROOT/lab/preflight.py" --env-file "$LAB_ROOT/.env" --own-ports "$(own_published_ports)" \
    $([ "$USE_STANDINS" = 0 ] || echo --stand-ins) || exit 2
  # A bench never falls back to stand-ins on its own: a failed probe (no curl, a proxy, a slow
  # network) would otherwise turn a MongoDB run into a stand-in one. `./runme.sh test` asks explicitly.
  if [ "$USE_STANDINS" = 1 ] && [ "${JSONBENCH_STANDINS:-auto}" != 1 ]; then
    echo "runme.sh: the official images are not present and the registry probe failed:" \
      "${JSONBENCH_REGISTRY_PROBE_ERROR:-unknown error}. Nothing was started. Fix the registry access" \
      "(install curl; set HTTPS_PROXY for Docker and curl; or 'docker compose pull' first), or ask for the" \
      "local stand-in images (SecantusDB 0.7.0b3, a Python wire server, instead of MongoDB: not a MongoDB result) with JSONBENCH_STANDINS=1." >&2
    exit 2
  fi
  if [ "$USE_STANDINS" = 1 ]; then
    say "no container registry reachable: building local STAND-IN images (SecantusDB 0.7.0b3, a MongoDB wire server in Python on WiredTiger, stands in for MongoDB; no Grafana)"
    "$LAB_ROOT/lab/standins/build.sh" || exit 2
  fi
  export USE_STANDINS
  compose --profile client build client >&2
  # PROBE=container: the driver's host readings are taken by a probe container (lab/driver/probe_box.py)
  # whose image is built here like the others (from the stand-in Debian base where no registry answers)
  if [ "${PROBE:-local}" = container ]; then
    PROBE_IMAGE=$("$LAB_ROOT/lab/probe/build.sh") || exit 2
    export PROBE_IMAGE
  fi
}

run_benches() {
  local args=("$@")
  ensure_node_deps || exit 2
  # Every check of the words, the benches and their plans before anything starts (exit 2 and the
  # file, key and allowed values); a plain run's plan.json written (lab/driver/request.py). From the
  # caller's folder: bench folders may be named relative to it.
  PYTHONPATH="$LAB_ROOT${PYTHONPATH:+:$PYTHONPATH}" python3 -m lab.driver validate "${args[@]}" || exit 2

  trap on_signal INT TERM
  trap cleanup EXIT
  # The engine first: without one nothing else is worth installing, and the message says how to get it.
  ensure_docker || exit 2
  ensure_compose || exit 2
  ensure_venv || exit 2
  check_database_manifests || exit 2
  prepare_stack
  STACK_UP=1
  say "starting monitoring: $(monitoring_services)"
  start_monitoring
  [ "$USE_STANDINS" = 1 ] || say "Grafana: http://$(host_address):${GRAFANA_PORT:-3000}/"
  # The run itself: the check, the experiments, the phases and the run's branch, in one process that
  # keeps what was gathered on a signal and removes the lab's containers when it fails
  # (lab/driver/__main__.py); in the background, so that this shell passes a signal on at once.
  export LAB_ROOT PROJECT USE_STANDINS
  PYTHONPATH="$LAB_ROOT${PYTHONPATH:+:$PYTHONPATH}" "$VENV/bin/python" -m lab.driver run "${args[@]}" &
  DRIVER_PID=$!
  local rc=0
  wait_driver || rc=$?
  DRIVER_PID=""
  STACK_UP=0  # the driver tore down what it had to
  exit "$rc"
}

# The driver's exit code; a signal's trap ends `wait` early, so wait again until the driver has exited.
wait_driver() {
  local rc
  while true; do
    wait "$DRIVER_PID" && return 0
    rc=$?
    kill -0 "$DRIVER_PID" 2>/dev/null || return "$rc"
  done
}

main() {
  case ${1:-} in
    help | -h | --help) usage ;;
    test) shift; exec "$LAB_ROOT/lab/test.sh" "$@" ;;
    down)
      ensure_env_file; ensure_docker || exit 2; ensure_compose || exit 2
      trap 'stop_started_dockerd' EXIT
      USE_STANDINS=0; if use_standins; then USE_STANDINS=1; fi
      compose --profile client --profile grafana down --volumes --remove-orphans
      # a placed run's containers, volumes and networks on the other contexts (lab/driver/down.py)
      PYTHONPATH="$LAB_ROOT${PYTHONPATH:+:$PYTHONPATH}" python3 -m lab.driver.down "$(project_name)" ;;
    report)
      shift; ensure_venv || exit 2
      local found dirs=()
      # the folders named, or every bench of the checkout (lab/driver/__main__.py folders)
      found=$(PYTHONPATH="$LAB_ROOT${PYTHONPATH:+:$PYTHONPATH}" python3 -m lab.driver folders "$@") || exit 2
      mapfile -t dirs <<<"$found"
      analysis report "${dirs[@]}" --out-dir "$LAB_ROOT" ;;
    compare) shift; ensure_venv || exit 2; analysis compare "$@" ;;
    check) run_benches "$@" ;;
    simulate-hosts)
      shift
      if [ $# -ne 1 ]; then
        echo "runme.sh simulate-hosts: takes one argument N, got $#; allowed: an integer from 0 to $SIM_MAX" >&2
        exit 2
      fi
      sim_check_n "$1" || exit 2
      simulate_hosts "$1" ;;
    *) run_benches "$@" ;;
  esac
}

# Sourced (tests/unit/test_dockerd_left_running.py reads its functions), it only defines them.
[[ ${BASH_SOURCE[0]} != "$0" ]] || main "$@"
