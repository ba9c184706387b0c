#!/usr/bin/env bash
# What the monitoring itself costs: cAdvisor's and Prometheus's CPU per second of window, read from
# their containers' own cgroups (not from cAdvisor), under a phase-like load (CLIENTS clients at
# RATE docs/s each against one database), with a met/MISSED line against the 2%-of-one-core target.
# The lab's pair runs side by side with a baseline pair configured as before issue 9 (every default
# cAdvisor metric set, Prometheus keeping every series), same load, same moment; best of ROUNDS.
#
#   lab/bench-monitoring-cost.sh [DATABASE]        (default postgres)
# Env: CLIENTS (8) RATE (15 docs/s per client) WINDOW_S (30) ROUNDS (3) WARMUP_S (15)
#      BASELINE=0 to measure the lab's pair alone; TARGET (0.02 cores); VARIANT_CADVISOR_FLAGS,
#      VARIANT_CADVISOR_ENV, VARIANT_PROMETHEUS_FLAGS, VARIANT_PROMETHEUS_ENV, VARIANT_PROMETHEUS_YML:
#      a third pair, the lab's plus that change, measured in the same rounds (a change is judged
#      side by side, never across runs: the host is shared); the lab's usual
#      COMPOSE_PROJECT_NAME, ports and JSONBENCH_STANDINS. Leaves the lab's monitoring running (as
#      runme.sh does) and removes the clients, the baseline pair and its volume.
set -Eeuo pipefail
LAB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$LAB_ROOT/host/setup-host.sh"
. "$LAB_ROOT/host/node-python.sh"
. "$LAB_ROOT/lab/stack.sh"
say() { printf '[%s monitoring-cost] %s\n' "$(date +%H:%M:%S)" "$*"; }
now() { date +%s.%N; }
# the load and the cgroup readings, through the driver's own Bench and probe
load() { (cd "$LAB_ROOT" && LAB_ROOT=$LAB_ROOT PROJECT=$PROJECT USE_STANDINS=$USE_STANDINS "$VENV/bin/python" lab/monitoring-cost/load.py "$@"); }

DB=${1:-postgres}
ensure_venv || exit 2
# a database with a manifest (databases/<name>/database.json), else the known ones are named
database_fields name "$DB" >/dev/null || exit 2
N_CLIENTS=${CLIENTS:-8} CLIENT_RATE=${RATE:-15} WINDOW_S=${WINDOW_S:-30} ROUNDS=${ROUNDS:-3} WARMUP_S=${WARMUP_S:-15}
BASELINE=${BASELINE:-1} TARGET=${TARGET:-0.02}
WORK=$(mktemp -d)
BASE_OVERRIDE=$WORK/compose.baseline.json
CLIENT_IDS=()

ensure_env_file
load_env_defaults "$LAB_ROOT/.env"
rc=0; use_standins || rc=$?
[ "$rc" != 2 ] || exit 2
USE_STANDINS=$(( rc == 0 ))
[ "$USE_STANDINS" = 0 ] || "$LAB_ROOT/lab/standins/build.sh" >&2
PROJECT=$(project_name)

# The lab's compose plus the baseline pair (derived from the lab's own resolved services).
lab_compose() { docker compose --project-directory "$LAB_ROOT" $(compose_files) --env-file "$LAB_ROOT/.env" "$@"; }
# The variant's Prometheus scrapes the variant's cAdvisor and the same clients as the lab's (the lab's
# own reads them from the targets the driver writes: lab/driver/monitoring_targets.py).
VARIANT_YML=$WORK/prometheus.variant.yml
"$VENV/bin/python" "$LAB_ROOT/lab/monitoring-cost/variant_targets.py" "${VARIANT_PROMETHEUS_YML:-$LAB_ROOT/prometheus/prometheus.yml}" \
  "$PROJECT" "$DB" "$N_CLIENTS" >"$VARIANT_YML" || exit 2
