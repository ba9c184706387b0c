"""lab/test.sh runs its five suites (client, Python, e2e streams a, b and c) a few at a time
(at_a_time SLOTS ...): the next job starts the moment a running one ends, never more than SLOTS at
once; a failed job is named in `failed` and its whole output shown under its heading; an
interrupted run stops every running job's process group. Run here with jobs of the test's own that
record when they start and end."""
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

LAB_ROOT = Path(__file__).resolve().parents[2]

JOBS = r'''
. "$1/lab/at-a-time.sh"
say() { printf '\n=== %s\n' "$*"; }
stop_started_dockerd() { :; }
log=$2
job() { echo "start $1 $(date +%s.%N)" >>"$log"; echo "output of $1"; sleep "$2"; echo "end $1 $(date +%s.%N)" >>"$log"; return "$3"; }
long() { job long 3 0; }
short() { job short 1 1; }
middle() { job middle 2 0; }
third() { job third 1 0; }
fourth() { job fourth 0.5 0; }
at_a_time "$3" long "heading long" long short "heading short" short middle "heading middle" middle \
  third "heading third" third fourth "heading fourth" fourth
echo "failed: ${failed[*]}"
'''
NAMES = ("long", "short", "middle", "third", "fourth")


def events(path):
    out = {}
    for line in path.read_text().splitlines():
        kind, name, at = line.split()
        out[(kind, name)] = float(at)
    return out


def peak_running(e):
    points = sorted([(at, 1) for (k, _), at in e.items() if k == "start"] +
                    [(at, -1) for (k, _), at in e.items() if k == "end"], key=lambda p: (p[0], p[1]))
    running = peak = 0
    for _, step in points:
        running += step
        peak = max(peak, running)
    return peak


@pytest.mark.parametrize("slots", [2, 3])
def test_jobs_run_at_most_slots_at_a_time_in_order_and_the_failed_one_is_named(tmp_path, slots):
    log = tmp_path / "events"
    r = subprocess.run(["bash", "-c", JOBS, "jobs", str(LAB_ROOT), str(log), str(slots)], capture_output=True,
                       text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "failed: short" in r.stdout, r.stdout
    e = events(log)
    assert set(e) == {(k, n) for k in ("start", "end") for n in NAMES}, e
    # the first SLOTS start together; each later one only when a slot frees (short, 1 s, ends first)
    first, later = NAMES[:slots], NAMES[slots:]
    assert max(e[("start", n)] for n in first) - min(e[("start", n)] for n in first) < 0.5, e
    assert e[("start", later[0])] >= e[("end", "short")] - 0.05, e
    assert e[("start", later[0])] < e[("end", "long")], e
    # at any moment at most SLOTS jobs run, and SLOTS did
    assert peak_running(e) == slots, e
    # each job's output whole, under its heading, in the order they ended
    ended = sorted(NAMES, key=lambda n: e[("end", n)])
    order = [r.stdout.index(f"=== heading {n}") for n in ended]
    assert order == sorted(order), r.stdout
    assert r.stdout.index("output of short") > r.stdout.index("=== heading short"), r.stdout
    assert "exit 1" in r.stdout.split("=== heading short")[1].splitlines()[0], r.stdout


def test_an_interrupted_run_stops_the_running_jobs(tmp_path):
    pidfile = tmp_path / "pids"
    script = r'''
. "$1/lab/at-a-time.sh"
say() { :; }
stop_started_dockerd() { :; }
pids=$2
a() { sleep 300 & echo $! >>"$pids"; wait; }
b() { sleep 300 & echo $! >>"$pids"; wait; }
at_a_time 2 a A a b B b
'''
    p = subprocess.Popen(["bash", "-c", script, "jobs", str(LAB_ROOT), str(pidfile)], stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and (not pidfile.exists() or len(pidfile.read_text().split()) < 2):
            time.sleep(0.1)
        sleepers = [int(x) for x in pidfile.read_text().split()]
        assert len(sleepers) == 2
        p.send_signal(signal.SIGTERM)
        p.wait(timeout=30)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(Path(f"/proc/{s}").exists() for s in sleepers):
            time.sleep(0.1)
        assert not [s for s in sleepers if Path(f"/proc/{s}").exists()], "jobs left running"
    finally:
        if p.poll() is None:
            p.kill()
        for s in (int(x) for x in pidfile.read_text().split()) if pidfile.exists() else ():
            try:
                os.kill(s, signal.SIGKILL)
            except ProcessLookupError:
                pass
