"""lab/driver/probe.py's cgroup readings (perf_cgroup, cgroup_cpu_seconds) on cgroup v1 and v2 file
layouts (JSONBENCH_PROC / JSONBENCH_CGROUP_ROOT-style roots) and on a real container of this host
spinning, against its cgroup's own file; and its host_facts, analysis's host-info."""
import glob
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lab.driver.probe import LocalProbe
from lab_images import STANDIN, official_postgres, postgres_image

V1_CGROUP = ("10:perf_event:/docker/abc\n8:pids:/docker/abc\n4:memory:/docker/abc\n"
             "2:cpuacct:/docker/abc\n1:cpu:/docker/abc\n0::/docker/abc\n")
V2_CGROUP = "0::/system.slice/docker-abc.scope\n"


def write(path: Path, text: str):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def layout(tmp_path, cgroup_text, unified):
    proc, root = tmp_path / "proc", tmp_path / "cgroup"
    write(proc / "7" / "cgroup", cgroup_text)
    root.mkdir(parents=True, exist_ok=True)
    if unified:  # what only a cgroup2 root holds
        write(root / "cgroup.controllers", "cpuset cpu io memory pids\n")
    return LocalProbe(proc=str(proc), cgroup_root=str(root)), root


def test_v2_perf_cgroup_is_the_unified_path_without_its_slash(tmp_path):
    probe, _ = layout(tmp_path, V2_CGROUP, unified=True)
    assert probe.perf_cgroup(7) == "system.slice/docker-abc.scope"


def test_v1_perf_cgroup_is_the_perf_event_hierarchy_s(tmp_path):
    # the hybrid host's 0:: line says /docker/abc too: v1's answer must come from perf_event
    probe, _ = layout(tmp_path, V1_CGROUP.replace("10:perf_event:/docker/abc", "10:perf_event:/pe/abc"),
                      unified=False)
    assert probe.perf_cgroup(7) == "pe/abc"


def test_no_perf_event_line_or_no_process_is_empty(tmp_path):
    probe, _ = layout(tmp_path, "4:memory:/docker/abc\n0::/docker/abc\n", unified=False)
    assert probe.perf_cgroup(7) == ""
    assert probe.perf_cgroup(424242) == ""


def test_v2_cpu_seconds_are_cpu_stat_usage_usec(tmp_path):
    probe, root = layout(tmp_path, V2_CGROUP, unified=True)
    write(root / "system.slice/docker-abc.scope/cpu.stat",
          "usage_usec 12345678\nuser_usec 10000000\nsystem_usec 2345678\n")
    assert probe.cgroup_cpu_seconds(7) == 12.345678


@pytest.mark.parametrize("mount", ["cpuacct", "cpu,cpuacct"])
def test_v1_cpu_seconds_are_cpuacct_usage_in_either_mount(tmp_path, mount):
    line = "2:cpuacct:/docker/abc\n" if mount == "cpuacct" else "2:cpu,cpuacct:/docker/abc\n"
    probe, root = layout(tmp_path, "4:memory:/docker/other\n" + line, unified=False)
    write(root / mount / "docker/abc/cpuacct.usage", "5000000001\n")
    assert probe.cgroup_cpu_seconds(7) == 5.000000


def test_unreadable_cpu_seconds_are_none(tmp_path):
    probe, _ = layout(tmp_path, V2_CGROUP, unified=True)
    assert probe.cgroup_cpu_seconds(7) is None  # no cpu.stat
    assert probe.cgroup_cpu_seconds(424242) is None  # no process
    probe1, _ = layout(tmp_path / "v1", "4:memory:/docker/abc\n", unified=False)
    assert probe1.cgroup_cpu_seconds(7) is None  # no cpuacct line


def test_v1_memory_limit_is_the_memory_hierarchy_s_limit_in_bytes(tmp_path):
    # the memory line names its own path: the limit is read there, not at the cpu hierarchy's
    probe, root = layout(tmp_path, V1_CGROUP.replace("4:memory:/docker/abc", "4:memory:/docker/mem"), unified=False)
    write(root / "memory/docker/mem/memory.limit_in_bytes", "1073741824\n")
    assert probe.cgroup_memory_limit(7) == {"bytes": 1073741824, "file": "memory.limit_in_bytes", "cgroup": "v1",
                                            "reason": None}
    # no limit: the kernel's largest page count in bytes
    write(root / "memory/docker/mem/memory.limit_in_bytes", "9223372036854771712\n")
    assert probe.cgroup_memory_limit(7) == {"bytes": None, "file": "memory.limit_in_bytes", "cgroup": "v1",
                                            "reason": "no limit (memory.limit_in_bytes is 9223372036854771712)"}


