#!/usr/bin/env bash
# The lab's one entry point. Orchestration only: the logic lives in client/ (load, validation)
# and analysis/ (export, results, report, branches); host/ provisions the machine (Docker, Compose,
# perf, Node, the venv) and lab/ holds the orchestration pieces; this file sources both.
set -Eeuo pipefail
LAB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
unset JSONBENCH_DOCKERD_PID  # set only by this shell if it starts the engine itself
. "$LAB_ROOT/host/setup-host.sh"
. "$LAB_ROOT/host/node-python.sh"
. "$LAB_ROOT/lab/tools.sh"
. "$LAB_ROOT/lab/perf.sh"
. "$LAB_ROOT/lab/stack.sh"
. "$LAB_ROOT/host/ulimits.sh"
. "$LAB_ROOT/lab/plan.sh"
. "$LAB_ROOT/lab/phase.sh"
. "$LAB_ROOT/lab/bench.sh"
. "$LAB_ROOT/lab/check.sh"
. "$LAB_ROOT/lab/experiments.sh"

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
  ./runme.sh help        this text
Environment: JSONBENCH_STANDINS=auto|1|0 (local stand-in images when no registry is reachable).
TXT
}

# What a run's branch keeps besides the bench folders: the exact configuration and client version,
# and each database's compose files (database_compose_files, lab/stack.sh: compose.yaml includes them).
RUN_CONFIG_FILES="compose.yaml compose.standins.yaml .env.example prometheus grafana client/package.json client/package-lock.json"
INTERRUPTED=0
RUN_FAILED=0
CLIENT_IDS=()
STACK_UP=0

on_signal() {
  [ "$INTERRUPTED" = 1 ] && return
  INTERRUPTED=1
  say "interrupted: stopping the clients, keeping what was gathered"
  stop_clients
}

cleanup() {
  local code=$?
  set +e
  # an error with a phase open: a fact of that phase (analysis decides its status from it)
  [ "$code" = 0 ] || [ "$INTERRUPTED" = 1 ] || [ "${PHASE_ACTIVE:-0}" = 0 ] || PHASE_LAB_ERROR=$code
  finish_phase
  [ "$STACK_UP" = 0 ] || experiment_summarise_all
  perf_record_cancel 2>/dev/null || true
  perf_stat_stop 2>/dev/null || true
  [ -z "${CHECK_TMP:-}" ] || remove_check
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
}