chmod a+r "$VARIANT_YML"  # Prometheus runs as nobody
VARIANT=0
[ -z "${VARIANT_CADVISOR_FLAGS:-}${VARIANT_CADVISOR_ENV:-}${VARIANT_PROMETHEUS_FLAGS:-}${VARIANT_PROMETHEUS_ENV:-}${VARIANT_PROMETHEUS_YML:-}" ] || VARIANT=1
lab_compose config --format json |
  python3 "$LAB_ROOT/lab/monitoring-cost/baseline_services.py" "$LAB_ROOT/lab/monitoring-cost/prometheus.baseline.yml" \
    "$VARIANT_YML" >"$BASE_OVERRIDE"
compose() { lab_compose -f "$BASE_OVERRIDE" "$@"; }

cleanup() {
  set +e
  [ ${#CLIENT_IDS[@]} -eq 0 ] || docker rm -f "${CLIENT_IDS[@]}" >/dev/null 2>&1
  compose rm --stop --force --volumes cadvisor-baseline prometheus-baseline >/dev/null 2>&1
  docker volume rm "${PROJECT}_prometheus-baseline-data" >/dev/null 2>&1
  if [ "$VARIANT" = 1 ]; then
    compose rm --stop --force --volumes cadvisor-variant prometheus-variant >/dev/null 2>&1
    docker volume rm "${PROJECT}_prometheus-variant-data" >/dev/null 2>&1
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

PAIRS="cadvisor prometheus"
[ "$BASELINE" = 0 ] || PAIRS+=" cadvisor-baseline prometheus-baseline"
[ "$VARIANT" = 0 ] || PAIRS+=" cadvisor-variant prometheus-variant"
compose build client >&2
say "monitoring up: $PAIRS"
# Recreated: a running Prometheus does not reread its bind-mounted configuration.
compose up -d --force-recreate $PAIRS >&2
services_running $PAIRS || exit 1
# bench1's document shape at the asked load; DOCS so that the clients outlast warm-up + every round.
CLIENTS=$N_CLIENTS RATE=$CLIENT_RATE DOCS=$(( CLIENT_RATE * (WARMUP_S + ROUNDS * (WINDOW_S + 2) + 30) ))
mapfile -t CLIENT_IDS < <(load start "$DB" "$CLIENTS" "$RATE" "$DOCS" "$WORK")
[ "${#CLIENT_IDS[@]}" = "$CLIENTS" ] || { echo "bench-monitoring-cost.sh: the load did not start (see above)" >&2; exit 1; }
say "$CLIENTS clients x $RATE docs/s on $DB; warming up ${WARMUP_S}s"
sleep "$WARMUP_S"

# cgroup CPU seconds of each watched container at both edges of each round (the driver's probe reads
# the container's own cgroup); python turns them into per-second figures and the verdict.
pid_of() { docker inspect -f '{{.State.Pid}}' "$(compose ps -q "$1")"; }
declare -A PID
for s in $PAIRS "$DB"; do PID[$s]=$(pid_of "$s"); done
samples=$WORK/samples.tsv
# mark ROUND start|end: every watched container's reading in one probe call, at one time
mark() {
  local t s i=0 values
  t=$(now); mapfile -t values < <(load cpu $(for s in $PAIRS "$DB"; do echo "${PID[$s]}"; done))
  for s in $PAIRS "$DB"; do printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$s" "$2" "$t" "${values[$i]:-null}"; i=$((i + 1)); done >>"$samples"
}
for r in $(seq 1 "$ROUNDS"); do
  mark "$r" start
  sleep "$WINDOW_S"
  mark "$r" end
  say "round $r of $ROUNDS done"
done
# cAdvisor (docker_only) watches every container of the engine, not only the lab's: say how many.
say "containers on this engine: $(docker ps -q | wc -l), of this lab: $(docker ps -q --filter "label=com.docker.compose.project=$PROJECT" | wc -l)"
running=$(docker inspect -f '{{.State.Running}}' "${CLIENT_IDS[@]}" | grep -c true || true)
[ "$running" = "$CLIENTS" ] || say "warning: only $running of $CLIENTS clients still ran at the end: the load was lower"
variant=""
[ "$VARIANT" = 0 ] || variant=$(env | grep '^VARIANT_' | sort | tr '\n' ' ')
(cd "$LAB_ROOT" && "$VENV/bin/python" -m analysis.collect.monitoring_cost --target "$TARGET" --database "$DB" \
  --load "$CLIENTS clients x $RATE docs/s on $DB" --variant "$variant" "$samples")
