"""lab/driver/probe.py's perf, against real perf and real cgroups (a container; a perf_event cgroup of
the test's own):
- perf stat gets ONE -G cgroup for all its events (a per-event list misaligns on hybrid CPUs): a
  container spinning at a 0.5-CPU quota while the host is counted system-wide; every event of the
  lab's list must be the container's only, the CSV's cgroup column on every line;
- perf record of an idle cgroup leaves no profile file (the Firefox Profiler cannot open an empty
  one) and says why; of a busy one a profile at 1000 Hz whose samples are all of its process;
- perf.profile's reason for each way a recording ends, and a cancel (during the delay, during the
  recording) ends perf promptly and leaves no process and no file behind."""
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from analysis.bench import perfstat
from lab.driver.probe import LocalProbe
from lab_images import STANDIN, official_postgres, postgres_image

LAB_ROOT = Path(__file__).resolve().parents[2]
V2 = os.path.isfile("/sys/fs/cgroup/cgroup.controllers")
ROOT = Path("/sys/fs/cgroup") if V2 else Path("/sys/fs/cgroup/perf_event")

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or not shutil.which("perf") or not ROOT.is_dir(),
    reason="needs root, perf and a perf_event cgroup hierarchy")


def group_members(pgid):
    """Running processes whose process group is pgid (perf and the sleep it started share one); a
    zombie, gone but not yet reaped by its new parent, is not one."""
    out = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                stat = Path(f"/proc/{name}/stat").read_text()
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()
            if fields[2] == str(pgid) and fields[0] != "Z":
                out.append(int(name))
    return out


