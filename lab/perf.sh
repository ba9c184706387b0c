# perf and cgroup helpers for one database container. Sourced by runme.sh.
# perf runs on the host and filters by the container's cgroup, so the database image needs no perf.

# Path of the container's cgroup relative to the perf_event hierarchy (cgroup v1: docker/<id>;
# v2 systemd driver: system.slice/docker-<id>.scope). Empty when the host offers none.
container_perf_cgroup() {
  local pid=$1 line
  [ -r "/proc/$pid/cgroup" ] || return 0
  if [ "$(stat -fc %T /sys/fs/cgroup)" = cgroup2fs ]; then
    line=$(grep -m1 '^0::' "/proc/$pid/cgroup" || true)
  else
    line=$(grep -m1 ':perf_event:' "/proc/$pid/cgroup" || true)
  fi
  line=${line#*::}; line=${line#*:perf_event:}; line=${line#/}
  printf '%s' "$line"
}

# The container's CPU seconds as its own cgroup counts them (read directly, not via cAdvisor):
# the reference the exported cAdvisor figures are checked against.
container_cgroup_cpu_seconds() {
  local pid=$1 rel
  [ -r "/proc/$pid/cgroup" ] || { echo null; return; }
  if [ "$(stat -fc %T /sys/fs/cgroup)" = cgroup2fs ]; then
    rel=$(grep -m1 '^0::' "/proc/$pid/cgroup"); rel=${rel#0::}
    awk '$1=="usage_usec"{printf "%.6f\n", $2/1e6; f=1} END{if(!f) print "null"}' \
      "/sys/fs/cgroup$rel/cpu.stat" 2>/dev/null || echo null
  else
    rel=$(grep -m1 -E ':(cpu,)?cpuacct(,cpu)?:' "/proc/$pid/cgroup"); rel=${rel#*:*:}
    local f
    for f in /sys/fs/cgroup/cpuacct"$rel"/cpuacct.usage /sys/fs/cgroup/cpu,cpuacct"$rel"/cpuacct.usage; do
      [ -r "$f" ] && { awk '{printf "%.6f\n", $1/1e9}' "$f"; return; }
    done
    echo null
  fi
}

# Why perf cannot measure this host, or nothing when it can.
perf_unavailable_reason() {
  command -v perf >/dev/null 2>&1 || { echo "perf is not installed"; return; }
  [ "$(id -u)" = 0 ] || [ "$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 2)" -le 0 ] ||
    { echo "perf needs root or kernel.perf_event_paranoid<=0"; return; }
  perf stat -e task-clock -x, true >/dev/null 2>&1 || echo "perf stat does not run on this host"
}

perf_has_hardware_counters() {
  perf stat -x, -e instructions:u true 2>&1 >/dev/null | grep -q '^[0-9]'
}

# Events for perf stat: instructions where the PMU has them, software events otherwise.
perf_stat_events() {
  if perf_has_hardware_counters; then
    echo "instructions:u,instructions:k,cycles:u,task-clock,context-switches,cpu-migrations,page-faults"
  else
    echo "task-clock,context-switches,cpu-migrations,page-faults"
  fi
}

# Starts perf stat on the cgroup until perf_stat_stop. One -G cgroup applies to every event (perf
# >= 4.x; proven with Debian's perf 6.1 by tests/unit/test_perf_one_cgroup.py): a per-event list
# no longer lines up on hybrid CPUs, where each hardware event expands to cpu_core/ and cpu_atom/
# events, and the events left without a cgroup then count the whole system. perf ends cleanly when
# its workload (a sleep) ends, which is how it is stopped: SIGINT is ignored by background jobs.
perf_stat_start() {
  local cg=$1 csv=$2 events
  events=$(perf_stat_events)
  perf stat -a -x, -o "$csv" -e "$events" -G "$cg" \
    -- sleep 2147483647 2>/dev/null &
  PERF_STAT_PID=$!
}

perf_stat_stop() {
  [ -n "${PERF_STAT_PID:-}" ] || return 0
  local child
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    child=$(pgrep -P "$PERF_STAT_PID" sleep || true)
    [ -n "$child" ] && break
    sleep 0.2
  done
  [ -n "$child" ] && kill "$child" 2>/dev/null
  wait "$PERF_STAT_PID" 2>/dev/null || true
  PERF_STAT_PID=
}

# perf record of the cgroup for a fixed window, converted to the text format the Firefox Profiler
# imports. Runs in the background; perf_record_wait collects it, perf_profile_json describes it.
# 1000 Hz because the profiler's perf-script importer assumes 1 ms per sample (meta.interval: 1 in
# src/profile-logic/import/linux-perf.js): at any other rate its times are off by 1000/rate.
# A recording without samples leaves no D.perf (the profiler cannot open an empty file); the
# reason goes to D.perf.status and from there into the phase manifest.
PERF_RECORD_HZ=${PERF_RECORD_HZ:-1000}
perf_record_start() {
  local cg=$1 delay=$2 seconds=$3 out=$4 event=cpu-clock
  perf_has_hardware_counters && event=cycles
  rm -f "$out" "$out.status"
  (
    trap 'echo "reason=cancelled before the recording ended" >"$out.status"
          rm -f "$out.data" "$out.data.old" "$out.tmp" "$out.err"; exit 0' TERM
    sleep "$delay"
    if ! perf record -q -a -g -F "$PERF_RECORD_HZ" -e "$event" -G "$cg" -o "$out.data"         -- sleep "$seconds" >/dev/null 2>"$out.err"; then
      echo "reason=perf record failed: $(tail -n 1 "$out.err")" >"$out.status"
    elif ! perf script -F +pid -i "$out.data" >"$out.tmp" 2>"$out.err"; then
      echo "reason=perf script failed: $(tail -n 1 "$out.err")" >"$out.status"
    else
      # A sample is a header line (not indented) followed by its indented frames.
      local n
      n=$(grep -c -v -e '^[[:space:]]' -e '^$' -e '^#' "$out.tmp" || true)
      if [ "${n:-0}" -gt 0 ]; then
        mv "$out.tmp" "$out"; echo "samples=$n" >"$out.status"
      else
        echo "samples=0" >"$out.status"
        echo "reason=no samples: the container did not run on a CPU during the ${seconds} s recording" >>"$out.status"
      fi
    fi
    rm -f "$out.data" "$out.data.old" "$out.tmp" "$out.err"
  ) &
  PERF_RECORD_PID=$!
}

# The manifest's perf.profile: {file, samples, frequency_hz, reason}; file is null when no profile
# was written, and reason then says why. Consumes D.perf.status. Args: D.perf path, or "" plus a
# reason when no recording was started.
perf_profile_json() {
  local out=$1 why=${2:-} samples="" file="" line
  if [ -n "$out" ]; then
    if [ -r "$out.status" ]; then
      while IFS= read -r line; do
        case $line in
          samples=*) samples=${line#samples=} ;;
          reason=*) why=${line#reason=} ;;
        esac
      done <"$out.status"
      rm -f "$out.status"
    else
      why=${why:-"the recording left no status (not started or killed)"}
    fi
    [ ! -s "$out" ] || file=$(basename "$out")
  fi
  local hz=""; [ -z "$out" ] || hz=$PERF_RECORD_HZ
  python3 "$LAB_ROOT/lab/json-object.py" "file?=$file" "samples#=$samples" "frequency_hz#=$hz" "reason?=$why"
}

perf_record_wait() {
  [ -n "${PERF_RECORD_PID:-}" ] || return 0
  wait "$PERF_RECORD_PID" 2>/dev/null || true
  PERF_RECORD_PID=
}

perf_record_cancel() {
  [ -n "${PERF_RECORD_PID:-}" ] || return 0
  pkill -TERM -P "$PERF_RECORD_PID" 2>/dev/null || true
  kill -TERM "$PERF_RECORD_PID" 2>/dev/null || true
  perf_record_wait
}