run_benches() {
  local overrides=() benches=() dirs=() branch=1 push="" arg check=1 only_check=0 sweeps=()
  [ "${1:-}" != check ] || { only_check=1; shift; }
  local args=("$@")
  ensure_node_deps || exit 2
  # Every check of the words, the benches and their plans before anything starts, with today's
  # messages; a plain run's plan.json written (lab/driver/request.py). From the caller's folder: bench
  # folders may be named relative to it.
  PYTHONPATH="$LAB_ROOT${PYTHONPATH:+:$PYTHONPATH}" python3 -m lab.driver validate \
    $([ "$only_check" = 0 ] || echo check) "${args[@]}" || exit 2
  # What the stack's part below still reads in bash (validated above: nothing here fails).
  while [ $# -gt 0 ]; do
    case $1 in
      --set) overrides+=("$2"); shift 2 ;;
      --no-branch) branch=0; shift ;;
      --no-check) check=0; shift ;;
      --push) push=$2; shift 2 ;;
      --sweep) sweeps+=("$2"); shift 2 ;;
      *) benches+=("$1"); shift ;;
    esac
  done
  [ ${#benches[@]} -gt 0 ] || mapfile -t benches < <(all_benches)
  for arg in "${benches[@]}"; do dirs+=("$(bench_dir_of "$arg")") || exit 2; done
  # A bench may carry its own sweep (bench.env SWEEP="KEY=v1,v2 [KEY2=w1,w2]"); --sweep replaces it.
  if [ ${#sweeps[@]} = 0 ]; then
    local declared=""
    for arg in "${dirs[@]}"; do declared=$(bench_sweep_of "$arg"); done
    # shellcheck disable=SC2206  # KEY=v1,v2 words hold no spaces or globs (bench-schema.js SWEEP pattern)
    [ -z "$declared" ] || sweeps=($declared)
  fi
  [ ${#sweeps[@]} = 0 ] || sweep_parse "${sweeps[@]}" || exit 2

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
  if [ "$only_check" = 1 ] || [ "$check" = 1 ]; then
    # A sweep is checked at its first value.
    local rc=0 first=(); [ -z "$SWEEP_KEY" ] || mapfile -t first < <(point_sets "${SWEEP_POINTS[0]}")
    CHECK_SETS=("${overrides[@]}" "${first[@]}"); check_benches "${dirs[@]}" || rc=$?
    [ "$rc" = 130 ] && exit 130
    # A finished check leaves the monitoring up, as a run does, whatever its verdict.
    [ "$rc" = 0 ] || STACK_UP=0
    [ "$only_check" = 0 ] || exit "$rc"
    if [ "$rc" != 0 ]; then
      say "the run stops before the long part: a figure would be missing without a reason (table above)."
      say "to run anyway: ./runme.sh --no-check ${args[*]}"
      exit 1
    fi
  fi
  for arg in "${dirs[@]}"; do experiment_prepare "$arg" "${overrides[@]}"; done

  for arg in "${dirs[@]}"; do
    [ "$INTERRUPTED" = 0 ] || break
    experiment_run "$arg"
  done
  remove_database_containers
  say "monitoring left running for Grafana/Prometheus; ./runme.sh down removes it"

  if [ "$INTERRUPTED" = 1 ]; then
    say "interrupted: partial results kept in ${dirs[*]} (marked interrupted); no branch created"
    exit 130
  fi
  if [ "$branch" = 1 ]; then
    say "committing the run to a new branch"
    # A run with a failed phase still gets its branch, named ---INCOMPLETE, so the evidence is kept.
    analysis branch --benches $(for arg in "${dirs[@]}"; do experiment_folder "$arg"; done) --files $RUN_CONFIG_FILES $(database_compose_files) ${push:+--push "$push"} \
      $([ "$RUN_FAILED" = 0 ] || echo --allow-incomplete) ||
      { say "the run's branch could not be created"; exit 1; }
    # The branch is written in one step (update-ref last): interrupted before it, there is none.
    [ "$INTERRUPTED" = 0 ] || exit 130
  fi
  [ "$RUN_FAILED" = 0 ] || { say "some phases failed: see results.json 'incomplete' in each bench"; exit 1; }
}

main() {
  case ${1:-} in
    help | -h | --help) usage ;;
    test) shift; exec "$LAB_ROOT/lab/test.sh" "$@" ;;
    down)
      ensure_env_file; ensure_docker || exit 2; ensure_compose || exit 2
      trap 'stop_started_dockerd' EXIT
      USE_STANDINS=0; if use_standins; then USE_STANDINS=1; fi
      compose --profile client --profile grafana down --volumes --remove-orphans ;;
    report)
      shift; ensure_venv || exit 2
      local dirs=() b
      [ $# -gt 0 ] || set -- $(all_benches)
      for b in "$@"; do
        # a sweep folder (benchN/sweep-KEY) has points, not a bench.env
        if [[ $(basename "$b") == sweep-* ]] && [ -d "$b" ]; then dirs+=("$(cd "$b" && pwd)"); continue; fi
        dirs+=("$(bench_dir_of "$b")") || exit 2
      done
      analysis report "${dirs[@]}" --out-dir "$LAB_ROOT" ;;
    compare) shift; ensure_venv || exit 2; analysis compare "$@" ;;
    check) run_benches "$@" ;;
    *) run_benches "$@" ;;
  esac
}

# Sourced (tests/unit/test_dockerd_left_running.py reads its functions), it only defines them.
[[ ${BASH_SOURCE[0]} != "$0" ]] || main "$@"
