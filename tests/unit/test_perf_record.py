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


def record(cg, out, seconds=2):
    script = f"""
. "{LAB_ROOT}/lab/perf.sh"
json_string_or_null() {{ if [ -n "$1" ]; then python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$1"; else echo null; fi; }}
perf_record_start "{cg}" 0 {seconds} "{out}"
perf_record_wait
perf_profile_json "{out}"
"""
    r = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


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
        profile = record(name, out)
    finally:
        busy.kill()
        busy.wait()
    assert profile["file"] == "postgres.perf" and profile["reason"] is None
    headers = [line for line in out.read_text().splitlines() if line and line[0] not in " \t#"]
    assert profile["samples"] == len(headers)
    # one busy thread for 2 s at 1000 Hz: about 2000 samples (the profiler's 1 ms each = 2 s)
    assert 1200 <= len(headers) <= 2300, len(headers)
    assert {h.split()[0] for h in headers} == {"python3"}
