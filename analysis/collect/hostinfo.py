"""`host-info`: the facts about the host a result depends on, gathered at run time."""
import os
import platform
import shutil
import subprocess

from ..bench import perfstat
from . import disk_devices, thp


def _run(cmd, timeout=15):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, str(e)
    return p, None


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.lower().startswith(("model name", "hardware", "cpu model")):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def memory_bytes():
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def cgroup_version():
    if os.path.exists("/sys/fs/cgroup/cgroup.controllers"):
        return "v2"
    if os.path.exists("/sys/fs/cgroup/unified/cgroup.controllers"):
        return "v1 (hybrid)"
    if os.path.isdir("/sys/fs/cgroup/cpu") or os.path.isdir("/sys/fs/cgroup/cpuacct"):
        return "v1"
    return None


def docker_versions():
    out = {"docker_client": None, "docker_server": None, "compose": None}
    if not shutil.which("docker"):
        return out
    p, _ = _run(["docker", "version", "--format", "{{.Client.Version}}|{{.Server.Version}}"])
    if p is not None and p.stdout.strip():
        client, _, server = p.stdout.strip().partition("|")
        out["docker_client"] = client or None
        out["docker_server"] = server or None
    p, _ = _run(["docker", "compose", "version", "--short"])
    if p is not None and p.returncode == 0:
        out["compose"] = p.stdout.strip() or None
    return out


def cgroup_driver():
    """The engine's cgroup driver (cgroupfs, systemd), as `docker info` says it, or None."""
    if not shutil.which("docker"):
        return None
    p, _ = _run(["docker", "info", "--format", "{{.CgroupDriver}}"])
    return (p.stdout.strip() or None) if p is not None and p.returncode == 0 else None


def hardware_counters():
    """Whether `perf stat -e instructions true` counts (VMs often have no PMU)."""
    if not shutil.which("perf"):
        return {"available": False, "reason": "perf is not installed"}
    p, err = _run(["perf", "stat", "-x,", "-e", "instructions", "true"])
    if p is None:
        return {"available": False, "reason": f"perf stat failed: {err}"}
    events = perfstat.parse(p.stderr)
    value, _ = perfstat.instructions(events)
    if value is not None:
        return {"available": True, "reason": None}
    status = events.get("instructions", {}).get("status") or (p.stderr.strip().splitlines() or ["no output"])[-1]
    return {"available": False, "reason": f"perf stat -e instructions: {status}"}


def gather():
    uname = platform.uname()
    return {
        "hostname": uname.node,
        "kernel": uname.release,
        "os": _os_release(),
        "arch": uname.machine,
        "cpu_model": cpu_model(),
        "cores": os.cpu_count(),
        "memory_bytes": memory_bytes(),
        "cgroup_version": cgroup_version(),
        "cgroup_driver": cgroup_driver(),
        **docker_versions(),
        "hardware_counters": hardware_counters(),
        "transparent_hugepages": thp.gather(),
        "disk_devices": disk_devices.gather(),
    }


def _os_release():
    try:
        with open("/etc/os-release") as f:
            for line in f:
                if line.startswith("PRETTY_NAME="):
                    return line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    return None
