# A bench: validate its definition, refresh the databases, create the schema, run each database's
# phase, then let analysis write results and the report. Sourced by runme.sh.

# Files a run writes into a bench folder (and run.env, plan.txt of runs made before plan.json was the
# only plan); removed before the next run of that bench so results of
# two runs never mix. The definition (bench.env and any override files) is never touched.
RESULT_FILES='*.out *.plan.json *.perf *.perf.gz *.perf.status *.perfstat.csv *.log *.count.json *.server-stats.json *.phase.json *.metrics.json *.settings.json *.svg
run.env plan.json plan.txt host.json results.json report.md clients timeseries plots repeat-* sweep-*'

clean_results() {
  local dir=$1 pattern
  for pattern in $RESULT_FILES; do
    (cd "$dir" && rm -rf -- $pattern)
  done
}

bench_dir_of() {
  local arg=$1
  [ -d "$arg" ] || [ ! -d "$LAB_ROOT/$arg" ] || arg="$LAB_ROOT/$arg"
  if [ ! -d "$arg" ]; then
    echo "runme.sh: bench folder '$1' does not exist (benches here: $(all_benches | xargs -n1 basename | tr '\n' ' '))" >&2
    return 2
  fi
  if [ ! -f "$arg/bench.env" ]; then
    echo "runme.sh: '$1' has no bench.env (see README.md, 'Writing a bench')" >&2
    return 2
  fi
  (cd "$arg" && pwd)
}

all_benches() {
  local d
  for d in "$LAB_ROOT"/bench*/; do [ -f "$d/bench.env" ] && echo "${d%/}"; done | sort -V
}

# `--stand-ins` when the run will use the stand-in images: a bench run uses them only when asked
# for (JSONBENCH_STANDINS=1; otherwise official images or exit 2), so this is known before anything
# starts, and validate-bench refuses what the stand-ins cannot do (client/src/stand-ins.js).
standins_flag() { [ "${JSONBENCH_STANDINS:-auto}" != 1 ] || echo --stand-ins; }

# write_run_plan DIR [KEY=VALUE...]: DIR/bench.env plus the --set overrides, validated, planned into
# DIR/plan.json: the file every later step reads (run.env is no longer written; analysis still reads
# it in runs made before).
write_run_plan() {
  local dir=$1 kv; shift
  for kv in "$@"; do
    if [[ $kv != [A-Za-z_]*=* || $kv == *"'"* ]]; then
      echo "runme.sh: --set '$kv': expected KEY=VALUE (a bench key, a value without a single quote)" >&2
      return 2
    fi
  done
  plan_run_sets "$dir" "$@"
}

