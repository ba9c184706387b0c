"""Parses `perf stat -x,` output (with or without -G cgroup columns, optionally -I intervals)."""
import re

NOT_COUNTED = ("<not supported>", "<not counted>")
_NUMBER = re.compile(r"^-?\d+(\.\d+)?$")


def parse(text):
    """{event: {"value": float|None, "unit": str, "status": "counted"|"not supported"|"not counted"}};
    the same event on several lines (cgroups, CPUs, intervals) is summed."""
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
        entry = events.setdefault(event, {"value": None, "unit": unit, "status": "counted"})
        if value in NOT_COUNTED:
            if entry["value"] is None:
                entry["status"] = value.strip("<>")
            continue
        try:
            v = float(value)
        except ValueError:
            continue
        entry["value"] = (entry["value"] or 0.0) + v
        entry["status"] = "counted"
    return events


def instructions(events):
    """(value or None, event name used): user-space instructions preferred, as in the original study."""
    for name in ("instructions:u", "instructions"):
        if name in events:
            return events[name]["value"], name
    return None, None
