# One database phase of a bench: quiet period, window, clients at the bench's rate, perf, counts,
# logs, the phase manifest and the metrics export. Sourced by runme.sh.

# Seconds of idle database kept inside the window at each end, so that the window's first and last
# Prometheus samples (cAdvisor housekeeping 1 s + scrape 1 s) see the database before and after
# the load: the exported deltas then cover all of the phase's work.
WINDOW_GUARD_S=${WINDOW_GUARD_S:-5}
PROGRESS_EVERY_S=${PROGRESS_EVERY_S:-30}

now() { date +%s.%N; }

# sleep that a trap can interrupt
nap() { sleep "$1" & wait $! 2>/dev/null || kill $! 2>/dev/null || true; }

say() { printf '[%s %s] %s\n' "$(date +%H:%M:%S)" "${BENCH_NAME:-lab}" "$*"; }

quiet_period() {
  local left=$1 step
  while [ "$left" -gt 0 ] && [ "$INTERRUPTED" = 0 ]; do
    say "$PHASE_ID: quiet period, ${left}s left"
    step=$(( left < 10 ? left : 10 ))
    nap "$step"; left=$((left - step))
  done
}

clients_running() { docker inspect -f '{{.State.Running}}' "${CLIENT_IDS[@]}" 2>/dev/null | grep -c true || true; }

stop_clients() {
  [ "${#CLIENT_IDS[@]}" -gt 0 ] || return 0
  # SIGTERM: each client stops sending, awaits its in-flight insert and writes its result.
  docker stop -t 30 "${CLIENT_IDS[@]}" >/dev/null 2>&1 || true
}

# Waits for the clients, printing progress; gives up (stopping them) far past the expected time:
# PHASE_WAIT_LIMIT_S and PHASE_WAIT_TIMED_OUT record it (facts for the phase's status).
wait_clients() {
  local started=$1 expected=$2 elapsed next=0 db_down_said=""
  PHASE_WAIT_LIMIT_S=$(( expected * 2 + 120 ))
  while [ "$(clients_running)" -gt 0 ]; do
    [ "$INTERRUPTED" = 0 ] || { stop_clients; return; }
    # A phase's work ends when its clients have written their result files (each does so when its
    # work is done); only afterwards does each keep /metrics up for the last scrape
    # (METRICS_LINGER_S: 3 s, a query client's 8 s). The window does not wait for that linger: the
    # closing guard (WINDOW_GUARD_S, 5 s) covers a 3 s linger's last scrape; finish_phase waits for
    # the exit. A client that never writes its file (killed, stopped) is waited for as it exits.
    ! client_results_written || break
    elapsed=$(( $(date +%s) - started ))
    if [ "$(docker inspect -f '{{.State.Running}}' "$PHASE_CID" 2>/dev/null)" != true ] && [ -z "${db_down_said:-}" ]; then
      say "$PHASE_ID: the database container is not running; clients retry until their reconnect timeout"
      db_down_said=1
    fi
    if [ "$elapsed" -ge "$next" ]; then
      say "$PHASE_ID: ${elapsed}s elapsed, about $(( expected > elapsed ? expected - elapsed : 0 ))s remaining, $(clients_running) clients running"
      next=$(( elapsed + PROGRESS_EVERY_S ))
    fi
    if [ "$elapsed" -gt "$PHASE_WAIT_LIMIT_S" ]; then
      PHASE_WAIT_TIMED_OUT=true
      stop_clients; return
    fi
    nap 1
  done
}

# The phase's clients, started side by side (each `compose run -d` takes a second or more): their
# container ids into CLIENT_IDS, in client order (an empty id where a start failed, as before).
start_clients() {
  local db=$1 i pid ids pids=()
  ids=$(mktemp -d)
  CLIENT_IDS=()
  for i in $(seq 1 "$PHASE_CLIENTS"); do
    [ "$INTERRUPTED" = 0 ] || break
    client_start "$db" "$i" "$BENCH_DIR/clients" "$PHASE_ID" >"$ids/$i" &
    pids+=($!)
  done
  # each by its pid (the phase's other background jobs, cgroup watch and perf stat, run on); a
  # signal's trap ends a wait early, so wait again until the start has really returned its id
  for pid in "${pids[@]}"; do
    while kill -0 "$pid" 2>/dev/null; do wait "$pid" 2>/dev/null || true; done
  done
  for i in $(seq 1 "${#pids[@]}"); do CLIENT_IDS+=("$(cat "$ids/$i")"); done
  rm -rf -- "$ids"
}

