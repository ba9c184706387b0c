# Experiments made of several bench runs: REPEAT=N (benchN/repeat-1 .. repeat-N, interleaved: every
# database of repetition 1, then of repetition 2, ...) and sweeps (`--sweep KEY=v1,v2,...`: one point
# per value, benchN/sweep-KEY/KEY=<v>/, each a complete bench folder, REPEAT applying inside it).
# Every repetition and point is a complete bench folder run by run_bench on fresh volumes, so a fault
# loses only the one under way. The statistics and reports are analysis's (`repeat`, `sweep`).
# Sourced by runme.sh.

# A sweep of one key: SWEEP_KEY=K, points K=<v>. A grid of two keys (two --sweep): SWEEP_KEY=K1+K2,
# points K1=<v>+K2=<w>, every combination, in the order given (the first key varies slowest). A
# paired sweep (one --sweep K1+K2=v+w,...): the same key and folders, only the pairs given.
SWEEP_KEY=""
SWEEP_POINTS=()   # the point folders' names, in run order
SWEEP_VALUES=()   # each point's value(s): v, or v+w for a grid (sweep-KEY/values, the order analysis shows)
# Summaries still to write if the run stops early (cleanup writes them from what finished).
EXPERIMENT_PENDING=()

repeat_of() { python3 "$LAB_ROOT/lab/plan-read.py" repetitions "$1/plan.json"; }
# The bench's own sweep (bench.env SWEEP), or nothing; its form is checked with the other keys.
bench_sweep_of() { (SWEEP=""; set -a; . "$1/bench.env" >/dev/null 2>&1; echo "${SWEEP:-}"); }

# The bench keys as JSON {KEY: {type, allowed, values (enum)}}, read from the client's schema (one place for them).
bench_key_specs() { node "$LAB_ROOT/client" bench-specs; }

