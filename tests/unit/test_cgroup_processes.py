"""lab/driver/cgroup_processes.py (its CLI, `python3 -m lab.driver.cgroup_processes`, and the probe's
process watch, a thread of the driver) on fixture cgroup trees (v1, v2) and on real processes of this
host."""
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from lab.driver.probe import LocalProbe

LAB_ROOT = Path(__file__).resolve().parents[2]
MODULE = [sys.executable, "-m", "lab.driver.cgroup_processes"]


def run(*args, env=None, cmd=MODULE):
    return subprocess.run([*cmd, *args], capture_output=True, text=True, cwd=LAB_ROOT,
                          env={**os.environ, **(env or {})})


def write(path: Path, text: str):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def fixture_proc(proc: Path, pid: int, comm: str, cgroup: str = None):
    write(proc / str(pid) / "comm", comm + "\n")
    if cgroup is not None:
        write(proc / str(pid) / "cgroup", cgroup)


V1_CGROUP = ("10:perf_event:/docker/abc\n8:pids:/docker/abc\n4:memory:/docker/abc\n"
             "2:cpuacct:/docker/abc\n1:cpu:/docker/abc\n0::/docker/abc\n")


def test_v1_container_cgroup_and_its_children_with_comms(tmp_path):
    proc, root = tmp_path / "proc", tmp_path / "cgroup"
    fixture_proc(proc, 100, "postgres", V1_CGROUP)
    fixture_proc(proc, 101, "postgres")
    fixture_proc(proc, 102, "pg_isready")
    write(root / "pids/docker/abc/cgroup.procs", "100\n101\n")
    write(root / "pids/docker/abc/child/cgroup.procs", "102\n")
    # 103 is listed but exited before its comm was read: left out, not an error
    write(root / "pids/docker/abc/child2/cgroup.procs", "103\n")
    r = run("sample", "100", env={"JSONBENCH_PROC": str(proc), "JSONBENCH_CGROUP_ROOT": str(root)})
    assert r.returncode == 0, r.stderr
    s = json.loads(r.stdout)
    assert s["cgroup"] == str(root / "pids/docker/abc")
    assert s["processes"] == [{"pid": 100, "comm": "postgres"}, {"pid": 101, "comm": "postgres"},
                              {"pid": 102, "comm": "pg_isready"}]


def test_v2_unified_cgroup(tmp_path):
    proc, root = tmp_path / "proc", tmp_path / "cgroup"
    fixture_proc(proc, 7, "mongod", "0::/system.slice/docker-abc.scope\n")
    fixture_proc(proc, 9, "mongosh")
    write(root / "system.slice/docker-abc.scope/cgroup.procs", "7\n9\n")
    r = run("sample", "7", env={"JSONBENCH_PROC": str(proc), "JSONBENCH_CGROUP_ROOT": str(root)})
    assert json.loads(r.stdout)["processes"] == [{"pid": 7, "comm": "mongod"}, {"pid": 9, "comm": "mongosh"}]


def test_unreadable_cgroup_is_an_error_sample_not_a_crash(tmp_path):
    r = run("sample", "424242", env={"JSONBENCH_PROC": str(tmp_path), "JSONBENCH_CGROUP_ROOT": str(tmp_path)})
    assert r.returncode == 0
    s = json.loads(r.stdout)
    assert "processes" not in s and "424242" in s["error"]


def samples_file(tmp_path, *samples):
    f = tmp_path / "samples.jsonl"
    f.write_text("".join(json.dumps(s) + "\n" for s in samples))
    return f


def test_summary_counts_comms_and_names_what_is_not_the_server(tmp_path):
    f = samples_file(
        tmp_path,
        {"t": 1, "processes": [{"pid": 1, "comm": "postgres"}, {"pid": 5, "comm": "postgres"}]},
        {"t": 2, "processes": [{"pid": 1, "comm": "postgres"}, {"pid": 9, "comm": "pg_isready"},
                               {"pid": 10, "comm": "runc:[2:INIT]"}]},
        {"t": 3, "error": "gone"})
    r = run("summary", "--database", "postgres", str(f))
    out = json.loads(r.stdout)
    assert out["samples"] == 2
    assert out["comms"] == {"pg_isready": 1, "postgres": 3, "runc:[2:INIT]": 1}
    assert out["foreign"] == ["pg_isready", "runc:[2:INIT]"]
    assert out["server"] == ["postgres"] and out["reason"] is None
    assert {"pid": 9, "comm": "pg_isready"} in out["processes"]