# Every client of the phase has written its result file (it does so when its work is done).
client_results_written() {
  local i
  for i in $(seq 1 "$PHASE_CLIENTS"); do
    [ -s "$BENCH_DIR/clients/$PHASE_ID-client-$i.json" ] || return 1
  done
}

# After the window: clients still lingering for their last scrape exit on their own; bounded.
wait_clients_exit() {
  local limit=$(( $(date +%s) + ${1:-60} ))
  while [ "$(clients_running)" -gt 0 ] && [ "$(date +%s)" -lt "$limit" ] && [ "$INTERRUPTED" = 0 ]; do nap 1; done
  [ "$(clients_running)" = 0 ] || stop_clients
}

# The started clients' logs into OUT, and two facts into finish_phase's locals (bash's dynamic
# scope): `codes`, each client's exit code in client order (null: docker could not say), and
# `missing`, the clients that left no result file.
collect_client_outputs() {
  local out=$1 i id code
  for i in "${!CLIENT_IDS[@]}"; do
    id=${CLIENT_IDS[$i]}
    docker logs "$id" 2>&1 | sed "s/^/client-$((i + 1))  | /" >>"$out"
    code=$(docker inspect -f '{{.State.ExitCode}}' "$id" 2>/dev/null) && [[ $code =~ ^-?[0-9]+$ ]] || code=null
    codes+="${codes:+ }$code"
    [ -s "$BENCH_DIR/clients/$PHASE_ID-client-$((i + 1)).json" ] || missing+="${missing:+ }$((i + 1))"
  done
  docker rm -f "${CLIENT_IDS[@]}" >/dev/null 2>&1 || true
  CLIENT_IDS=()
}

