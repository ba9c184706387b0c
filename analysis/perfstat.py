"""Parses `perf stat -x,` output (with or without -G cgroup columns, optionally -I intervals).

Hybrid CPUs (Intel P+E cores) report a hardware event once per PMU, as `cpu_core/instructions:u/`
and `cpu_atom/instructions:u/`: each is kept under its own name (the per-PMU figure) and their sum
under the plain name (`instructions:u`), which is what the lab reports."""
import re

NOT_COUNTED = ("<not supported>", "<not counted>")
_NUMBER = re.compile(r"^-?\d+(\.\d+)?$")
# perf writes a PMU-qualified event as pmu/event/ (perf-list(1)); the PMU is a sysfs device name.
_PMU_EVENT = re.compile(r"^([A-Za-z0-9_.-]+)/([^/]+)/$")


def _add(events, event, value, unit):
    entry = events.setdefault(event, {"value": None, "unit": unit, "status": "counted"})
    if value in NOT_COUNTED:
        if entry["value"] is None:
            entry["status"] = value.strip("<>")
        return
    try:
        v = float(value)
    except ValueError:
        return
    entry["value"] = (entry["value"] or 0.0) + v
    entry["status"] = "counted"


def parse(text):
    """{event: {"value": float|None, "unit": str, "status": "counted"|"not supported"|"not counted"}};
    the same event on several lines (cgroups, CPUs, intervals, PMUs) is summed. A PMU-qualified
    event also keeps its own entry, and the combined entry lists its PMUs under "pmus"."""
    events = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        f = line.split(",")
        # -I adds a leading timestamp: value is then the 2nd field
        if len(f) >= 4 and _NUMBER.match(f[0]) and (_NUMBER.match(f[1]) or f[1] in NOT_COUNTED):
            f = f[1:]
        if len(f) < 3 or not f[2]:
            continue
        value, unit, event = f[0], f[1], f[2]
        _add(events, event, value, unit)
        m = _PMU_EVENT.match(event)
        if m:
            _add(events, m.group(2), value, unit)
            pmus = events[m.group(2)].setdefault("pmus", [])
            if m.group(1) not in pmus:
                pmus.append(m.group(1))
    return events


def instructions(events):
    """(value or None, event name used): user-space instructions preferred, as in the original study."""
    for name in ("instructions:u", "instructions"):
        if name in events:
            return events[name]["value"], name
    return None, None