@pytest.mark.parametrize("stand_in,server,foreign", [(False, "mongod", ["secantusd-py"]), (True, "secantusd-py", ["mongod"])])
def test_the_mongodb_server_is_mongod_or_the_secantusdb_stand_in(tmp_path, stand_in, server, foreign):
    f = samples_file(tmp_path, {"t": 1, "processes": [{"pid": 1, "comm": "mongod"}, {"pid": 2, "comm": "secantusd-py"}]})
    out = json.loads(run("summary", "--database", "mongodb", *(["--stand-in"] if stand_in else []), str(f)).stdout)
    assert out["server"] == [server] and out["foreign"] == foreign


def test_a_database_without_a_manifest_is_refused_naming_the_known_ones(tmp_path):
    f = samples_file(tmp_path, {"t": 1, "processes": [{"pid": 1, "comm": "mysqld"}]})
    r = run("summary", "--database", "oracle", str(f))
    assert r.returncode == 2 and r.stdout == ""
    assert "database 'oracle' has no manifest" in r.stderr and "mongodb" in r.stderr and "postgres" in r.stderr


def test_summary_without_any_readable_sample_says_why(tmp_path):
    f = samples_file(tmp_path, {"t": 1, "error": "no readable cgroup directory for pid 5"})
    out = json.loads(run("summary", "--database", "postgres", str(f)).stdout)
    # a watch that read nothing saw no process: not "no foreign process" but null with the reason
    assert out["samples"] == 0 and out["foreign"] is None
    assert "no readable cgroup directory for pid 5" in out["reason"]
    missing = json.loads(run("summary", "--database", "postgres", str(tmp_path / "none.jsonl")).stdout)
    assert missing["samples"] == 0 and "none taken" in missing["reason"]


def test_a_real_process_of_this_host_is_found_with_its_comm():
    child = subprocess.Popen(["sleep", "30"])
    try:
        s = json.loads(run("sample", str(child.pid)).stdout)
        assert {"pid": child.pid, "comm": "sleep"} in s["processes"], s
    finally:
        child.kill()
        child.wait()


def remove_cgroup(cg: Path):
    for _ in range(50):  # removable once its killed processes are gone from it
        try:
            cg.rmdir()
            return
        except OSError:
            time.sleep(0.1)


def is_cgroup2(path: Path):
    return subprocess.run(["stat", "-fc", "%T", str(path)], capture_output=True, text=True).stdout.strip() == "cgroup2fs"


@pytest.fixture(params=["v1", "v2"])
def host_cgroup(request, tmp_path):
    """A new, empty cgroup of this host's real hierarchy, v1 (the pids controller, as on hybrid hosts
    such as CI's) or v2 (unified, as on most users' hosts): yields (its folder, the environment that
    points cgroup_processes at that hierarchy). The v2 hierarchy exists on hybrid hosts too:
    mounted here for the test when the host does not mount it, so both paths run in CI."""
    if os.geteuid() != 0:
        pytest.skip("needs root (creates a cgroup)")
    mounted = None
    if request.param == "v1":
        root = Path("/sys/fs/cgroup/pids")
        if not root.is_dir():
            pytest.skip("no cgroup v1 pids hierarchy on this host (cgroup v2 only)")
        env, cg = {}, root / f"jsonbench-test-{os.getpid()}"
    else:
        root = Path("/sys/fs/cgroup")
        if not is_cgroup2(root):
            mounted = root = tmp_path / "cgroup2"
            root.mkdir()
            subprocess.run(["mount", "-t", "cgroup2", "none", str(root)], check=True)
        env, cg = {"JSONBENCH_CGROUP_ROOT": str(root)}, root / f"jsonbench-test-{os.getpid()}"
    cg.mkdir()
    try:
        yield cg, env
    finally:
        remove_cgroup(cg)
        if mounted:
            subprocess.run(["umount", str(mounted)], check=True)


def test_a_real_cgroup_of_this_host_lists_exactly_its_processes(host_cgroup):
    cg, env = host_cgroup
    child = subprocess.Popen(["sleep", "30"])
    try:
        (cg / "cgroup.procs").write_text(str(child.pid))
        s = json.loads(run("sample", str(child.pid), env=env).stdout)
        assert s["cgroup"] == str(cg)
        assert s["processes"] == [{"pid": child.pid, "comm": "sleep"}]
    finally:
        child.kill()
        child.wait()