def processes_naming(text):
    """Processes whose command line holds text (a perf writing a file of the test's folder)."""
    out = []
    for name in os.listdir("/proc"):
        if name.isdigit() and int(name) != os.getpid():
            try:
                cmd = Path(f"/proc/{name}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if text in cmd:
                out.append((int(name), cmd))
    return out


# --- perf stat on a container ---

@pytest.fixture
def busy_container():
    if not shutil.which("docker"):
        pytest.skip("needs docker")
    if LocalProbe().perf_unavailable_reason():
        pytest.skip(LocalProbe().perf_unavailable_reason())
    image = postgres_image()  # any image with a shell: one that runme.sh test always has
    if image is None:
        pytest.skip(f"neither {official_postgres()} nor {STANDIN} is present (lab/standins/build.sh)")
    cid = subprocess.run(["docker", "run", "-d", "--cpus", "0.5", "--entrypoint", "sh", image, "-c",
                          "while :; do :; done"], capture_output=True, text=True, check=True).stdout.strip()
    try:
        pid = subprocess.run(["docker", "inspect", "-f", "{{.State.Pid}}", cid], capture_output=True, text=True,
                             check=True).stdout.strip()
        yield int(pid)
    finally:
        subprocess.run(["docker", "rm", "-f", cid], capture_output=True)


def test_every_event_counts_the_container_only(busy_container, tmp_path):
    probe = LocalProbe()
    cg = probe.perf_cgroup(busy_container)
    if not cg:
        pytest.skip("no perf_event cgroup for containers on this host")
    csv = tmp_path / "stat.csv"
    handle = probe.perf_stat_start(cg, str(csv))
    time.sleep(3)
    probe.perf_stat_stop(handle)
    assert group_members(handle.pid) == [] and handle.returncode is not None
    text = csv.read_text()
    lines = [l for l in text.splitlines() if l and not l.startswith("#")]
    assert len(lines) == len(probe.perf_stat_events()) >= 4, text
    assert all(l.split(",")[3] == cg for l in lines), text  # the cgroup column on every event
    assert [l.split(",")[2] for l in lines] == probe.perf_stat_events()
    ev = perfstat.parse(text)
    ms = ev["task-clock"]["value"]
    # The 0.5-CPU quota caps the container at ~1500 ms in ~3 s; the whole 2-core host would count
    # ~6000 ms. How close to the cap it gets is the host's load (a timing figure, not checked here).
    assert 0 < ms <= 2100, ms
    sysw = subprocess.run(["perf", "stat", "-a", "-x,", "-e", "task-clock", "--", "sleep", "1"],
                          capture_output=True, text=True).stderr
    assert perfstat.parse(sysw)["task-clock"]["value"] > 1.5 * ms / 3


def test_perf_stat_on_a_cgroup_that_does_not_exist_stops_at_once_and_leaves_nothing(tmp_path):
    probe = LocalProbe()
    handle = probe.perf_stat_start("jsonbench-no-such-cgroup", str(tmp_path / "stat.csv"))
    t = time.time()
    probe.perf_stat_stop(handle)
    assert time.time() - t < 15
    assert handle.returncode != 0 and group_members(handle.pid) == []


def test_the_perf_answers_are_asked_once_per_probe():
    probe = LocalProbe()
    probe.perf_unavailable_reason(), probe.hardware_counters()
    probe._perf["hw"] = "cached"  # what the next call returns if it does not ask perf again
    assert probe.hardware_counters() == "cached"
    assert probe.perf_unavailable_reason() is None


def test_perf_stat_events_follow_the_hardware_counters():
    probe = LocalProbe()
    hw = subprocess.run(["perf", "stat", "-x,", "-e", "instructions:u", "true"], capture_output=True,
                        text=True).stderr
    counts = any(l[:1].isdigit() for l in hw.splitlines())
    assert probe.hardware_counters() is counts
    assert probe.perf_stat_events() == (
        ["instructions:u", "instructions:k", "cycles:u", "task-clock", "context-switches", "cpu-migrations",
         "page-faults"] if counts else ["task-clock", "context-switches", "cpu-migrations", "page-faults"])


# --- why perf cannot measure ---

def reason_in_child(path, proc=None, uid=None):
    """perf_unavailable_reason() of a probe in a child process with PATH (and the user) given: the
    host's python3 (the probe needs the standard library only; the venv's may be unreadable to
    another user). The probe's package is copied where any user can read it: a checkout under a
    folder only root may enter (a CI's clean clone in a private temporary folder) is not."""
    code = ("import sys; sys.path.insert(0, sys.argv[1]); from lab.driver.probe import LocalProbe; "
            "print(LocalProbe(proc=sys.argv[2] or None).perf_unavailable_reason())")
    python = shutil.which("python3", path="/usr/bin:/bin:/usr/local/bin") or sys.executable
    readable = tempfile.mkdtemp(prefix="jsonbench-probe-", dir="/tmp")
    try:
        os.chmod(readable, 0o755)
        shutil.copytree(LAB_ROOT / "lab" / "driver", Path(readable, "lab", "driver"),
                        ignore=shutil.ignore_patterns("__pycache__"))
        for d, _, files in os.walk(readable):
            os.chmod(d, 0o755)
            for f in files:
                os.chmod(os.path.join(d, f), 0o644)
        r = subprocess.run([python, "-B", "-c", code, readable, proc or ""], capture_output=True, text=True,
                           env={**os.environ, "PATH": path}, user=uid, timeout=60)
    finally:
        shutil.rmtree(readable)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def test_no_perf_on_the_path(tmp_path):
    assert reason_in_child(str(tmp_path)) == "perf is not installed"


def test_not_root_and_a_paranoid_kernel(tmp_path):
    proc = tmp_path / "proc"
    (proc / "sys/kernel").mkdir(parents=True)
    (proc / "sys/kernel/perf_event_paranoid").write_text("2\n")
    proc.chmod(0o755), tmp_path.chmod(0o755)
    path = os.path.dirname(shutil.which("perf"))
    assert reason_in_child(path, str(proc), uid=65534) == "perf needs root or kernel.perf_event_paranoid<=0"


def test_a_perf_that_fails_to_count(tmp_path):
    (tmp_path / "perf").symlink_to(shutil.which("false"))
    assert reason_in_child(str(tmp_path)) == "perf stat does not run on this host"


def test_this_host_s_perf_runs():
    assert LocalProbe().perf_unavailable_reason() is None


# --- perf record ---

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


def cpu_ms(stat):
    """utime + stime of a /proc/PID/stat text, in ms."""
    fields = stat.rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def test_idle_cgroup_leaves_no_profile_and_says_why(cgroup, tmp_path):
    name, _ = cgroup
    out = tmp_path / "postgres.perf"
    probe = LocalProbe()
    h = probe.perf_record_start(name, 0, 2, str(out))
    probe.perf_record_wait(h)
    profile = probe.perf_profile(str(out))
    assert not out.exists()
    assert profile == {"file": None, "samples": 0, "frequency_hz": 1000,
                       "reason": "no samples: the container did not run on a CPU during the 2 s recording"}
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # no .data, .tmp, .err or .status left
    # the status is taken once: asked again, the recording left none
    assert probe.perf_profile(str(out))["reason"] == "the recording left no status (not started or killed)"


BUSY_PYTHON = os.path.realpath(shutil.which("python3", path="/usr/bin:/bin:/usr/local/bin") or sys.executable)


def test_busy_cgroup_leaves_a_profile_of_its_process_at_1000_hz(cgroup, tmp_path):
    name, path = cgroup
    # The interpreter's own file, started directly: a python3 found on PATH may be a shim (pyenv's is a
    # bash script that runs readlink and its hooks before it execs Python), whose processes were in the
    # cgroup for the recording on a loaded host (samples of bash, readlink, pyenv-hooks)
    busy = subprocess.Popen([BUSY_PYTHON, "-c", "while True: pass"])
    probe = LocalProbe()
    try:
        (path / "cgroup.procs").write_text(str(busy.pid))
        time.sleep(0.2)
        out = tmp_path / "postgres.perf"
        cpu_before = cpu_ms(Path(f"/proc/{busy.pid}/stat").read_text())
        h = probe.perf_record_start(name, 0, 2, str(out))
        h.thread.join()  # wait for the recording's thread, then read the CPU before anything else
        cpu = cpu_ms(Path(f"/proc/{busy.pid}/stat").read_text()) - cpu_before
        probe.perf_record_wait(h)
    finally:
        busy.kill()
        busy.wait()
    profile = probe.perf_profile(str(out))
    assert profile["file"] == "postgres.perf" and profile["reason"] is None and profile["frequency_hz"] == 1000
    headers = [line for line in out.read_text().splitlines() if line and line[0] not in " \t#"]
    assert profile["samples"] == len(headers)
    # At 1000 Hz a sample stands for 1 ms of the process's CPU: never more samples than the CPU ms it
    # spent (read from /proc, 10 ms ticks, across perf's start-up and perf script too) nor than
    # 1000 Hz x 2 s of one thread. How many it gets is the host's load: a timing figure, not a check.
    assert 0 < len(headers) <= min(cpu + 20, 2300), (len(headers), cpu)
    assert {h.split()[0] for h in headers} == {Path(BUSY_PYTHON).name[:15]}  # perf's comm: 15 characters
    assert sorted(p.name for p in tmp_path.iterdir()) == ["postgres.perf"]


def test_perf_record_on_a_missing_cgroup_says_perf_s_last_line(tmp_path):
    out = tmp_path / "postgres.perf"
    probe = LocalProbe()
    h = probe.perf_record_start("jsonbench-no-such-cgroup", 0, 1, str(out))
    probe.perf_record_wait(h)
    profile = probe.perf_profile(str(out))
    assert profile["file"] is None and profile["samples"] is None and profile["frequency_hz"] == 1000
    assert profile["reason"].startswith("perf record failed: ") and len(profile["reason"]) > 20, profile
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_perf_script_that_cannot_write_its_output_says_so(cgroup, tmp_path):
    name, _ = cgroup
    out = tmp_path / "postgres.perf"
    (tmp_path / "postgres.perf.tmp").mkdir()  # where perf script's text goes: a folder, not writable as a file
    probe = LocalProbe()
    h = probe.perf_record_start(name, 0, 1, str(out))
    probe.perf_record_wait(h)
    profile = probe.perf_profile(str(out))
    assert profile["file"] is None and profile["samples"] is None
    assert profile["reason"].startswith("perf script failed: ") and "postgres.perf.tmp" in profile["reason"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["postgres.perf.tmp"]  # the folder, left as found


def test_no_recording_started_says_why_and_has_no_frequency():
    probe = LocalProbe()
    assert probe.perf_profile(None, "PERF_RECORD_S=0: no profile asked for") == {
        "file": None, "samples": None, "frequency_hz": None, "reason": "PERF_RECORD_S=0: no profile asked for"}
    assert probe.perf_profile("", "perf off: perf is not installed")["frequency_hz"] is None


def test_a_recording_never_waited_for_left_no_status(tmp_path):
    assert LocalProbe().perf_profile(str(tmp_path / "x.perf")) == {
        "file": None, "samples": None, "frequency_hz": 1000,
        "reason": "the recording left no status (not started or killed)"}


def test_the_frequency_is_perf_record_hz(monkeypatch, tmp_path):
    monkeypatch.setenv("PERF_RECORD_HZ", "250")
    assert LocalProbe().perf_profile(str(tmp_path / "x.perf"))["frequency_hz"] == 250
    monkeypatch.setenv("PERF_RECORD_HZ", "fast")
    with pytest.raises(ValueError, match="PERF_RECORD_HZ='fast'"):
        LocalProbe()


def test_cancel_during_the_delay_ends_at_once_and_leaves_nothing(cgroup, tmp_path):
    name, _ = cgroup
    out = tmp_path / "postgres.perf"
    probe = LocalProbe()
    h = probe.perf_record_start(name, 600, 2, str(out))
    time.sleep(0.3)
    t = time.time()
    probe.perf_record_cancel(h)
    assert time.time() - t < 5 and not h.thread.is_alive()
    assert probe.perf_profile(str(out)) == {"file": None, "samples": None, "frequency_hz": 1000,
                                            "reason": "cancelled before the recording ended"}
    assert processes_naming(str(tmp_path)) == [] and list(tmp_path.iterdir()) == []


def test_cancel_during_the_recording_ends_perf_and_leaves_nothing(cgroup, tmp_path):
    name, _ = cgroup
    out = tmp_path / "postgres.perf"
    probe = LocalProbe()
    h = probe.perf_record_start(name, 0, 600, str(out))
    deadline = time.time() + 60
    while not processes_naming(f"{out}.data") and time.time() < deadline:  # perf record is running
        time.sleep(0.1)
    assert processes_naming(f"{out}.data"), "perf record did not start"
    leader = h.popen.pid
    t = time.time()
    probe.perf_record_cancel(h)
    assert time.time() - t < 15 and not h.thread.is_alive()
    assert processes_naming(str(tmp_path)) == [] and group_members(leader) == []  # perf and its sleep
    assert probe.perf_profile(str(out))["reason"] == "cancelled before the recording ended"
    assert list(tmp_path.iterdir()) == []


def test_cancel_after_the_recording_ended_keeps_its_profile(cgroup, tmp_path):
    name, _ = cgroup
    out = tmp_path / "postgres.perf"
    probe = LocalProbe()
    h = probe.perf_record_start(name, 0, 1, str(out))
    h.thread.join()
    probe.perf_record_cancel(h)
    assert probe.perf_profile(str(out))["reason"].startswith("no samples")
