#!/usr/bin/env bash
# Sourced by lab/test.sh: runs its suites a few at a time (tests/unit/test_at_a_time.py runs it
# with jobs of its own). The caller defines `say` (a heading) and `stop_started_dockerd`, and reads
# `failed` (the names of the jobs that failed).
failed=()
suite_pids=()
stop_suites() {
  local pid
  for pid in "${suite_pids[@]}"; do kill -- "-$pid" 2>/dev/null || kill "$pid" 2>/dev/null || true; done
}

# at_a_time SLOTS NAME HEADING FUNCTION [NAME HEADING FUNCTION]...: the jobs in the order given, at
# most SLOTS at once, the next one starting as soon as a running one ends (they mostly wait: servers
# starting, Prometheus scraping, guard seconds, a fixed rate). Each runs in its own process group (an
# interrupted test run stops all of their processes); its output is kept whole and shown under its
# heading when it ends; a failed one's NAME goes into `failed`.
at_a_time() {
  local slots=$1; shift
  local logs; logs=$(mktemp -d)
  local -a names=() headings=() functions=()
  local -A running=()  # pid -> job index
  while [ $# -ge 3 ]; do names+=("$1"); headings+=("$2"); functions+=("$3"); shift 3; done
  trap 'stop_suites; stop_started_dockerd' EXIT
  local next=0 pid rc i
  while [ "$next" -lt "${#names[@]}" ] || [ "${#running[@]}" -gt 0 ]; do
    while [ "$next" -lt "${#names[@]}" ] && [ "${#running[@]}" -lt "$slots" ]; do
      set -m
      "${functions[$next]}" >"$logs/$next.log" 2>&1 &
      set +m
      running[$!]=$next
      suite_pids=("${!running[@]}")
      printf '=== started %s (%s s)\n' "${names[$next]}" "$SECONDS"
      next=$((next + 1))
    done
    pid=""
    wait -n -p pid "${!running[@]}"; rc=$?
    if [ -z "$pid" ]; then  # a signal ended the wait: find an ended job by hand, or wait again
      for pid in "${!running[@]}"; do kill -0 "$pid" 2>/dev/null || break; pid=""; done
      [ -n "$pid" ] || { sleep 1; continue; }
      wait "$pid"; rc=$?
    fi
    i=${running[$pid]}
    unset "running[$pid]"
    suite_pids=("${!running[@]}")
    [ "$rc" = 0 ] || failed+=("${names[$i]}")
    say "${headings[$i]} (ended at $SECONDS s, exit $rc)"
    cat "$logs/$i.log"
  done
  suite_pids=()
  trap 'stop_started_dockerd' EXIT
  rm -rf -- "$logs"
}