# The phase's state lives in PHASE_* globals so that finish_phase can also run from the EXIT trap
# after an interrupt or an error: whatever was gathered is then written out. The facts gathered
# before finish_phase are globals for the same reason (PHASE_EXPECTED_S, PHASE_WAIT_*, and
# PHASE_LAB_ERROR, set by runme.sh's cleanup); the status is analysis's (`analysis phase-status`).
# run_phase DB PHASE STAGE EXPECTED_S (from a line of the plan; the client derives its
# operations and rate from the bench keys and STAGE): every file of the phase is named after PHASE
# (the insert workload's phase id is the database: mongodb.out, ...).
run_phase() {
  local db=$1 expected
  # The plan line's clients and query (a query phase: one client running P_QUERY).
  PHASE_CLIENTS=${P_CLIENTS:-$CLIENTS} PHASE_QUERY=""
  [ "${3:-run}" != query ] || PHASE_QUERY=$P_QUERY
  PHASE_DB=$db PHASE_ID=${2:-$1} PHASE_STAGE=${3:-run} PHASE_STATS0="" PHASE_EVENTS="" PHASE_HW=false
  PHASE_EXPECTED_S="" PHASE_WAIT_LIMIT_S="" PHASE_WAIT_TIMED_OUT=false PHASE_LAB_ERROR=""
  PHASE_QUIET_START="" PHASE_QUIET_END="" PHASE_CLIENTS_START=""
  PHASE_PROFILE_WHY="interrupted before the recording started"
  PHASE_CID=$(container_of "$db"); PHASE_PID=$(docker inspect -f '{{.State.Pid}}' "$PHASE_CID")
  PHASE_IMAGE=$(docker inspect -f '{{.Config.Image}}' "$PHASE_CID")
  PHASE_STAND_IN=$(label_of "$PHASE_CID" jsonbench.stand_in)

  # Before a query phase, outside the window: VACUUM (ANALYZE) and CHECKPOINT on PostgreSQL, so
  # autovacuum does not change the plans mid-window and the count's hint bits are written; {fsync: 1}
  # on MongoDB. Then the quiet period.
  [ -z "$PHASE_QUERY" ] || say "$PHASE_ID: settled before the quiet period: $(settle_database "$db")"
  # The quiet period is also the database's idle reading: analysis nets per-query CPU of the idle
  # rate measured here and in the window's first guard seconds (phase.json `idle`).
  PHASE_QUIET_START=$(now)
  quiet_period "$QUIET_S"
  PHASE_QUIET_END=$(now)
  [ "$INTERRUPTED" = 0 ] || return 0

  PHASE_CG=$(container_perf_cgroup "$PHASE_PID")
  PHASE_PERF_REASON=$(perf_unavailable_reason)
  [ -n "$PHASE_PERF_REASON" ] || [ -n "$PHASE_CG" ] ||
    PHASE_PERF_REASON="no perf_event cgroup for the container on this host"
  if [ -z "$PHASE_PERF_REASON" ]; then
    PHASE_EVENTS=$(perf_stat_events); perf_has_hardware_counters && PHASE_HW=true
  fi
  say "$PHASE_ID: phase starts${PHASE_STAND_IN:+ (STAND-IN: $PHASE_STAND_IN)}${PHASE_PERF_REASON:+; perf off: $PHASE_PERF_REASON}"

  PHASE_STATS0=$(server_stats "$db")  # the server's own counters, just outside the window
  PHASE_START=$(now); PHASE_CPU0=$(container_cgroup_cpu_seconds "$PHASE_PID")
  PHASE_DB_STARTED_AT=$(docker inspect -f '{{.State.StartedAt}}' "$PHASE_CID")
  PHASE_ACTIVE=1
  cgroup_processes_watch_start
  [ -n "$PHASE_PERF_REASON" ] || perf_stat_start "$PHASE_CG" "$BENCH_DIR/$PHASE_ID.perfstat.csv"
  nap "$WINDOW_GUARD_S"

  mkdir -p "$BENCH_DIR/clients"
  PHASE_CLIENTS_START=$(now)
  start_clients "$db"
  expected=$(ceil_seconds "$4"); PHASE_EXPECTED_S=$expected
  PHASE_PROFILE_WHY="PERF_RECORD_S=0: no profile asked for"
  [ -z "$PHASE_PERF_REASON" ] || PHASE_PROFILE_WHY="perf off: $PHASE_PERF_REASON"
  if [ -z "$PHASE_PERF_REASON" ] && [ "$PERF_RECORD_S" -gt 0 ]; then
    PHASE_PROFILE_WHY=""
    perf_record_start "$PHASE_CG" "$(( expected > PERF_RECORD_S ? (expected - PERF_RECORD_S) / 2 : 0 ))" \
      "$PERF_RECORD_S" "$BENCH_DIR/$PHASE_ID.perf"
  fi
  wait_clients "$(date +%s)" "$expected"
  [ "$INTERRUPTED" = 1 ] || nap "$WINDOW_GUARD_S"
  finish_phase
}

