# The phases of a bench and its settings, as the client computes them (docs/contracts.md §1):
# `node client plan --json DIR/bench.env --set ...` writes the whole run as data, DIR/plan.json
# (client/src/plan.schema.json), the only form of the plan a new run writes;
# bash reads its settings and phases from that file (lab/plan-read.py prints them in the words below)
# and computes nothing itself. Sourced by runme.sh.

# write_plan DIR [--set KEY=VALUE]...: DIR/plan.json from DIR/bench.env and the overrides (the file the
# lab, the client containers, analysis and the run's branch read; settings.given holds the keys as
# written, overrides applied).
write_plan() {
  local dir=$1; shift
  if ! node "$LAB_ROOT/client" plan --json "$dir/bench.env" "$@" >"$dir/plan.json.tmp"; then
    rm -f "$dir/plan.json.tmp"
    echo "runme.sh: node client plan --json $dir/bench.env $* failed" >&2
    return 2
  fi
  mv "$dir/plan.json.tmp" "$dir/plan.json"
}

# plan_sets PLAN_JSON: the --set words that plan the same keys as PLAN_JSON's settings.given (a
# repetition's bench.env is the same file; the given keys add what the overrides set).
plan_sets() {
  local out kv
  out=$(python3 "$LAB_ROOT/lab/plan-read.py" given "$1") ||
    { echo "runme.sh: lab/plan-read.py given $1 failed" >&2; return 2; }
  while IFS= read -r kv; do [ -z "$kv" ] || printf -- '--set\n%s\n' "$kv"; done <<<"$out"
}

# Every bench key of PLAN_JSON, defaults filled in, exported; BENCH_KEYS = their names (all go to
# the clients: a workload needs e.g. CLIENTS and RECORDS to derive which records each client owns).
load_bench_settings() {
  local file=$1 env_text
  env_text=$(python3 "$LAB_ROOT/lab/plan-read.py" env "$file") ||
    { echo "runme.sh: lab/plan-read.py env $file failed" >&2; return 2; }
  set -a; eval "$env_text"; set +a
  BENCH_KEYS=$(printf '%s\n' "$env_text" | sed -n 's/^\([A-Za-z_][A-Za-z0-9_]*\)=.*/\1/p' | tr '\n' ' ')
}

# PLAN: one line per phase of one repetition of PLAN_JSON, in run order:
#   phase=<id> database=<db> stage=<load|run|query> ops=<per client> rate=<per client> expected_s=<s>
#   clients=<n> query=<name|->
read_plan() {
  local file=$1 out
  out=$(python3 "$LAB_ROOT/lab/plan-read.py" phases "$file") ||
    { echo "runme.sh: lab/plan-read.py phases $file failed" >&2; return 2; }
  mapfile -t PLAN < <(printf '%s\n' "$out" | grep -v '^[[:space:]]*$')
  [ "${#PLAN[@]}" -gt 0 ] || { echo "runme.sh: $file has no phase" >&2; return 2; }
  local line; for line in "${PLAN[@]}"; do parse_plan_line "$line" || return 2; done
}

# Sets P_PHASE P_DATABASE P_STAGE P_OPS P_RATE P_EXPECTED_S P_CLIENTS P_QUERY (empty for -) from one
# plan line; refuses anything
# else than the contract's words (the values end up in file names and arithmetic).
parse_plan_line() {
  local word key value
  local query_given=""
  P_PHASE="" P_DATABASE="" P_STAGE="" P_OPS="" P_RATE="" P_EXPECTED_S="" P_CLIENTS="" P_QUERY=""
  for word in $1; do
    key=${word%%=*} value=${word#*=}
    case $key in
      phase) [[ $value =~ ^[a-z][a-z0-9-]*$ ]] && P_PHASE=$value ;;
      # a database the lab knows: one with a manifest, databases/<name>/database.json
      database) [[ $value =~ ^[a-z][a-z0-9]*$ ]] && [ -f "$LAB_ROOT/databases/$value/database.json" ] &&
                  ! grep -q '"not_in_lab"' "$LAB_ROOT/databases/$value/database.json" && P_DATABASE=$value ;;
      stage) [[ $value =~ ^(load|run|query)$ ]] && P_STAGE=$value ;;
      ops) [[ $value =~ ^[0-9]+$ ]] && P_OPS=$value ;;
      rate) [[ $value =~ ^[0-9]+(\.[0-9]+)?$ ]] && P_RATE=$value ;;
      expected_s) [[ $value =~ ^[0-9]+(\.[0-9]+)?$ ]] && P_EXPECTED_S=$value ;;
      clients) [[ $value =~ ^[1-9][0-9]*$ ]] && P_CLIENTS=$value ;;
      query) [[ $value =~ ^(-|[a-z0-9][a-z0-9-]*)$ ]] && query_given=1 && P_QUERY=${value#-} ;;
    esac
  done
  if [ -z "$P_PHASE" ] || [ -z "$P_DATABASE" ] || [ -z "$P_STAGE" ] || [ -z "$P_OPS" ] || [ -z "$P_RATE" ] ||
    [ -z "$P_EXPECTED_S" ] || [ -z "$P_CLIENTS" ] || [ -z "$query_given" ] || { [ "$P_STAGE" = query ] && [ -z "$P_QUERY" ]; }; then
    echo "runme.sh: node client plan printed a line that is not 'phase=<id> database=<$(known_databases | tr '\n' '|' | sed 's/|$//')>" \
      "stage=<load|run|query> ops=<int> rate=<number> expected_s=<number> clients=<int> query=<name|->': '$1'" >&2
    return 2
  fi
}

# The databases with a manifest (databases/<name>/database.json), one per line, sorted.
known_databases() {
  local f
  for f in "$LAB_ROOT"/databases/*/database.json; do
    # a manifest with not_in_lab is a database the lab cannot run yet (databases/manifests.py names)
    if [ -f "$f" ] && ! grep -q '"not_in_lab"' "$f"; then basename "$(dirname "$f")"; fi
  done
}

# Phase ids of the plan, in run order (file prefixes: <id>.out, <id>.phase.json, ...).
plan_phases() { local line; for line in "${PLAN[@]}"; do parse_plan_line "$line" && echo "$P_PHASE"; done; }