# sweep_parse "KEY=v1,v2,..." ["KEY2=w1,w2,..."]: checks each key and its values' form
# (analysis/experiments/sweep_args.py, with the host's python3: this runs before anything is installed or
# started); sets SWEEP_KEY, SWEEP_POINTS, SWEEP_VALUES.
sweep_parse() {
  local specs out arg keys=() lists=() v w
  [ $# -le 2 ] || { echo "runme.sh: at most two --sweep per run (two keys make a grid of every combination)" >&2; return 2; }
  specs=$(mktemp)
  bench_key_specs >"$specs" || { rm -f "$specs"; return 2; }
  for arg in "$@"; do
    out=$(cd "$LAB_ROOT" && python3 -m analysis sweep-args --specs "$specs" "$arg" 2>&1) ||
      { rm -f "$specs"; echo "runme.sh: ${out#analysis sweep-args: }" >&2; return 2; }
    keys+=("$(head -1 <<<"$out")")
    lists+=("$(tail -n +2 <<<"$out" | tr '\n' ' ')")
  done
  rm -f "$specs"
  if [ ${#keys[@]} = 2 ] && [ "${keys[0]}" = "${keys[1]}" ]; then
    echo "runme.sh: --sweep ${keys[0]} is given twice; a grid needs two different keys (e.g. --sweep ISOLATION=read-committed,serializable --sweep CLIENTS=2,8)" >&2
    return 2
  fi
  if [[ ${keys[*]} == *+* ]] && [ ${#keys[@]} = 2 ]; then
    echo "runme.sh: --sweep ${keys[0]} and --sweep ${keys[1]}: a paired sweep (K1+K2=v+w,...) runs alone, its points already set two keys together; give it as the only --sweep" >&2
    return 2
  fi
  SWEEP_KEY=$(IFS=+; echo "${keys[*]}")
  SWEEP_POINTS=() SWEEP_VALUES=()
  for v in ${lists[0]}; do
    # a paired sweep (K1+K2=v+w,...): each point sets both keys, folder K1=v+K2=w as a grid point's
    if [[ ${keys[0]} == *+* ]]; then
      SWEEP_POINTS+=("${keys[0]%%+*}=${v%%+*}+${keys[0]#*+}=${v#*+}"); SWEEP_VALUES+=("$v"); continue
    fi
    if [ ${#keys[@]} = 1 ]; then SWEEP_POINTS+=("${keys[0]}=$v"); SWEEP_VALUES+=("$v"); continue; fi
    for w in ${lists[1]}; do SWEEP_POINTS+=("${keys[0]}=$v+${keys[1]}=$w"); SWEEP_VALUES+=("$v+$w"); done
  done
}

# point_sets POINT: its KEY=VALUE settings, one per line (K=v, or K1=v and K2=w of a grid point).
point_sets() { tr '+' '\n' <<<"$1"; }

sweep_dir_of() { echo "$1/sweep-$SWEEP_KEY"; }

# experiment_prepare DIR [KEY=VALUE...]: after the check, before the run: the previous results go and
# the plans are written (a plain or REPEAT bench: DIR/plan.json; a sweep: each point's).
experiment_prepare() {
  local dir=$1 sweep point v sets; shift
  if [ -z "$SWEEP_KEY" ]; then clean_results "$dir"; write_run_plan "$dir" "$@"; return; fi
  sweep=$(sweep_dir_of "$dir")
  rm -rf -- "$sweep"
  mkdir -p "$sweep"
  # the values in the order given: an enum sweep's categories are shown in this order (analysis sweep)
  printf '%s\n' "${SWEEP_VALUES[@]}" >"$sweep/values"
  for v in "${SWEEP_POINTS[@]}"; do
    point="$sweep/$v"
    mkdir -p "$point"
    cp "$dir/bench.env" "$point/bench.env"
    mapfile -t sets < <(point_sets "$v")
    DATASET_BASE=$dir write_run_plan "$point" "$@" "${sets[@]}" || return 2
  done
}

# The folder a run's branch commits for DIR.
experiment_folder() { if [ -n "$SWEEP_KEY" ]; then sweep_dir_of "$1"; else echo "$1"; fi; }

# experiment_run DIR: the bench, its repetitions, or its sweep's points.
experiment_run() {
  local dir=$1 sweep v
  if [ -z "$SWEEP_KEY" ]; then run_repeated "$dir"; return; fi
  sweep=$(sweep_dir_of "$dir")
  EXPERIMENT_PENDING+=("sweep|$sweep")
  for v in "${SWEEP_POINTS[@]}"; do
    [ "$INTERRUPTED" = 0 ] || break
    BENCH_NAME=$(basename "$dir") say "sweep point $v"
    run_repeated "$sweep/$v"
  done
  experiment_done
}

# run_repeated DIR: run_bench DIR, or REPEAT times into DIR/repeat-k (each its own plan.json: the
# folder's keys with REPEAT=1), then the statistics over the repetitions.
run_repeated() {
  local dir=$1 n k rep given
  n=$(repeat_of "$dir") || return 2
  [ "$n" -gt 1 ] || { run_bench "$dir"; return; }
  # the folder's own plan (its repetitions, settings, one repetition's phases; write_run_plan wrote
  # it): analysis reads REPEAT from it; each repeat-k gets its own
  given=$(python3 "$LAB_ROOT/lab/plan-read.py" given "$dir/plan.json") || return 2
  mapfile -t given <<<"$given"
  EXPERIMENT_PENDING+=("repeat|$dir")
  for k in $(seq 1 "$n"); do
    [ "$INTERRUPTED" = 0 ] || break
    rep="$dir/repeat-$k"
    mkdir -p "$rep"
    cp "$dir/bench.env" "$rep/bench.env"
    plan_run_sets "$rep" "${given[@]}" REPEAT=1 >/dev/null || return 2
    BENCH_NAME=$(basename "$dir") say "repetition $k of $n (fresh volumes)"
    run_bench "$rep"
  done
  experiment_done
}

# experiment_done: writes the innermost pending summary (a point's repetitions before its sweep).
experiment_done() {
  local last=$(( ${#EXPERIMENT_PENDING[@]} - 1 )) entry
  [ "$last" -ge 0 ] || return 0
  entry=${EXPERIMENT_PENDING[last]}
  unset "EXPERIMENT_PENDING[$last]"
  case ${entry%%|*} in
    repeat) analysis repeat --bench-dir "${entry#*|}" || say "the repetitions' summary failed: ${entry#*|}" ;;
    sweep) analysis sweep --sweep-dir "${entry#*|}" || say "the sweep's summary failed: ${entry#*|}" ;;
  esac
}

# From runme.sh's cleanup: a run stopped by an error or a signal still summarises what finished.
experiment_summarise_all() {
  while [ ${#EXPERIMENT_PENDING[@]} -gt 0 ]; do experiment_done; done
}
