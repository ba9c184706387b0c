"""`export`: exact per-service counter deltas, memory mean/max, gaps and the raw time series of one
database phase window, read from Prometheus (cAdvisor metrics)."""
import csv
import io
import os
from collections import defaultdict

from . import disk_devices, phase_status
from .errors import AnalysisError
from .fileio import read_json, write_gzip_atomic, write_json_atomic
from .prom import Prometheus

COUNTERS = [
    "container_cpu_user_seconds_total",
    "container_cpu_system_seconds_total",
    "container_fs_reads_bytes_total",
    "container_fs_writes_bytes_total",
    "container_fs_reads_total",
    "container_fs_writes_total",
    "container_network_receive_bytes_total",
    "container_network_transmit_bytes_total",
]
DISK_COUNTERS = [m for m in COUNTERS if m.startswith("container_fs_")]
GAUGES = [
    "container_memory_rss",
    "container_memory_cache",
    "container_memory_working_set_bytes",
]
PROJECT_LABEL = "container_label_com_docker_compose_project"
SERVICE_LABEL = "container_label_com_docker_compose_service"
CLIENT_SERVICE = "client"
GAP_INTERVALS = 3          # a hole longer than this many scrape intervals is a gap
BASELINE_LOOKBACK_INTERVALS = 10  # how far before the window we look for the start value


# the note export writes for each client container (results.py folds them into one)
CREATED_IN_WINDOW = "no sample at window start: the container was created in the window"
NO_SERIES = "series in Prometheus for project"


def to_look_at(metrics):
    """(gaps, notes) of a metrics export that need a look. Every normal run has conditions that are
    expected, recorded in the file and not repeated on the console: clients created in their own
    window (counted from 0), clients that ended before the window's end (their series stop: a gap to
    the end), clients without disk series (they write nothing; no client disk figure is reported),
    and a host that accounts no block I/O to any container (results.json disk.reason says so)."""
    end = (metrics.get("window") or {}).get("end")
    no_block_io = not (metrics.get("disk_devices") or {}).get("series_devices")

    def expected(note):
        svc, _, rest = note.partition(": ")
        if rest.startswith(CREATED_IN_WINDOW) and svc.split("/")[0] == CLIENT_SERVICE:
            return True
        if rest.startswith("no container_fs_") and NO_SERIES in rest:
            return svc == CLIENT_SERVICE or no_block_io
        return False
    gaps = [g for g in metrics.get("gaps") or [] if not (g["service"] == CLIENT_SERVICE and g["to"] == end)]
    return gaps, [n for n in metrics.get("notes") or [] if not expected(n)]


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
    state after the window (phase.json facts.database.state, lab/phase.sh database_state); clients
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


def find_gaps(samples, start, end, interval, existed_before):
    limit = GAP_INTERVALS * interval
    times = [t for t, _ in samples if start < t <= end]
    gaps = []
    edges = ([start] if existed_before else []) + times + ([end] if times or existed_before else [])
    for a, b in zip(edges, edges[1:]):
        if b - a > limit:
            gaps.append((a, b))
    return gaps


def gauge_stats(samples):
    vals = [v for _, v in samples]
    if not vals:
        return {"mean": None, "max": None, "samples": 0}
    return {"mean": sum(vals) / len(vals), "max": max(vals), "samples": len(vals)}


def gauge_samples(series):
    """A container's gauge (memory: one series per container) as one list of samples; were there
    several series, their sum only at the timestamps where every one of them has a sample."""
    if len(series) == 1:
        return next(iter(series.values()))
    per_t = defaultdict(list)
    for samples in series.values():
        for t, v in samples:
            per_t[t].append(v)
    return [(t, sum(vs)) for t, vs in sorted(per_t.items()) if len(vs) == len(series)]