# Closes the window and writes everything the phase leaves behind: D.phase.json records the facts
# (lab/phase.schema.json `facts`), and `analysis phase-status` decides from them the status and the
# reason it writes into the file and prints (`ok`, `failed (<reason>)`). Tolerates failures: after
# an interrupt any command may fail, and what can be kept must still be kept.
finish_phase() {
  [ "${PHASE_ACTIVE:-0}" = 1 ] || return 0
  PHASE_ACTIVE=0
  local - db=$PHASE_DB ph=$PHASE_ID out="$BENCH_DIR/$PHASE_ID.out" end cpu1
  # facts filled in below by collect_client_outputs and count_phase (bash's dynamic scope)
  local codes="" missing="" count_outcome=failed count_problems=null signalled=false
  [ "$INTERRUPTED" = 0 ] || signalled=true
  set +e
  end=$(now); cpu1=$(container_cgroup_cpu_seconds "$PHASE_PID")
  cgroup_processes_watch_stop
  perf_stat_stop
  if [ "$INTERRUPTED" = 0 ]; then perf_record_wait; else perf_record_cancel; fi
  local profile
  if [ -z "${PHASE_PROFILE_WHY-unset}" ]; then profile=$(perf_profile_json "$BENCH_DIR/$ph.perf")
  else profile=$(perf_profile_json "" "${PHASE_PROFILE_WHY:-interrupted before the recording started}"); fi
  [ "$INTERRUPTED" = 0 ] || stop_clients
  wait_clients_exit 60
  collect_client_outputs "$out"
  local db_state db_exit
  read -r db_state db_exit < <(database_state)
  # A transaction phase whose database stopped is started again, after the window, so that count's
  # nothing-lost check still runs: every transaction a client saw committed must have survived.
  local restarted=false
  if [ "$INTERRUPTED" = 0 ] && is_txn_workload && ! database_running; then
    ! restart_for_check "$db" "$out" || restarted=true
  fi
  if [ -s "$BENCH_DIR/$ph.perfstat.csv" ]; then
    { echo "perf stat ($PHASE_EVENTS) on cgroup $PHASE_CG:"; cat "$BENCH_DIR/$ph.perfstat.csv"; } >>"$out"
  fi

  # After the clients are gone and before `count`: with the reading at the start it brackets the
  # window (analysis/figures/reconcile.py compares the deltas with what the lab sent).
  # A restarted server's counters begin again: its reading would not bracket the window (no end).
  pool_close_servers "$db" "$out"  # a pooled phase: the pool's server connections closed (lab/pool.sh)
  local stats1=null
  if [ "$restarted" = true ]; then echo "server-stats: no end reading: the database was restarted after it stopped in the window" >>"$out"
  else stats1=$(server_stats "$db"); fi
  [ "$INTERRUPTED" = 1 ] || python3 "$LAB_ROOT/lab/json-object.py" "start:=${PHASE_STATS0:-null}" \
    "end:=$stats1" >"$BENCH_DIR/$ph.server-stats.json"
  # A query phase's plan: execution 0 once more under EXPLAIN, outside the window (not counted).
  if [ -n "$PHASE_QUERY" ] && [ "$INTERRUPTED" = 0 ]; then
    client_oneshot "$db" explain >"$BENCH_DIR/$ph.plan.json" 2>>"$out" || say "$ph: explain failed (see $ph.out)"
  fi

  count_phase "$db" "$ph" "$out"
  # After a load phase, outside any window: VACUUM and CHECKPOINT / fsync, so that the work the load
  # deferred (checkpoint, autovacuum, hint bits) does not land in the next phase's window.
  local settled=""
  if [ "$PHASE_STAGE" = load ] && [ "$INTERRUPTED" = 0 ]; then settled=$(settle_database "$db"); fi
  # the database's log since it started: a run phase's log holds its load phase's too
  docker logs "$PHASE_CID" >"$BENCH_DIR/$ph.log" 2>&1

  # Every value passed typed (lab/json-object.py), none spliced into JSON text. The idle intervals:
  # the quiet period, and the window's first guard up to the clients' start (null where the phase
  # did not get there), for analysis's idle rate.
  python3 "$LAB_ROOT/lab/json-object.py" database="$db" phase="$ph" stage="$PHASE_STAGE" service="$db" project="$PROJECT" \
    container_id="$PHASE_CID" image="$PHASE_IMAGE" "stand_in?=$PHASE_STAND_IN" \
    cgroup="$PHASE_CG" "window.start#=$PHASE_START" "window.end#=$end" \
    "idle.quiet.start#=${PHASE_QUIET_START:-}" "idle.quiet.end#=${PHASE_QUIET_END:-}" \
    "idle.guard.start#=${PHASE_START:-}" "idle.guard.end#=${PHASE_CLIENTS_START:-}" \
    "settled_after?=$settled" \
    "cgroup_cpu_seconds.start#=$PHASE_CPU0" "cgroup_cpu_seconds.end#=$cpu1" \
    "clients#=$PHASE_CLIENTS" "query?=$PHASE_QUERY" "missing_clients[#]=$missing" \
    "perf.events[]=$PHASE_EVENTS" "perf.hardware_counters!=$PHASE_HW" "perf.reason?=$PHASE_PERF_REASON" \
    "perf.profile:=$profile" \
    "cgroup_processes:=$(cgroup_processes_summary)" \
    "image_os:=${IMAGE_OS[$db]:-null}" "pooler:=$(pool_phase_json "$db")" \
    "facts.client_exit_codes[#]=$codes" \
    "facts.wait.expected_s#=$PHASE_EXPECTED_S" "facts.wait.limit_s#=$PHASE_WAIT_LIMIT_S" \
    "facts.wait.timed_out!=$PHASE_WAIT_TIMED_OUT" "facts.lab_error_exit_code#=$PHASE_LAB_ERROR" \
    "facts.database.state=$db_state" "facts.database.exit_code#=$db_exit" \
    "facts.database.restarted_for_check!=$restarted" \
    "facts.count.outcome=$count_outcome" "facts.count.problems:=$count_problems" \
    "facts.interrupted!=$signalled" \
    >"$BENCH_DIR/$ph.phase.json.tmp" && mv "$BENCH_DIR/$ph.phase.json.tmp" "$BENCH_DIR/$ph.phase.json"
  # the verdict, decided by analysis from those facts (also written into D.phase.json)
  local verdict=""
  [ ! -s "$BENCH_DIR/$ph.phase.json" ] || verdict=$(analysis phase-status --phase-file "$BENCH_DIR/$ph.phase.json")
  [ -n "$verdict" ] || verdict="failed (no status: $ph.phase.json was not written or its facts were refused, see above)"

  say "$ph: exporting the window's metrics from Prometheus"
  export_phase "$db" "$ph"
  [ "${verdict%% *}" = ok ] || RUN_FAILED=1
  say "$ph: phase $verdict"
}