def watch_until(done, watched: subprocess.Popen, *flags, env=None, timeout=60):
    """Runs `watch` on the watched process until `done(samples so far)` (each line is flushed as it
    is taken), or `timeout` seconds: a condition, not a duration, so that a busy host only makes the
    test slower. Stops both; returns every sample, the ones after the condition included."""
    w = subprocess.Popen([*MODULE, "watch", str(watched.pid), *flags], cwd=LAB_ROOT,
                         stdout=subprocess.PIPE, text=True, env={**os.environ, **(env or {})})
    timer = threading.Timer(timeout, w.terminate)
    timer.start()
    samples = []
    try:
        for line in w.stdout:
            samples.append(json.loads(line))
            if done(samples):
                break
    finally:
        timer.cancel()
        w.terminate()
        rest, _ = w.communicate(timeout=10)
        watched.kill()
        watched.wait()
    assert w.returncode == 0
    return samples + [json.loads(x) for x in rest.splitlines()]


def test_watch_samples_until_terminated():
    child = subprocess.Popen(["sleep", "60"])
    samples = watch_until(lambda got: len(got) >= 4, child, "--every", "0.2")
    assert len(samples) >= 4, samples
    assert all({"pid": child.pid, "comm": "sleep"} in s["processes"] for s in samples)
    assert [s["t"] for s in samples] == sorted(s["t"] for s in samples)


def test_watch_sees_processes_that_live_some_milliseconds(tmp_path, host_cgroup):
    """As a healthcheck's: a 30 ms process every ~0.4 s in the cgroup, named `blip`."""
    cg, env = host_cgroup
    blip = tmp_path / "blip"
    blip.symlink_to(shutil.which("sleep"))
    loop = subprocess.Popen(["sh", "-c", f"while :; do {blip} 0.03; sleep 0.4; done"])
    (cg / "cgroup.procs").write_text(str(loop.pid))  # its children start in the cgroup
    def seen(comm, samples):
        return any(p["comm"] == comm for s in samples for p in s.get("processes", []))
    samples = watch_until(lambda got: seen("blip", got), loop, env=env)
    f = tmp_path / "samples.jsonl"
    f.write_text("".join(json.dumps(s) + "\n" for s in samples))
    summary = json.loads(run("summary", "--database", "postgres", str(f)).stdout)
    assert summary["samples"] == len(samples)
    assert "blip" in summary["foreign"] and "sh" in summary["foreign"], summary


def test_the_probe_s_watch_sees_processes_that_live_some_milliseconds(tmp_path, host_cgroup):
    """The probe's watch (a thread of the driver) on the same healthcheck-like blip; stopped, the
    thread is gone and the samples go through the probe's summary."""
    cg, env = host_cgroup
    blip = tmp_path / "blip"
    blip.symlink_to(shutil.which("sleep"))
    loop = subprocess.Popen(["sh", "-c", f"while :; do {blip} 0.03; sleep 0.4; done"])
    probe = LocalProbe(cgroup_root=env.get("JSONBENCH_CGROUP_ROOT"))
    try:
        (cg / "cgroup.procs").write_text(str(loop.pid))
        h = probe.process_watch_start(loop.pid)
        deadline = time.time() + 60
        while time.time() < deadline and not any(p["comm"] == "blip" for s in list(h.samples)
                                                 for p in s.get("processes", [])):
            time.sleep(0.2)
        t = time.time()
        samples = probe.process_watch_stop(h)
        assert time.time() - t < 2 and not h.thread.is_alive()
    finally:
        loop.kill()
        loop.wait()
    assert samples and all(s["cgroup"] == str(cg) for s in samples)
    assert [s["t"] for s in samples] == sorted(s["t"] for s in samples)
    summary = probe.process_summary("postgres", False, samples)
    assert summary["samples"] == len(samples) and summary["server"] == ["postgres"]
    assert "blip" in summary["foreign"] and "sh" in summary["foreign"], summary


def test_the_probe_s_watch_of_a_gone_process_is_error_samples_and_a_reason(tmp_path):
    probe = LocalProbe(proc=str(tmp_path), cgroup_root=str(tmp_path))
    h = probe.process_watch_start(424242)
    deadline = time.time() + 30
    while not h.samples and time.time() < deadline:
        time.sleep(0.1)
    samples = probe.process_watch_stop(h)
    assert samples and "424242" in samples[0]["error"]
    summary = probe.process_summary("postgres", False, samples)
    assert summary["samples"] == 0 and summary["foreign"] is None and "424242" in summary["reason"]


def test_the_probe_s_summary_without_a_watch_and_for_an_unknown_database(capsys):
    probe = LocalProbe()
    assert probe.process_watch_stop(None) == []
    assert "none taken" in probe.process_summary("mongodb", True, [])["reason"]
    assert probe.process_summary("mongodb", True, [])["server"] == ["secantusd-py"]
    assert probe.process_summary("oracle", False, []) is None
    assert "database 'oracle' has no manifest" in capsys.readouterr().err

