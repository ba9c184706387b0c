"""cAdvisor's series as Prometheus returns them, per container: the selector of a compose project's
services, one container's series (one per device or interface), and a counter's increase over a
window, exact per series (decreases told apart from restarts). Read by `export` for every service
and by the phase's other readings of the same window (the monitoring's CPU: monitoring.py; the
database's CPU net of idle: idle.py), so each of them reads series the same way."""
from collections import defaultdict

PROJECT_LABEL = "container_label_com_docker_compose_project"
SERVICE_LABEL = "container_label_com_docker_compose_service"


def container_key(labels):
    # cAdvisor names the container in `name`; `id` (the cgroup path) is the fallback
    return labels.get("name") or labels.get("id") or "?"


def series_name(labels):
    """One series of a container: its network interface or block device ("" for CPU and memory,
    one series per container)."""
    return labels.get("interface") or labels.get("device") or ""


def series_per_container(series_list):
    """cAdvisor exports one series per device / interface: {container: {series name: samples}} and
    {container: service}. Never added per timestamp: one series missing from one scrape would make
    the sum drop by that series' whole counter, read as a reset (issue 25: 14,040,000 B counted for
    a true 20,000 B). Counters take their delta per series and add the deltas."""
    per = defaultdict(dict)
    service_of = {}
    for labels, samples in series_list:
        key = container_key(labels)
        service_of[key] = labels.get(SERVICE_LABEL, "?")
        name = series_name(labels)
        if name in per[key]:  # the same device/interface under two label sets (a recreated container)
            name = f"{name}@{labels.get('id') or len(per[key])}"
        per[key][name] = sorted(samples)
    return dict(per), service_of


def restart_recorded(phase, role):
    """(restart_ok, why): whether a container of this role may have restarted in the window, which
    is what a decreasing counter of it would then mean. The lab records the database container's
    state after the window (phase.json facts.database.state, lab/driver/decisions.py `database_state`); clients
    are one-shot containers and nothing restarts the pooler or the monitoring, so for them and for a
    database that kept running a decrease is a misread series, never new work from 0."""
    if role != "database":
        return False, f"a {role} container is not restarted by the lab"
    state = ((phase or {}).get("facts") or {}).get("database", {}).get("state")
    if state is None:
        return False, "the phase file records no state of the database container (a run before the lab recorded facts)"
    if state == "restarted":
        return True, None
    if state == "running":
        return False, "the database container kept running through the window (phase.json facts.database.state)"
    return False, f"the database container was {state} after the window, not started again in it"


def counter_delta(samples, start, end, interval, created_ok=True, restart_ok=True, restart_why=None):
    """Increase of one series' counter over [start, end]: end value minus start value.

    A decrease: with restart_ok (the container was started again in the window) the counter began
    again from 0 and the new value is all increase (a reset, listed in `resets`); otherwise nothing
    restarted it, so the series was misread and the delta is None with `reason` (restart_why says
    why no restart is possible).

    No sample in the lookback before the window: a container created in the window starts from 0
    (created_ok: the clients, started inside every window). A container that must have existed
    before the window (the database) then has a gap in its series across the start, and its
    cumulative value would be counted whole (546 CPU-s for a true 45): its delta is None."""
    before = [(t, v) for t, v in samples if t <= start]
    inside = [(t, v) for t, v in samples if start < t <= end]
    created = not before
    if created and not created_ok:
        return {"delta": None, "start_value": None, "start_time": None,
                "end_value": inside[-1][1] if inside else None, "end_time": inside[-1][0] if inside else None,
                "created_in_window": False, "no_baseline": True, "resets": [], "samples": len(inside),
                "reason": None}
    base_t, base_v = (before[-1] if before else (None, 0.0))
    delta = 0.0
    resets = []
    reason = None
    prev = base_v
    for t, v in inside:
        if v < prev:
            resets.append({"time": t, "before": prev, "after": v})
            if not restart_ok and reason is None:
                reason = (f"decreased at {t:.3f} ({prev} -> {v}) but {restart_why or 'no restart is recorded'}: "
                          "a misread series, not a reset; counting the new value from 0 would invent it")
            delta += v
        else:
            delta += v - prev
        prev = v
    end_t, end_v = (inside[-1] if inside else (base_t, base_v))
    return {
        "delta": None if reason else delta,
        "start_value": base_v,
        "start_time": base_t,
        "end_value": end_v,
        "end_time": end_t,
        "created_in_window": created,
        "resets": resets,
        "samples": len(inside),
        "reason": reason,
    }


def container_counter(series, metric, start, end, interval, created_ok=True, restart_ok=True, restart_why=None):
    """One container's counter over [start, end]: the delta of each of its series (device,
    interface), added. None when any series' delta is None, with `reason` naming the series."""
    per = {name: counter_delta(s, start, end, interval, created_ok, restart_ok, restart_why)
           for name, s in sorted(series.items())}
    ds = list(per.values())
    created = all(d["created_in_window"] for d in ds)
    # the database's rule (created_ok false): no series has a sample before the start
    no_baseline = all(d.get("no_baseline") for d in ds)
    reason = None
    for name, d in per.items():
        what = f"{metric}" + (f" on {name}" if name else "")
        if d.get("no_baseline") and not no_baseline:
            # the container existed (another series has a baseline) but this series has none
            reason = (f"no {what} sample in the lookback before the window start while the container's other "
                      "series have one: a gap across the start or a series new in the window, which counting "
                      "from 0 cannot tell apart")
        elif d["reason"]:
            reason = f"{what} {d['reason']}"
        if reason:
            break
    times = [d["start_time"] for d in ds if d["start_time"] is not None]
    ends = [d["end_time"] for d in ds if d["end_time"] is not None]
    return {
        "delta": None if reason or any(d["delta"] is None for d in ds) else sum(d["delta"] for d in ds),
        "start_value": None if no_baseline else sum(d["start_value"] or 0.0 for d in ds),
        "start_time": min(times) if times else None,
        "end_value": sum(d["end_value"] or 0.0 for d in ds),
        "end_time": max(ends) if ends else None,
        "created_in_window": created,
        **({"no_baseline": True} if no_baseline else {}),
        "resets": [dict(r, series=name) for name, d in per.items() for r in d["resets"]],
        "samples": max((d["samples"] for d in ds), default=0),
        "reason": reason,
        "series": per,
    }


def selector(metric, project, services):
    alt = "|".join(sorted(services))
    return f'{metric}{{{PROJECT_LABEL}="{project}",{SERVICE_LABEL}=~"{alt}"}}'
