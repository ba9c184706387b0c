"""The database's CPU in a window net of its idle rate (issue 16, "per-query CPU is mostly idle").

A query window holds more than the queries: the guard seconds at each edge, the client's start and
its session warm-up. A database is never at zero while idle (PostgreSQL's background processes,
mongod's FTDC sampling every second, WiredTiger's checkpoint thread), so the window's CPU over the
executions is, for a query of a few milliseconds, mostly idle rate times window length: at K=20 on
a 2-core machine a 2 ms query read as 32 ms, and a ratio of two fast queries was a ratio of idle
rates. Here:
- the idle rate is read in the same phase, just before the clients start: the quiet period after
  the settle and the window's first guard seconds (phase.json `idle`), from the pairs of consecutive
  samples that both lie in one of those intervals;
- the window's CPU is read from `container_cpu_usage_seconds_total`, cAdvisor's nanosecond counter
  (the cgroup's cpuacct.usage / cpu.stat usage_usec), because user and system seconds advance in
  10 ms ticks, as coarse as the queries themselves;
- net = the window's increase - idle rate x the time the increase spans (from the last sample at or
  before the window's start to the last one in it); null with the reason when there is no idle
  reading or the net is not above zero (the queries then cost less than the idle reading resolves).
The gross figure stays beside it."""
from .series import counter_delta, restart_recorded, selector, series_per_container

USAGE = "container_cpu_usage_seconds_total"
MIN_IDLE_SECONDS = 2.0  # less idle time than this (cAdvisor collects every 1-2 s) is no rate


def idle_intervals(phase):
    """[(start, end)] of the phase's idle readings (phase.json `idle`: quiet period, first guard)."""
    idle = (phase or {}).get("idle") or {}
    out = []
    for name in ("quiet", "guard"):
        iv = idle.get(name) or {}
        a, b = iv.get("start"), iv.get("end")
        if isinstance(a, (int, float)) and isinstance(b, (int, float)) and b > a:
            out.append((float(a), float(b)))
    return out


def idle_rate(samples, intervals):
    """{rate_cores, seconds, pairs}: the counter's increase over consecutive sample pairs that lie
    inside one interval, per second of those pairs; rate null (with `reason`) below MIN_IDLE_SECONDS."""
    inc, secs, pairs = 0.0, 0.0, 0
    pts = sorted(samples)
    for (t0, v0), (t1, v1) in zip(pts, pts[1:]):
        if t1 <= t0 or v1 < v0:  # a reset is no idle reading
            continue
        if any(a <= t0 and t1 <= b for a, b in intervals):
            inc += v1 - v0
            secs += t1 - t0
            pairs += 1
    if secs < MIN_IDLE_SECONDS:
        return {"rate_cores": None, "seconds": secs, "pairs": pairs,
                "reason": f"{secs:.2f} s of idle samples before the clients started (needs {MIN_IDLE_SECONDS:.0f} s): "
                          "no idle rate"}
    return {"rate_cores": inc / secs, "seconds": secs, "pairs": pairs, "reason": None}


def net_of_idle(samples, start, end, intervals, interval=1.0, restart=(True, None)):
    """{gross_s, span_s, idle, net_s, reason} of one container's cumulative CPU samples over the window.
    restart: (whether the container may have restarted in the window, why not): series.restart_recorded."""
    d = counter_delta(samples, start, end, interval, restart_ok=restart[0], restart_why=restart[1])
    idle = idle_rate(samples, intervals)
    out = {"metric": USAGE, "gross_s": None, "span_s": None, "idle": idle, "net_s": None, "reason": None}
    if d["created_in_window"] or not d["samples"]:
        out["reason"] = f"no {USAGE} sample at or before the window's start and in it"
        return out
    if d["reason"]:
        out["reason"] = f"{USAGE} {d['reason']}"
        return out
    out["gross_s"] = d["delta"]
    out["span_s"] = d["end_time"] - d["start_time"]
    if idle["rate_cores"] is None:
        out["reason"] = idle["reason"]
        return out
    net = d["delta"] - idle["rate_cores"] * out["span_s"]
    if net <= 0:
        out["reason"] = (f"the window's CPU ({d['delta']:.4f} s) is not above the idle rate "
                         f"({idle['rate_cores']:.4f} cores) x {out['span_s']:.1f} s: below what the idle reading resolves")
        return out
    out["net_s"] = net
    return out


def export_cpu_usage(prom, project, service, phase, start, end, lookback, interval=1.0):
    """metrics.json `cpu_usage` of the database service: net_of_idle over its one container (the
    database service has one), from the earliest idle interval to the window's end."""
    intervals = idle_intervals(phase)
    since = min([start - lookback] + [a for a, _ in intervals])
    raw = prom.raw_samples(selector(USAGE, project, {service}), since, end)
    per_container, _ = series_per_container(raw)
    if len(per_container) != 1:
        return {"metric": USAGE, "gross_s": None, "span_s": None, "idle": None, "net_s": None,
                "reason": f"{len(per_container)} containers of service {service!r} export {USAGE} (needs one)"}
    (series,) = per_container.values()
    if len(series) != 1:  # cAdvisor's per-CPU series (percpu metrics, off in compose.yaml): never added per timestamp
        return {"metric": USAGE, "gross_s": None, "span_s": None, "idle": None, "net_s": None,
                "reason": f"{len(series)} {USAGE} series of the {service!r} container (needs one)"}
    (samples,) = series.values()
    out = net_of_idle(samples, start, end, intervals, interval, restart_recorded(phase, "database"))
    if not intervals and out["idle"]["reason"]:
        out["idle"]["reason"] = "the phase manifest has no idle interval (a run before issue 16): no idle rate"
        out["reason"] = out["reason"] and out["idle"]["reason"]
    return out
