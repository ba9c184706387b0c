"""The probe's perf record (lab/driver/probe.py) against real perf and a real perf_event cgroup of its own: a recording
of an idle cgroup leaves no D.perf (the Firefox Profiler cannot open an empty file) and says why;
a busy one leaves a profile at 1000 Hz whose samples are all of the cgroup's process."""
import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from lab.driver.probe import LocalProbe

LAB_ROOT = Path(__file__).resolve().parents[2]
V2 = subprocess.run(["stat", "-fc", "%T", "/sys/fs/cgroup"], capture_output=True, text=True).stdout.strip() == "cgroup2fs"
ROOT = Path("/sys/fs/cgroup") if V2 else Path("/sys/fs/cgroup/perf_event")

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or not shutil.which("perf") or not ROOT.is_dir(),
    reason="needs root, perf and a perf_event cgroup hierarchy")


@pytest.fixture
def cgroup():
    name = f"jsonbench-test-perf-{os.getpid()}"
    path = ROOT / name
    path.mkdir()
    try:
        yield name, path
    finally:
        for pid in (path / "cgroup.procs").read_text().split():
            (ROOT / "cgroup.procs").write_text(pid)
        path.rmdir()


PROBE = LocalProbe(str(LAB_ROOT))


def record(cg, out, seconds=2, after_wait=None):
    """after_wait: run as soon as the recording has ended."""
    recording = PROBE.perf_record_start(cg, 0, seconds, str(out))
    PROBE.perf_record_wait(recording)
    if after_wait:
        after_wait()
    return PROBE.perf_profile(str(out), handle=recording)


def perf_processes():
    return subprocess.run(["pgrep", "-x", "perf"], capture_output=True, text=True).stdout.split()


def cpu_ms(stat):
    """utime + stime of a /proc/PID/stat text, in ms."""
    fields = stat.rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def test_idle_cgroup_leaves_no_profile_and_says_why(cgroup, tmp_path):
    name, _ = cgroup
    out = tmp_path / "postgres.perf"
    profile = record(name, out)
    assert not out.exists()
    assert profile["file"] is None and profile["samples"] == 0 and profile["frequency_hz"] == 1000
    assert profile["reason"].startswith("no samples")
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # no .data, .tmp, .err or .status left


def test_busy_cgroup_leaves_a_profile_of_its_process_at_1000_hz(cgroup, tmp_path):
    name, path = cgroup
    busy = subprocess.Popen(["bash", "-c", "exec python3 -c 'while True: pass'"])
    try:
        (path / "cgroup.procs").write_text(str(busy.pid))
        time.sleep(0.2)
        out = tmp_path / "postgres.perf"
        cpu_before = cpu_ms(Path(f"/proc/{busy.pid}/stat").read_text())
        stat_after = tmp_path / "stat-after"
        profile = record(name, out, after_wait=lambda: stat_after.write_text(Path(f"/proc/{busy.pid}/stat").read_text()))
        cpu = cpu_ms(stat_after.read_text()) - cpu_before
        stat_after.unlink()
    finally:
        busy.kill()
        busy.wait()
    assert profile["file"] == "postgres.perf" and profile["reason"] is None
    headers = [line for line in out.read_text().splitlines() if line and line[0] not in " \t#"]
    assert profile["samples"] == len(headers)
    # At 1000 Hz a sample stands for 1 ms of the process's CPU: never more samples than the CPU ms it
    # spent (read from /proc, 10 ms ticks, across perf's start-up too) nor than 1000 Hz x 2 s of one
    # thread. How many it gets is the host's load (a busy 2-core machine gave 363 where an idle one
    # gives ~1900): a timing figure, not a check.
    assert 0 < len(headers) <= min(cpu + 20, 2300), (len(headers), cpu)
    assert {h.split()[0] for h in headers} == {"python3"}


@pytest.mark.parametrize("when", ["during the delay", "during the recording"])
def test_a_cancelled_recording_leaves_no_perf_and_no_file_and_says_why(cgroup, tmp_path, when):
    name, _ = cgroup
    before = perf_processes()
    out = tmp_path / "postgres.perf"
    recording = PROBE.perf_record_start(name, 30 if when == "during the delay" else 0, 30, str(out))
    time.sleep(1.5)
    started = time.monotonic()
    PROBE.perf_record_cancel(recording)
    assert time.monotonic() - started < 10  # promptly, not after the 30 s
    assert PROBE.perf_profile(str(out), handle=recording) == {
        "file": None, "samples": None, "frequency_hz": 1000, "reason": "cancelled before the recording ended"}
    assert sorted(p.name for p in tmp_path.iterdir()) == []
    assert perf_processes() == before


def test_a_profile_nobody_asked_for_or_that_never_ran_says_why(tmp_path):
    assert PROBE.perf_profile(None, "PERF_RECORD_S=0: no profile asked for") == {
        "file": None, "samples": None, "frequency_hz": None, "reason": "PERF_RECORD_S=0: no profile asked for"}
    assert PROBE.perf_profile(str(tmp_path / "x.perf"))["reason"] == "the recording left no status (not started or killed)"


def test_a_failing_perf_record_gives_its_own_words(tmp_path):
    recording = PROBE.perf_record_start("no-such-cgroup-of-jsonbench", 0, 1, str(tmp_path / "x.perf"))
    PROBE.perf_record_wait(recording)
    profile = PROBE.perf_profile(str(tmp_path / "x.perf"), handle=recording)
    assert profile["file"] is None and profile["samples"] is None
    assert profile["reason"].startswith("perf record failed: "), profile
    assert sorted(p.name for p in tmp_path.iterdir()) == []
