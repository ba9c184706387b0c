"""`export`: exact per-service counter deltas, memory mean/max, gaps and the raw time series of one
database phase window, read from Prometheus (cAdvisor metrics)."""
import csv
import io
import os
from collections import defaultdict

from ..common.errors import AnalysisError
from ..common.fileio import write_gzip_atomic, write_json_atomic
from ..bench import folder
from . import disk_devices
from .clock_shift import ShiftedPrometheus, offsets as clock_offsets
from .idle import export_cpu_usage
from .monitoring import monitoring_cpu
from .prom import Prometheus
from .series import container_counter, restart_recorded, selector, series_per_container

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


def export(bench_dir, database, prometheus_url, project=None, interval=1.0, phase_id=None):
    """phase_id: the phase's file prefix (`mongodb-load`, ...); the database's own by default."""
    phase_id = phase_id or database
    bench = folder.Bench(bench_dir)
    phase_path = os.path.join(bench_dir, f"{phase_id}.phase.json")
    phase = bench.phase(phase_id).doc()  # checked against lab/phase.schema.json
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
    # POOL=pgbouncer: the pooler's container, measured beside the database's (analysis/figures/pooler.py)
    pooler = (phase.get("pooler") or {}).get("service")
    if pooler:
        services[pooler] = "pooler"

    prom = Prometheus(prometheus_url)
    # a host whose clock is off the controller's: its series read on the controller's clock (issue 27)
    offsets = clock_offsets(phase)
    if offsets:
        prom = ShiftedPrometheus(prom, offsets, start, end)
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

    # Disk series only of the device(s) backing Docker's volumes (host.json: analysis/collect/disk_devices.py),
    # so that LVM/dm-crypt stacks do not count one write two or three times.
    host = bench.host() or {}
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
    monitoring = monitoring_cpu(prom, project, start, end, interval, lookback)
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
        # the database's nanosecond CPU counter over the window, and net of its idle rate (analysis/collect/idle.py)
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
