"""A phase's CPU (results.json runs[] `cpu`): cAdvisor's user and system seconds of the database
service (figures/resources.py), what perf stat counted (bench/perfstat.py), the cgroup CPU the lab
read at the window marks, and the nanosecond counter gross and net of the idle rate."""
from ..bench import perfstat
from . import resources

NO_USAGE = {"gross_s": None, "net_s": None, "idle": None, "reason": "no cpu_usage in the metrics export"}


def cgroup_seconds(phase):
    """The cgroup CPU seconds between the window marks (phase file `cgroup_cpu_seconds`), None without."""
    c = phase.get("cgroup_cpu_seconds") or {}
    try:
        return float(c["end"]) - float(c["start"])
    except (KeyError, TypeError, ValueError):
        return None


def counted(ph):
    """perf stat's counts of the phase (perfstat.counted)."""
    return perfstat.counted(ph.perfstat_text(), (ph.doc() or {}).get("perf") or {})


def of_phase(ph, service):
    """The cpu block, in results.json's order."""
    phase = ph.doc() or {}
    perf = phase.get("perf") or {}
    c = counted(ph)
    events, instructions, event = c["events"], c["instructions"], c["event"]
    user, system = resources.cpu_seconds(ph.metrics(), service)
    return {
        "user_s": user,
        "system_s": system,
        "instructions": instructions,
        "instructions_event": event,
        # perf counts `instructions:u` (lab/driver/probe.py): what the kernel ran for the server is not in it
        "instructions_scope": ("user mode only (instructions:u): instructions the kernel ran for the server "
                               "(system calls, network, I/O) are not counted") if instructions is not None
                              and str(event or "").endswith(":u") else None,
        # why instructions is null: not counted on this host, or only a scaled estimate
        "instructions_reason": c["reason"],
        # perf multiplexed instructions: {running_pct, estimate, reason}; null when counted throughout
        "instructions_scaled": c["scaled"],
        "hardware_counters": perf.get("hardware_counters", instructions is not None),
        "perf_events": {k: v["value"] for k, v in events.items()},
        "perf_units": {k: v["unit"] for k, v in events.items() if v["unit"]},
        # per counted event, the share of its enabled time it ran (perf stat's percentage column):
        # below 100 its perf_events value is perf's scaled estimate
        "perf_running_pct": {k: v["running_pct"] for k, v in events.items() if v.get("running_pct") is not None},
        "perf_reason": perf.get("reason"),
        "cgroup_cpu_s": cgroup_seconds(phase),
        # container_cpu_usage_seconds_total (ns) over the window, and net of the idle rate read
        # just before the clients started (analysis/collect/idle.py); null with the reason
        "usage": usage(ph),
    }


def usage(ph):
    return (ph.metrics() or {}).get("cpu_usage") or dict(NO_USAGE)


def total_s(cpu):
    """user + system seconds of the cpu block, None when either is missing."""
    return None if cpu["user_s"] is None or cpu["system_s"] is None else cpu["user_s"] + cpu["system_s"]
