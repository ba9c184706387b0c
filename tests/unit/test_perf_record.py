"""lab/perf.sh's perf record against real perf and a real perf_event cgroup of its own: a recording
of an idle cgroup leaves no D.perf (the Firefox Profiler cannot open an empty file) and says why;
a busy one leaves a profile at 1000 Hz whose samples are all of the cgroup's process."""
import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

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


def record(cg, out, seconds=2, after_wait=""):
    """after_wait: shell run as soon as the recording ends (before the profile is converted)."""
    script = f"""
. "{LAB_ROOT}/lab/perf.sh"
LAB_ROOT="{LAB_ROOT}"
perf_record_start "{cg}" 0 {seconds} "{out}"
perf_record_wait
{after_wait}
perf_profile_json "{out}"
"""
    r = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


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
        profile = record(name, out, after_wait=f"cat /proc/{busy.pid}/stat > {stat_after}")
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