def test_v2_memory_limit_is_memory_max(tmp_path):
    probe, root = layout(tmp_path, V2_CGROUP, unified=True)
    write(root / "system.slice/docker-abc.scope/memory.max", "805306368\n")
    assert probe.cgroup_memory_limit(7) == {"bytes": 805306368, "file": "memory.max", "cgroup": "v2", "reason": None}
    write(root / "system.slice/docker-abc.scope/memory.max", "max\n")
    assert probe.cgroup_memory_limit(7) == {"bytes": None, "file": "memory.max", "cgroup": "v2",
                                            "reason": "no limit (memory.max is max)"}


def test_an_unreadable_memory_limit_is_null_with_the_reason(tmp_path):
    probe, _ = layout(tmp_path, V2_CGROUP, unified=True)
    assert probe.cgroup_memory_limit(7)["reason"] == "memory.max of its cgroup is not readable"
    assert probe.cgroup_memory_limit(424242)["reason"] == "no process 424242 (its /proc/424242/cgroup is not readable)"
    probe1, _ = layout(tmp_path / "v1", "2:cpuacct:/docker/abc\n", unified=False)
    assert probe1.cgroup_memory_limit(7) == {"bytes": None, "file": "memory.limit_in_bytes", "cgroup": "v1",
                                             "reason": "process 7 is in no memory cgroup"}


def cgroup_file_seconds(cid):
    """The container's CPU seconds read straight from its cgroup's file, found by its id."""
    v2 = glob.glob(f"/sys/fs/cgroup/**/*{cid}*/cpu.stat", recursive=True) if \
        os.path.isfile("/sys/fs/cgroup/cgroup.controllers") else []
    if v2:
        usec = next(l.split()[1] for l in Path(v2[0]).read_text().splitlines() if l.startswith("usage_usec "))
        return int(usec) / 1e6
    v1 = glob.glob(f"/sys/fs/cgroup/cpu*acct*/**/{cid}*/cpuacct.usage", recursive=True)
    assert v1, f"no cgroup file for container {cid}"
    return int(Path(v1[0]).read_text()) / 1e9


def running_container(*run_args):
    """A container of the PostgreSQL image started with run_args (docker run's options, then the image's
    place is {image}), as (id, host pid); removed by id afterwards."""
    if os.geteuid() != 0 or not shutil.which("docker"):
        pytest.skip("needs root and docker")
    image = postgres_image()
    if image is None:
        pytest.skip(f"neither {official_postgres()} nor {STANDIN} is present (lab/standins/build.sh)")
    args = [image if a == "{image}" else a for a in run_args]
    cid = subprocess.run(["docker", "run", "-d", *args], capture_output=True, text=True, check=True).stdout.strip()
    try:
        pid = int(subprocess.run(["docker", "inspect", "-f", "{{.State.Pid}}", cid], capture_output=True,
                                 text=True, check=True).stdout.strip())
        yield cid, pid
    finally:
        subprocess.run(["docker", "rm", "-f", "-v", cid], capture_output=True)


@pytest.fixture
def spinning_container():
    yield from running_container("--cpus", "0.5", "--entrypoint", "sh", "{image}", "-c", "while :; do :; done")


def test_a_spinning_container_s_cpu_seconds_grow_and_are_its_cgroup_file_s(spinning_container):
    cid, pid = spinning_container
    probe = LocalProbe()
    assert cid[:12] in probe.perf_cgroup(pid)
    before = probe.cgroup_cpu_seconds(pid)
    deadline = time.time() + 60
    while time.time() < deadline:  # until it has run 0.3 s more: a condition, not a duration
        time.sleep(0.2)
        now = probe.cgroup_cpu_seconds(pid)
        if now - before >= 0.3:
            break
    assert now - before >= 0.3, (before, now)
    # read, then the file, then read: the file's figure lies between the two probe readings
    a = probe.cgroup_cpu_seconds(pid)
    f = cgroup_file_seconds(cid)
    b = probe.cgroup_cpu_seconds(pid)
    assert a <= f + 1e-6 and f <= b + 1e-6, (a, f, b)


def test_a_container_s_memory_limit_is_the_one_docker_set(limited_container):
    """docker run --memory 300m --memory-swap 300m (as compose's mem_limit = memswap_limit): the probe
    reads 314572800 bytes from the container's own cgroup, on whichever version this host runs."""
    _, pid = limited_container
    got = LocalProbe().cgroup_memory_limit(pid)
    version = "v2" if os.path.isfile("/sys/fs/cgroup/cgroup.controllers") else "v1"
    assert got == {"bytes": 300 * 1024 * 1024, "file": {"v1": "memory.limit_in_bytes", "v2": "memory.max"}[version],
                   "cgroup": version, "reason": None}


@pytest.fixture
def limited_container():
    yield from running_container("--memory", "300m", "--memory-swap", "300m", "--entrypoint", "sleep", "{image}", "600")


def test_the_probe_s_host_facts_are_analysis_host_info_s():
    facts = LocalProbe().host_facts()
    cli = subprocess.run([sys.executable, "-m", "analysis", "host-info"], capture_output=True, text=True,
                         cwd=Path(__file__).resolve().parents[2], check=True)
    assert set(facts) == set(json.loads(cli.stdout)) and facts["cores"] == os.cpu_count()