def bucket_sum(per_container_samples, start, interval):
    """Several containers of one service: sum their samples per scrape-interval bucket
    (the last sample of each container in a bucket), never filling missing buckets."""
    buckets = defaultdict(dict)
    for key, samples in per_container_samples.items():
        for t, v in samples:
            buckets[int((t - start) // interval)][key] = v
    return [(start + b * interval, sum(d.values())) for b, d in sorted(buckets.items())]


def selector(metric, project, services):
    alt = "|".join(sorted(services))
    return f'{metric}{{{PROJECT_LABEL}="{project}",{SERVICE_LABEL}=~"{alt}"}}'


def export(bench_dir, database, prometheus_url, project=None, interval=1.0, phase_id=None):
    """phase_id: the phase's file prefix (`mongodb-load`, ...); the database's own by default."""
    phase_id = phase_id or database
    phase_path = os.path.join(bench_dir, f"{phase_id}.phase.json")
    phase = phase_status.read(phase_path)  # checked against lab/phase.schema.json
    if phase is None:
        raise AnalysisError(f"{phase_path}: file not found")
    window = phase.get("window") or {}
    try:
        start, end = float(window["start"]), float(window["end"])
    except (KeyError, TypeError, ValueError):
        raise AnalysisError(f"{phase_path}: window must be {{start, end}} in unix seconds, got {window!r}")
    if end <= start:
        raise AnalysisError(f"{phase_path}: window end {end} is not after start {start}")
    project = project or phase.get("project")
    if not project:
        raise AnalysisError(f"{phase_path}: no `project` and no --project given")
    db_service = phase.get("service") or database
    services = {db_service: "database", CLIENT_SERVICE: "client"}
    # POOL=pgbouncer: the pooler's container, measured beside the database's (analysis/pooler.py)
    pooler = (phase.get("pooler") or {}).get("service")
    if pooler:
        services[pooler] = "pooler"

    prom = Prometheus(prometheus_url)
    lookback = BASELINE_LOOKBACK_INTERVALS * interval
    out_services = {s: {"role": r, "containers": [], "counters": {}, "gauges": {}} for s, r in services.items()}
    gaps = {}
    notes = []
    created = set()
    rows = []

    def note_gaps(metric, service, key, samples, existed):
        for a, b in find_gaps(samples, start, end, interval, existed):
            g = gaps.setdefault((service, key, a, b), {"service": service, "container": key, "from": a,
                                                       "to": b, "seconds": b - a, "metrics": []})
            g["metrics"].append(metric)

    # Disk series only of the device(s) backing Docker's volumes (host.json: analysis/disk_devices.py),
    # so that LVM/dm-crypt stacks do not count one write two or three times.
    host = {}
    if os.path.exists(os.path.join(bench_dir, "host.json")):
        host = read_json(os.path.join(bench_dir, "host.json")) or {}
    disk_info = host.get("disk_devices") or {}
    counted = disk_info.get("count") or []
    disk_seen, disk_dropped = set(), set()

    restart = {svc: restart_recorded(phase, role) for svc, role in services.items()}
    for metric in COUNTERS + GAUGES:
        raw = prom.raw_samples(selector(metric, project, services), start - lookback, end)
        if metric in DISK_COUNTERS:
            disk_seen.update(l.get("device", "") for l, _ in raw)
            if counted:
                disk_dropped.update(l.get("device", "") for l, _ in raw if not disk_devices.matches(l, counted))
                raw = [(l, s) for l, s in raw if disk_devices.matches(l, counted)]
        per_container, service_of = series_per_container(raw)
        for key, series in per_container.items():
            svc = service_of[key]
            if key not in out_services[svc]["containers"]:
                out_services[svc]["containers"].append(key)
            for name, samples in series.items():
                for t, v in samples:
                    if start <= t <= end:
                        rows.append((t, metric, svc, key, name, v))
        for svc in services:
            mine = {k: s for k, s in per_container.items() if service_of[k] == svc}
            if metric in COUNTERS:
                per = {}
                restart_ok, restart_why = restart[svc]
                for key, series in mine.items():
                    d = container_counter(series, metric, start, end, interval, created_ok=services[svc] == "client",
                                          restart_ok=restart_ok, restart_why=restart_why)
                    per[key] = d
                    for name, sd in d["series"].items():
                        note_gaps(metric, svc, key, series[name], not sd["created_in_window"])
                    if d["created_in_window"]:
                        created.add((svc, key))
                    if d.get("no_baseline"):
                        notes.append(f"{svc}/{key}: no {metric} sample in the {lookback:g} s before the window "
                                     "start: a database container is not created in its own window (a "
                                     "Prometheus/cAdvisor gap across the start): its figure is null")
                    if d["reason"]:
                        notes.append(f"{svc}/{key}: {d['reason']}: its figure is null")
                    for r in d["resets"] if restart_ok else []:
                        notes.append(f"{svc}/{key}: {metric}{' on ' + r['series'] if r['series'] else ''} decreased "
                                     f"at {r['time']:.3f} ({r['before']} -> {r['after']}): counter reset (the "
                                     "container was started again in the window), counted from 0")
                nulls = [f"{k}: {d['reason']}" for k, d in per.items() if d["reason"]]
                out_services[svc]["counters"][metric] = {
                    "delta": (sum(d["delta"] for d in per.values())
                              if per and all(d["delta"] is not None for d in per.values()) else None),
                    "resets": sum(len(d["resets"]) for d in per.values()),
                    # why the delta is null, when a series was misread (no_baseline has its note)
                    "reason": "; ".join(nulls) or None,
                    "per_container": per,
                }
            else:
                per = {}
                for key, series in mine.items():
                    samples = gauge_samples(series)
                    inside = [(t, v) for t, v in samples if start <= t <= end]
                    per[key] = gauge_stats(inside)
                    for s_ in series.values():
                        note_gaps(metric, svc, key, s_, any(t <= start for t, _ in s_))
                inside_all = {k: [(t, v) for t, v in gauge_samples(s) if start <= t <= end] for k, s in mine.items()}
                summed = (next(iter(inside_all.values())) if len(inside_all) == 1
                          else bucket_sum(inside_all, start, interval))
                stats = gauge_stats(summed)
                stats["per_container"] = per
                out_services[svc]["gauges"][metric] = stats
            # PgBouncer writes nothing to disk: cAdvisor has no disk series for it, and none is reported
            if not mine and not (services[svc] == "pooler" and metric in DISK_COUNTERS):
                notes.append(f"{svc}: no {metric} {NO_SERIES} {project!r} in the window")

    for svc, key in sorted(created):
        notes.append(f"{svc}/{key}: {CREATED_IN_WINDOW}, "
                     f"so its counters' start values are taken as 0")
    from .monitoring import monitoring_cpu  # imports this module: late import avoids the cycle
    monitoring = monitoring_cpu(prom, project, start, end, interval, lookback)
    from .idle import export_cpu_usage  # imports this module, as monitoring does
    cpu_usage = export_cpu_usage(prom, project, db_service, phase, start, end, lookback, interval)
    result = {
        "schema_version": 1,
        "database": database,
        "phase": phase_id,
        "project": project,
        "window": {"start": start, "end": end},
        "prometheus": prometheus_url,
        "scrape_interval_s": interval,
        "gap_threshold_s": GAP_INTERVALS * interval,
        "services": out_services,
        "monitoring": monitoring,
        # the database's nanosecond CPU counter over the window, and net of its idle rate (analysis/idle.py)
        "cpu_usage": cpu_usage,
        "disk_devices": {
            "counted": [c["name"] for c in counted],
            "series_devices": sorted(disk_seen),
            "excluded": sorted(disk_dropped),
            "reason": (None if counted else
                       (disk_info.get("reason") or "host.json names no device for Docker's data root")
                       + ": disk series of every device summed"),
        },
        "gaps": sorted(gaps.values(), key=lambda g: (g["service"], g["container"], g["from"])),
        "notes": sorted(set(notes)),
    }
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["time", "metric", "service", "container", "series", "value"])
    for t, metric, svc, key, name, v in sorted(rows, key=lambda r: (r[1], r[2], r[3], r[4], r[0])):
        w.writerow([f"{t:.3f}", metric, svc, key, name, repr(v)])
    write_gzip_atomic(os.path.join(bench_dir, "timeseries", f"{phase_id}.csv.gz"), buf.getvalue())
    write_json_atomic(os.path.join(bench_dir, f"{phase_id}.metrics.json"), result)
    return result