# plan_run_sets DIR [KEY=VALUE...]: write_run_plan without the check of the words' form (a
# repetition's keys come from its folder's plan, where a bench.env value may hold a single quote).
plan_run_sets() {
  local dir=$1 kv sets=(); shift
  # shellcheck disable=SC2046  # standins_flag prints one word or none
  node "$LAB_ROOT/client" validate-bench $(standins_flag) "$dir/bench.env" || return 2
  for kv in "$@"; do sets+=(--set "$kv"); done
  # A relative DATASET is relative to the bench folder (DATASET_BASE when DIR is a copy of it: the
  # check's, a sweep point's); the plan holds it absolute, so copies and repetitions find the file.
  local ds; ds=$(set -a; . "$dir/bench.env" >/dev/null 2>&1; for kv in "$@"; do export "$kv" 2>/dev/null; done; echo "${DATASET:-}")
  if [ -n "$ds" ] && [ "${ds#/}" = "$ds" ]; then
    sets+=(--set "DATASET=$(cd "${DATASET_BASE:-$dir}" && pwd)/$ds")
  fi
  # shellcheck disable=SC2046  # standins_flag prints one word or none
  if ! node "$LAB_ROOT/client" validate-bench $(standins_flag) "$dir/bench.env" "${sets[@]}"; then
    if [ $# -gt 0 ]; then echo "runme.sh: the --set overrides are invalid for $(basename "$dir")" >&2
    else echo "runme.sh: bench.env is refused for $(basename "$dir")" >&2; fi
    return 2
  fi
  write_plan "$dir" "${sets[@]}"
}

load_run_env() {
  # The plan as data (plan.json, written once by the client: write_run_plan); from it every key with
  # its default filled in (bash repeats no default), then the phases.
  [ -s "$1/plan.json" ] || { echo "runme.sh: $1 has no plan.json (write_run_plan writes it)" >&2; return 2; }
  # the client containers read their settings and phase from it (lab/stack.sh client_start); no
  # phase is under way yet (a phase id of the previous bench would not be this plan's)
  PLAN_FILE=$1/plan.json PHASE_ID="" PHASE_QUERY=""
  load_bench_settings "$1/plan.json" || return 2
  read_plan "$1/plan.json" || return 2
  # whether each operation is a transaction: a fact the workload's file declares (plan.json `workload`)
  WORKLOAD_TRANSACTIONS=$(python3 "$LAB_ROOT/lab/plan-read.py" fact transactions "$1/plan.json") || return 2
}

export_phase() {
  if ! analysis export --bench-dir "$BENCH_DIR" --database "$1" --phase "$2" \
      --prometheus "$(prometheus_url)" --project "$PROJECT"; then
    say "$2: metrics export failed; the phase's other files are kept"
  fi
}

# a transaction workload (booking, oltp: the plan's workload `transactions`), with its nothing-lost
# accounting (lab/phase.sh count_phase)
is_txn_workload() { [ "${WORKLOAD_TRANSACTIONS:-false}" = true ]; }

run_bench() {
  BENCH_DIR=$1 BENCH_NAME=$(basename "$1")
  load_run_env "$BENCH_DIR" || return 1
  if [ "${WORKLOAD:-insert}" = insert ]; then
    say "starting: $DESCRIPTION (${DATABASES}; $CLIENTS clients x $DOCS docs at $RATE docs/s)"
  else
    say "starting: $DESCRIPTION (${DATABASES}; $WORKLOAD workload; phases: $(plan_phases | tr '\n' ' ' | sed 's/ $//'))"
  fi
  analysis host-info >"$BENCH_DIR/host.json" || say "host-info failed"
  say "fresh database volumes for: $DATABASES"
  refresh_databases "$DATABASES" || { say "the databases did not become ready"; return 1; }
  local db line phase
  for db in $DATABASES; do
    # the settings of the database's compose service (its manifest's `service`), as they ran
    compose config --format json | python3 "$LAB_ROOT/lab/service-settings.py" "$(database_fields service "$db")" \
      >"$BENCH_DIR/$db.settings.json" || { say "$db: its service's settings could not be read"; return 1; }
    client_oneshot "$db" init >>"$BENCH_DIR/$db.out" 2>&1 || { say "$db: init failed (see $db.out)"; return 1; }
    # A transaction workload's data is loaded by init (no load phase): settled at once, outside any
    # window (VACUUM (ANALYZE) of its tables + CHECKPOINT / {fsync: 1}), as after a load phase.
    if is_txn_workload; then
      client_oneshot "$db" settle >>"$BENCH_DIR/$db.out" 2>&1 || { say "$db: settle after init failed (see $db.out)"; return 1; }
    fi
  done
  # The plan's order: per database its load phase (if the workload has one), then its run phase,
  # on the same volume.
  for line in "${PLAN[@]}"; do
    [ "$INTERRUPTED" = 0 ] || break
    parse_plan_line "$line"
    run_phase "$P_DATABASE" "$P_PHASE" "$P_STAGE" "$P_EXPECTED_S"
  done
  analysis results --bench-dir "$BENCH_DIR" --lab-env "$LAB_ROOT/.env" || say "results.json could not be written"
  for phase in $(plan_phases); do
    [ ! -s "$BENCH_DIR/$phase.perf" ] || analysis flamegraph "$BENCH_DIR/$phase.perf" -o "$BENCH_DIR/$phase.svg" ||
      say "$phase: flame graph failed"
  done
  analysis report "$BENCH_DIR" || say "report failed"  # into the bench folder only
  analysis summary --bench-dir "$BENCH_DIR" || true
}