# `node client count` into D.count.json. A transaction phase's count also checks that nothing was
# lost against the clients' committed and in-doubt transactions, booking by booking: `analysis
# txn-outcomes` writes D.txn-outcomes.json from all of the phase's result files (which indices
# each client committed and left in doubt; else no file and the check runs without them: stderr
# says why), passed to count as TXN_OUTCOMES; its exit 1 (a failed check) keeps D.count.json with
# the `booking_check` rows. The outcome goes into finish_phase's locals `count_outcome` (ok, failed,
# check_failed) and `count_problems` (a JSON list).
count_phase() {
  local db=$1 ph=$2 out=$3 outcomes="" code=0 said
  if is_txn_workload; then
    analysis txn-outcomes --bench-dir "$BENCH_DIR" --phase "$ph" --clients "$PHASE_CLIENTS" \
      --out "$BENCH_DIR/$ph.txn-outcomes.json" 2>>"$out" || say "$ph: txn-outcomes failed (see $ph.out)"
    if [ -s "$BENCH_DIR/$ph.txn-outcomes.json" ]; then
      outcomes=$BENCH_DIR/$ph.txn-outcomes.json
      echo "count: TXN_OUTCOMES=$ph.txn-outcomes.json (analysis txn-outcomes over the phase's client results)" >>"$out"
    fi
  fi
  (
    [ -z "$outcomes" ] || export TXN_OUTCOMES=$outcomes
    client_oneshot "$db" count
  ) >"$BENCH_DIR/$ph.count.json.tmp" 2>>"$out" || code=$?
  if [ "$code" = 0 ]; then
    mv "$BENCH_DIR/$ph.count.json.tmp" "$BENCH_DIR/$ph.count.json"
    count_outcome=ok
  # a failed check: `analysis nothing-lost` prints its problems as a JSON list, then as one line
  elif [ "$code" = 1 ] && is_txn_workload && said=$(analysis nothing-lost --count-output "$BENCH_DIR/$ph.count.json.tmp" 2>>"$out"); then
    mv "$BENCH_DIR/$ph.count.json.tmp" "$BENCH_DIR/$ph.count.json"
    count_outcome=check_failed count_problems=$(head -1 <<<"$said")
    say "$ph: nothing-lost check FAILED: $(tail -n +2 <<<"$said")"
  else
    rm -f "$BENCH_DIR/$ph.count.json.tmp"; say "$ph: count failed (see $ph.out)"
    count_outcome=failed
  fi
}

