"""lab/driver/probe_box.py's ContainerProbe (the probe container, issue 27) side by side with
LocalProbe, against real Docker, real perf and a real busy container (a shell loop at a 0.5-CPU
quota): the same readings through the box as in-process. The box is the lab's probe image
(lab/probe/build.sh), run as the driver runs it; it is gone after close(), also when a test fails
(the fixture's finalizer), and after a failed start."""
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from analysis.bench import perfstat
from analysis.collect import hostinfo
from lab.driver.probe import LocalProbe
from lab.driver.probe_box import ContainerProbe, ProbeError
from lab_images import postgres_image

LAB_ROOT = Path(__file__).resolve().parents[2]
BUSY_BASE = "jsonbench-standin/debian:bookworm"
PROJECT = f"jsonbench-test-probe-{os.getpid()}"

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("docker"),
                                reason="needs root (LocalProbe's perf side by side) and docker")


def box_containers(project=PROJECT):
    return subprocess.run(["docker", "ps", "-aq", "--filter", f"label=com.docker.compose.project={project}"],
                          capture_output=True, text=True, check=True).stdout.split()


@pytest.fixture(scope="module")
def image():
    r = subprocess.run([str(LAB_ROOT / "lab/probe/build.sh")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


@pytest.fixture(scope="module")
def busy():
    """(pid, id) of a container spinning at a 0.5-CPU quota: any image with a shell."""
    img = BUSY_BASE if subprocess.run(["docker", "image", "inspect", BUSY_BASE], capture_output=True).returncode == 0 \
        else postgres_image()
    assert img, f"neither {BUSY_BASE} nor a postgres image is present (lab/standins/build.sh)"
    cid = subprocess.run(["docker", "run", "-d", "--cpus", "0.5", "--memory", "256m", "--entrypoint", "sh", img, "-c",
                          "while :; do :; done"], capture_output=True, text=True, check=True).stdout.strip()
    try:
        pid = int(subprocess.run(["docker", "inspect", "-f", "{{.State.Pid}}", cid], capture_output=True, text=True,
                                 check=True).stdout.strip())
        yield pid, cid
    finally:
        subprocess.run(["docker", "rm", "-f", cid], capture_output=True)


@pytest.fixture(scope="module")
def box(image):
    probe = ContainerProbe(image, PROJECT)
    try:
        yield probe
    finally:
        probe.close()
        assert box_containers() == [], "the probe container outlived close()"


def test_the_box_is_its_own_labelled_container_whose_cpu_is_readable(box, busy):
    pid, cid = busy
    assert box.container_id and box.container_id != cid
    assert box_containers() == [box.container_id[:12]]
    # its own cgroup (not the measured container's), its CPU read like a database's
    assert box.container_id in box.perf_cgroup(box.pid)
    assert cid not in box.perf_cgroup(box.pid)
    own = box.cgroup_cpu_seconds(box.pid)
    assert isinstance(own, float) and own > 0
    assert box.describe() == {"kind": "container", "image": box.image, "container_id": box.container_id}


def test_cgroup_cpu_seconds_through_the_box_lie_between_two_local_readings(box, busy):
    """cpuacct.usage only grows: the box's reading, taken between two in-process ones, lies between
    them (the tolerance is the time between the two local reads, a few ms of a 0.5-CPU loop)."""
    pid, _ = busy
    local = LocalProbe()
    marks = []
    for _ in range(2):
        a = local.cgroup_cpu_seconds(pid)
        b = box.cgroup_cpu_seconds(pid)
        c = local.cgroup_cpu_seconds(pid)
        assert a <= b <= c, (a, b, c)
        assert c - a < 0.1, "two local reads around one box call span more than 0.1 CPU-s"
        marks.append((a, b, c))
        time.sleep(2)
    local_delta, box_delta = marks[1][0] - marks[0][0], marks[1][1] - marks[0][1]
    assert local_delta > 0.5
    assert abs(box_delta - local_delta) <= 0.1, (box_delta, local_delta)


def test_the_memory_limit_through_the_box_is_the_local_reading_and_docker_s(box, busy):
    pid, _ = busy
    got = box.cgroup_memory_limit(pid)
    assert got == LocalProbe().cgroup_memory_limit(pid) and got["bytes"] == 256 * 1024 * 1024, got


def test_perf_stat_counts_task_clock_in_both_or_both_say_why_not(box, busy, tmp_path):
    pid, _ = busy
    local = LocalProbe()
    reason = local.perf_unavailable_reason()
    assert box.perf_unavailable_reason() == reason
    if reason:
        return  # both said the same reason; nothing to count here
    cg = local.perf_cgroup(pid)
    assert box.perf_cgroup(pid) == cg
    assert box.perf_stat_events() == local.perf_stat_events()
    before = local.cgroup_cpu_seconds(pid)
    h_local = local.perf_stat_start(cg, str(tmp_path / "local.csv"))
    h_box = box.perf_stat_start(cg, str(tmp_path / "box.csv"))
    time.sleep(3)
    local.perf_stat_stop(h_local)
    box.perf_stat_stop(h_box)
    spent = local.cgroup_cpu_seconds(pid) - before
    for name in ("local.csv", "box.csv"):
        events = perfstat.parse((tmp_path / name).read_text())
        task_s = events["task-clock"]["value"] / 1000
        # counted, and only the container's: within what its cgroup spent over both perf runs
        assert 0.3 < task_s <= spent * 1.02 + 0.01, (name, task_s, spent)
    assert sorted(os.listdir(tmp_path)) == ["box.csv", "local.csv"]


def test_perf_record_through_the_box_leaves_a_profile_at_the_given_path(box, busy, tmp_path):
    pid, _ = busy
    if box.perf_unavailable_reason():
        assert box.perf_unavailable_reason() == LocalProbe().perf_unavailable_reason()
        return
    out = tmp_path / "p1.perf"
    h = box.perf_record_start(box.perf_cgroup(pid), 0, 1, str(out))
    box.perf_record_wait(h)
    profile = box.perf_profile(str(out))
    assert profile["file"] == "p1.perf" and profile["reason"] is None and profile["samples"] > 100, profile
    text = out.read_text()
    assert text.startswith("sh ") and f" {pid}" in text.splitlines()[0], text[:200]
    # nothing else reached the folder, and the box kept nothing (its files are discarded)
    assert os.listdir(tmp_path) == ["p1.perf"]
    r = subprocess.run(["docker", "exec", box.name, "find", "/probe-files", "-type", "f"], capture_output=True, text=True)
    assert r.stdout.strip() == ""
    # a cancelled one: no file, the reason said
    h = box.perf_record_start(box.perf_cgroup(pid), 30, 1, str(tmp_path / "p2.perf"))
    box.perf_record_cancel(h)
    profile = box.perf_profile(str(tmp_path / "p2.perf"))
    assert profile["file"] is None and profile["reason"] == "cancelled before the recording ended"
    assert not (tmp_path / "p2.perf").exists()


def test_the_process_watch_through_the_box_names_the_loop(box, busy):
    pid, cid = busy
    h = box.process_watch_start(pid)
    time.sleep(2.5)
    samples = box.process_watch_stop(h)
    assert len(samples) >= 1
    assert all({"pid": pid, "comm": "sh"} in s["processes"] for s in samples), samples
    assert cid in samples[0]["cgroup"]


def test_host_facts_of_the_box_are_the_hosts(box):
    facts = box.call("host_facts")
    here = hostinfo.gather()
    for key in ("kernel", "cgroup_version", "hostname", "arch", "cores", "memory_bytes", "cpu_model"):
        assert facts[key] == here[key], key
    merged = box.host_facts()
    assert set(merged) == set(here)


def test_an_error_comes_back_with_the_probes_message_and_the_box_keeps_answering(box, busy):
    with pytest.raises(ProbeError, match=r"probe process_watch_stop: KeyError: 999"):
        box.call("process_watch_stop", {"handle": 999})
    with pytest.raises(ProbeError, match=r"unknown method 'rm'; allowed: discard, cgroup_cpu_seconds"):
        box.call("rm", "/")
    with pytest.raises(ProbeError, match=r"/etc/x: the probe writes only under /probe-files"):
        box.call("perf_stat_start", "docker/x", "/etc/x")
    assert box.cgroup_cpu_seconds(busy[0]) > 0
    calls = box.take_call_latencies()
    assert [c["method"] for c in calls[-4:]] == ["process_watch_stop", "rm", "perf_stat_start", "cgroup_cpu_seconds"]
    assert all(0 <= c["latency_s"] < 5 for c in calls)
    assert box.take_call_latencies() == []


def test_a_box_that_cannot_start_says_why_and_leaves_nothing(image):
    project = PROJECT + "-bad"
    with pytest.raises(ProbeError, match="the probe box ended"):
        ContainerProbe("jsonbench/probe:no-such-tag", project)
    assert box_containers(project) == []


def test_close_ends_the_box_and_a_closed_probe_says_so(image):
    project = PROJECT + "-close"
    probe = ContainerProbe(image, project)
    try:
        assert len(box_containers(project)) == 1
    finally:
        probe.close()
    assert box_containers(project) == []
    with pytest.raises(ProbeError, match="closed"):
        probe.cgroup_cpu_seconds(1)


def test_an_unknown_probe_setting_is_refused_before_anything_starts():
    env = dict(os.environ, PROBE="remote", PYTHONPATH=str(LAB_ROOT))
    r = subprocess.run([sys.executable, "-m", "lab.driver", "validate", "nothing-here"], cwd=LAB_ROOT, env=env,
                       capture_output=True, text=True)
    assert r.returncode == 2
    assert "PROBE='remote': allowed values are local, container" in r.stderr


def test_compose_down_remove_orphans_removes_the_box(image, tmp_path):
    """./runme.sh down (compose down --remove-orphans, the project's files) removes a box a killed
    driver left behind: the box carries the labels compose takes for an orphan of the project."""
    from lab.driver.engine import Engine
    from lab.driver.lab import make_probe
    project = PROJECT + "-down"
    env_file = tmp_path / "env"
    # .env.example with its required passwords filled: compose interpolates every service on down
    env_file.write_text("".join(line.split("=")[0] + "=x\n" if line.split("=")[0].endswith("PASSWORD") else line
                                for line in (LAB_ROOT / ".env.example").read_text().splitlines(keepends=True)))
    engine = Engine(str(LAB_ROOT), project, True, os.environ)
    probe = make_probe({**os.environ, "PROBE": "container", "PROBE_IMAGE": image}, engine)
    try:
        assert len(box_containers(project)) == 1
        args = [w if w != os.path.join(str(LAB_ROOT), ".env") else str(env_file) for w in engine.compose_args()]
        r = subprocess.run([*args, "-p", project, "--profile", "client", "down", "--remove-orphans"],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        # compose says Removed while the engine may still list it a moment (its --rm removal under way)
        deadline = time.time() + 10
        while box_containers(project) and time.time() < deadline:
            time.sleep(0.2)
        assert box_containers(project) == [], r.stderr
    finally:
        probe.close()


def test_a_driver_killed_outright_leaves_no_box(image):
    """SIGKILL gives the driver no `finally`: the box still goes, because its stdin (the driver's
    pipe) ends, its python exits and --rm removes it."""
    project = PROJECT + "-kill"
    code = ("import sys, time; from lab.driver.probe_box import ContainerProbe; "
            f"p = ContainerProbe({image!r}, {project!r}); print('up', flush=True); time.sleep(600)")
    driver = subprocess.Popen([sys.executable, "-c", code], cwd=LAB_ROOT, stdout=subprocess.PIPE, text=True,
                              env=dict(os.environ, PYTHONPATH=str(LAB_ROOT)))
    try:
        assert driver.stdout.readline().strip() == "up"
        assert len(box_containers(project)) == 1
        driver.kill()
        driver.wait()
        deadline = time.time() + 20
        while box_containers(project) and time.time() < deadline:
            time.sleep(0.2)
        assert box_containers(project) == []
    finally:
        driver.kill()
        for cid in box_containers(project):
            subprocess.run(["docker", "rm", "-f", cid], capture_output=True)


def test_process_io_through_the_box_reads_the_containers_processes_as_locally(box, busy):
    """/proc/<pid>/io of the container's processes (read I/O, analysis/figures/read_io.py): the box
    reads the same processes, with counters that only grow, as the in-process probe."""
    pid, _ = busy
    local = LocalProbe()
    a = local.process_io(pid)
    b = box.process_io(pid)
    c = local.process_io(pid)
    assert "error" not in b, b
    assert [p["pid"] for p in b["processes"]] == [p["pid"] for p in a["processes"]] == [p["pid"] for p in c["processes"]]
    for pa, pb, pc in zip(a["processes"], b["processes"], c["processes"]):
        assert pb["start_ticks"] == pa["start_ticks"]
        for f in ("read_bytes", "rchar"):
            assert pa[f] <= pb[f] <= pc[f], (f, pa, pb, pc)
