# The smoke run (`./runme.sh check`, and the start of every bench run): about 20 s of a bench at its
# own rate and client count on each of its databases, through the same run_bench/run_phase as a
# real run, into a temporary copy of the bench; then `analysis check` says whether every figure of
# results.json has data or a stated reason. Sourced by runme.sh.

CHECK_SECONDS=${CHECK_SECONDS:-20}
CHECK_TMP=""
CHECK_SETS=()  # the run's --set overrides, applied to the check too

# check_bench DIR [KEY=VALUE...]: the smoke run of bench DIR with the run's --set overrides; prints
# the table; returns 1 if a figure is missing without a reason. Leaves no temporary folder and no
# database container or volume; never writes into DIR.
check_bench() {
  local src=$1 name bench rc=0 keys; shift
  name="$(basename "$src")-check"
  CHECK_TMP=$(mktemp -d "${TMPDIR:-/tmp}/jsonbench-check.XXXXXX")
  bench="$CHECK_TMP/$name"
  mkdir "$bench"
  cp "$src/bench.env" "$bench/bench.env"
  local DATASET_BASE=$src  # a relative DATASET is relative to the bench folder, not this copy
  write_run_plan "$bench" "$@" || { remove_check; return 2; }
  # CHECK_SECONDS of load at the bench's own rate, sized by the workload's file (DOCS, OPS, tsbs's
  # SPAN_S, events' small set; a query set's first query type, 10 executions): `plan --check-size`,
  # of the keys just planned (plan.json settings.given)
  local given sizes; given=$(plan_sets "$bench/plan.json") || { remove_check; return 2; }
  mapfile -t given <<<"$given"
  sizes=$(node "$LAB_ROOT/client" plan --check-size "$CHECK_SECONDS" "$bench/bench.env" "${given[@]}") || { remove_check; return 2; }
  # shellcheck disable=SC2086  # sizes: KEY=VALUE words without spaces
  write_run_plan "$bench" "$@" $sizes \
    QUIET_S=3 PERF_RECORD_S=5 || { remove_check; return 2; }
  say "check of $(basename "$src"): ~${CHECK_SECONDS}s of load per database in $bench (removed afterwards)"
  run_bench "$bench" || rc=$?
  RUN_FAILED=0  # the check's own verdict below decides
  analysis check --bench-dir "$bench" --prometheus "$(prometheus_url)" || rc=1
  # The check's bench settings were exported by load_run_env: the real run must not inherit them.
  keys=$(python3 "$LAB_ROOT/lab/plan-read.py" given "$bench/plan.json" | grep -o '^[A-Za-z_][A-Za-z0-9_]*=' | tr -d '=' | tr '\n' ' ')
  # shellcheck disable=SC2086
  unset $keys ${BENCH_KEYS:-}
  PLAN_FILE=""  # the check's plan.json goes with its folder
  remove_check
  return "$rc"
}

# The temporary bench folder and the databases the check wrote into (containers and volumes);
# the monitoring stays up, as after a normal run.
remove_check() {
  [ -n "$CHECK_TMP" ] || return 0
  remove_databases || true
  rm -rf -- "$CHECK_TMP"
  CHECK_TMP=""
}

# check_benches DIR...: every bench's check; 0 when all pass.
check_benches() {
  local dir failed=()
  for dir in "$@"; do
    [ "$INTERRUPTED" = 0 ] || return 130
    check_bench "$dir" "${CHECK_SETS[@]}" || failed+=("$(basename "$dir")")
  done
  [ "$INTERRUPTED" = 0 ] || return 130
  if [ ${#failed[@]} -gt 0 ]; then
    say "check FAILED for: ${failed[*]} (the table above names what is missing)"
    return 1
  fi
  say "check passed: every figure will be measured, or the table says why not"
}
