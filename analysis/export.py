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


def container_key(labels):
    # cAdvisor names the container in `name`; `id` (the cgroup path) is the fallback
    return labels.get("name") or labels.get("id") or "?"


def sum_per_container(series_list):
    """cAdvisor exports one series per device / interface: add them per container and timestamp.
    All series of one container come from the same cAdvisor collection, so they share timestamps."""
    per = defaultdict(lambda: defaultdict(float))
    service_of = {}
    for labels, samples in series_list:
        key = container_key(labels)
        service_of[key] = labels.get(SERVICE_LABEL, "?")
        for t, v in samples:
            per[key][t] += v
    return {k: sorted(v.items()) for k, v in per.items()}, service_of


def counter_delta(samples, start, end, interval, created_ok=True):
    """Increase of one container's counter over [start, end]: end value minus start value, with
    a decrease treated as a reset (the counter restarted from 0, so the new value is all increase).

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
                "created_in_window": False, "no_baseline": True, "resets": [], "samples": len(inside)}
    base_t, base_v = (before[-1] if before else (None, 0.0))
    delta = 0.0
    resets = []
    prev = base_v
    for t, v in inside:
        if v < prev:
            resets.append({"time": t, "before": prev, "after": v})
            delta += v
        else:
            delta += v - prev
        prev = v
    end_t, end_v = (inside[-1] if inside else (base_t, base_v))
    return {
        "delta": delta,
        "start_value": base_v,
        "start_time": base_t,
        "end_value": end_v,
        "end_time": end_t,
        "created_in_window": created,
        "resets": resets,
        "samples": len(inside),
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

    for metric in COUNTERS + GAUGES:
        raw = prom.raw_samples(selector(metric, project, services), start - lookback, end)
        if metric in DISK_COUNTERS:
            disk_seen.update(l.get("device", "") for l, _ in raw)
            if counted:
                disk_dropped.update(l.get("device", "") for l, _ in raw if not disk_devices.matches(l, counted))
                raw = [(l, s) for l, s in raw if disk_devices.matches(l, counted)]
        per_container, service_of = sum_per_container(raw)
        for key, samples in per_container.items():
            svc = service_of[key]
            if key not in out_services[svc]["containers"]:
                out_services[svc]["containers"].append(key)
            for t, v in samples:
                if start <= t <= end:
                    rows.append((t, metric, svc, key, v))
        for svc in services:
            mine = {k: s for k, s in per_container.items() if service_of[k] == svc}
            if metric in COUNTERS:
                per = {}
                for key, samples in mine.items():
                    d = counter_delta(samples, start, end, interval, created_ok=services[svc] == "client")
                    per[key] = d
                    note_gaps(metric, svc, key, samples, not d["created_in_window"])
                    if d["created_in_window"]:
                        created.add((svc, key))
                    if d.get("no_baseline"):
                        notes.append(f"{svc}/{key}: no {metric} sample in the {lookback:g} s before the window "
                                     "start: a database container is not created in its own window (a "
                                     "Prometheus/cAdvisor gap across the start): its figure is null")
                    for r in d["resets"]:
                        notes.append(f"{svc}/{key}: {metric} decreased at {r['time']:.3f} "
                                     f"({r['before']} -> {r['after']}): counter reset, counted from 0")
                out_services[svc]["counters"][metric] = {
                    "delta": (sum(d["delta"] for d in per.values())
                              if per and all(d["delta"] is not None for d in per.values()) else None),
                    "resets": sum(len(d["resets"]) for d in per.values()),
                    "per_container": per,
                }
            else:
                per = {}
                for key, samples in mine.items():
                    inside = [(t, v) for t, v in samples if start <= t <= end]
                    per[key] = gauge_stats(inside)
                    existed = any(t <= start for t, _ in samples)
                    note_gaps(metric, svc, key, samples, existed)
                inside_all = {k: [(t, v) for t, v in s if start <= t <= end] for k, s in mine.items()}
                summed = (next(iter(inside_all.values())) if len(inside_all) == 1
                          else bucket_sum(inside_all, start, interval))
                stats = gauge_stats(summed)
                stats["per_container"] = per
                out_services[svc]["gauges"][metric] = stats
            # PgBouncer writes nothing to disk: cAdvisor has no disk series for it, and none is reported
            if not mine and not (services[svc] == "pooler" and metric in DISK_COUNTERS):
                notes.append(f"{svc}: no {metric} series in Prometheus for project {project!r} in the window")

    for svc, key in sorted(created):
        notes.append(f"{svc}/{key}: no sample at window start: the container was created in the window, "
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
    w.writerow(["time", "metric", "service", "container", "value"])
    for t, metric, svc, key, v in sorted(rows, key=lambda r: (r[1], r[2], r[3], r[0])):
        w.writerow([f"{t:.3f}", metric, svc, key, repr(v)])
    write_gzip_atomic(os.path.join(bench_dir, "timeseries", f"{phase_id}.csv.gz"), buf.getvalue())
    write_json_atomic(os.path.join(bench_dir, f"{phase_id}.metrics.json"), result)
    return result
