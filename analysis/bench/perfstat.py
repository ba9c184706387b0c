"""Parses `perf stat -x,` output (with or without -G cgroup columns, optionally -I intervals).

Each line is perf-stat(1)'s CSV FORMAT: value, unit, event, [cgroup,] run time (ns), percentage of
measurement time (the share of the time the event was enabled that its counter ran), metric value,
metric unit. Below 100% perf multiplexed the counter (perf record holding one, more events than the
PMU has counters) and the value it printed is a scaled estimate (count x enabled / running), not a
count: `running_pct` keeps the share, `scaled` says so for the figure the lab reports.

Hybrid CPUs (Intel P+E cores) report a hardware event once per PMU, as `cpu_core/instructions:u/`
and `cpu_atom/instructions:u/`: each is kept under its own name (the per-PMU figure) and their sum
under the plain name (`instructions:u`), which is what the lab reports."""
import re

NOT_COUNTED = ("<not supported>", "<not counted>")
_NUMBER = re.compile(r"^-?\d+(\.\d+)?$")
# perf writes a PMU-qualified event as pmu/event/ (perf-list(1)); the PMU is a sysfs device name.
_PMU_EVENT = re.compile(r"^([A-Za-z0-9_.-]+)/([^/]+)/$")


def _float(text):
    return float(text) if _NUMBER.match(text or "") else None


def _add(events, event, value, unit, run_ns, pct):
    entry = events.setdefault(event, {"value": None, "unit": unit, "status": "counted", "running_pct": None,
                                      "run_ns": 0.0, "enabled_ns": 0.0})
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
    if run_ns is not None and pct:
        # the time the event was enabled, from its running time and share; summed over lines
        # (cgroups, intervals, PMUs), the sum's share is their running time over their enabled time
        entry["run_ns"] += run_ns
        entry["enabled_ns"] += run_ns * 100.0 / pct
        entry["running_pct"] = (100.0 if entry["run_ns"] == entry["enabled_ns"]
                                else 100.0 * entry["run_ns"] / entry["enabled_ns"])


def _run_and_pct(rest):
    """(run time ns, percentage) from the fields after the event: [cgroup,] run time, percentage, ..."""
    if rest and not _NUMBER.match(rest[0]):  # -G: the cgroup column comes first
        rest = rest[1:]
    return (_float(rest[0]) if len(rest) > 0 else None), (_float(rest[1]) if len(rest) > 1 else None)


def parse(text):
    """{event: {"value": float|None, "unit": str, "status": "counted"|"not supported"|"not counted",
    "running_pct": float|None (share of the enabled time the counter ran; None when not counted),
    "run_ns", "enabled_ns"}}; the same event on several lines (cgroups, CPUs, intervals, PMUs) is
    summed. A PMU-qualified event also keeps its own entry, and the combined entry lists its PMUs
    under "pmus"."""
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
        run_ns, pct = _run_and_pct(f[3:])
        _add(events, event, value, unit, run_ns, pct)
        m = _PMU_EVENT.match(event)
        if m:
            _add(events, m.group(2), value, unit, run_ns, pct)
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


def scaled(events, name):
    """None when event `name` was counted the whole time it was enabled (or not counted at all);
    else {running_pct, estimate (perf's scaled value), reason}: an estimate, not a count."""
    e = (events or {}).get(name) or {}
    pct = e.get("running_pct")
    if e.get("status") != "counted" or pct is None or pct >= 100.0:
        return None
    return {"running_pct": pct, "estimate": e["value"],
            "reason": (f"{name} ran {pct:.3g}% of the time it was enabled (perf multiplexed the counter, e.g. with "
                       f"perf record's hardware event): perf printed a scaled estimate ({e['value']:.0f}), not a count")}


def counted(text, perf):
    """What perf stat counted in a phase (text: D.perfstat.csv, None without one; perf: the phase
    file's `perf`): {events, instructions, event, scaled, reason}. instructions is null when not
    counted, or when perf multiplexed the counter (perf record holding a hardware counter: perf
    printed an estimate, not a count; `scaled` holds it); `reason` says why it is null."""
    events = parse(text) if text else {}
    count, event = instructions(events)
    estimate = scaled(events, event)
    if estimate:
        count = None
    reason = None
    if estimate:
        reason = estimate["reason"]
    elif count is None:
        reason = perf.get("reason") or (f"{event}: {events[event]['status']}" if event
                                        else "no hardware counters on this host")
    return {"events": events, "instructions": count, "event": event, "scaled": estimate, "reason": reason}