# The database container after the window, as two words: running (since the phase began), stopped
# <exit code>, restarted (started again during the phase), gone; the second word null but for stopped.
database_state() {
  local running started code
  read -r running started code < <(docker inspect -f '{{.State.Running}} {{.State.StartedAt}} {{.State.ExitCode}}' \
    "$PHASE_CID" 2>/dev/null) || { echo "gone null"; return; }
  if [ "$running" != true ]; then echo "stopped $code"
  elif [ "$started" != "$PHASE_DB_STARTED_AT" ]; then echo "restarted null"
  else echo "running null"; fi
}

database_running() { [ "$(docker inspect -f '{{.State.Running}}' "$PHASE_CID" 2>/dev/null)" = true ]; }

# The phase's stopped database container started again (same container, same volume), outside the
# window, and waited for as before the first window; what happened goes to the phase's .out.
restart_for_check() {
  local db=$1 out=$2
  say "$PHASE_ID: the database stopped during the phase; starting it again for the nothing-lost check"
  if docker start "$PHASE_CID" >/dev/null 2>>"$out" && database_ready "$db" 2>>"$out"; then
    echo "restart: $db container started again after the window for the nothing-lost check" >>"$out"
    return 0
  fi
  say "$PHASE_ID: the database could not be started again: no nothing-lost check (see $PHASE_ID.out)"
  return 1
}

# `node client settle` (VACUUM (ANALYZE) + CHECKPOINT; {fsync: 1}) outside any window; prints what
# it ran (its `settle: ...` line), its whole output goes to the phase's .out.
settle_database() {
  local out="$BENCH_DIR/$PHASE_ID.out" said
  if said=$(client_oneshot "$1" settle 2>>"$out"); then
    printf '%s\n' "$said" >>"$out"
    printf '%s\n' "$said" | sed -n 's/^settle: //p' | head -1
  else
    say "$PHASE_ID: settle failed (see $PHASE_ID.out)" >&2
  fi
}

# The plan's expected seconds (digits with an optional fraction: lab/plan.sh parse_plan_line checks
# them) rounded up to whole seconds, the unit of the wait's arithmetic.
ceil_seconds() {
  local whole=${1%%.*} fraction=""
  [[ $1 != *.* ]] || fraction=${1#*.}
  [ -z "${fraction//0/}" ] || whole=$((10#$whole + 1))
  echo $((10#$whole))
}

# `node client server-stats` as one JSON line, or null (the reason goes to D.out).
server_stats() { client_oneshot "$1" server-stats 2>>"$BENCH_DIR/${PHASE_ID:-$1}.out" | grep -m1 '^{' || echo null; }

# What runs in the database container during the window, read from the host every second
# (lab/cgroup-processes.py; never docker exec, which would itself run in the container).
cgroup_processes_watch_start() {
  PHASE_PROCS_FILE=$(mktemp)
  python3 "$LAB_ROOT/lab/cgroup-processes.py" watch "$PHASE_PID" --every 1 >"$PHASE_PROCS_FILE" 2>/dev/null &
  PHASE_PROCS_WATCH=$!
}
cgroup_processes_watch_stop() {
  [ -n "${PHASE_PROCS_WATCH:-}" ] || return 0
  kill "$PHASE_PROCS_WATCH" 2>/dev/null; wait "$PHASE_PROCS_WATCH" 2>/dev/null
  PHASE_PROCS_WATCH=""
}
cgroup_processes_summary() {
  # the venv's Python: the server's process names come from its manifest (databases/manifests.py)
  "$VENV/bin/python" "$LAB_ROOT/lab/cgroup-processes.py" summary --database "$PHASE_DB" \
    ${PHASE_STAND_IN:+--stand-in} "${PHASE_PROCS_FILE:-/nonexistent}" || echo null
  rm -f "${PHASE_PROCS_FILE:-}"
}
