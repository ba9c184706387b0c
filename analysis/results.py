"""`results`: one bench folder's files -> results.json (schema: analysis/results.schema.json)."""
import datetime
import os

from . import benchfiles, hdr, monitoring, perfstat, reconcile
from .fileio import read_env_file, write_json_atomic

SCHEMA_VERSION = 1
PER_DOC_FIELDS = ["cpu_us", "instructions", "write_bytes", "read_bytes", "net_bytes", "storage_bytes"]
SECRET_WORDS = ("PASSWORD", "SECRET", "TOKEN")


def _counter(metrics, service, metric):
    try:
        return metrics["services"][service]["counters"][metric]["delta"]
    except (KeyError, TypeError):
        return None


def _disk_devices(metrics, disk):
    """Which device(s) the disk figures count (export filtered on them), or why there is no figure."""
    info = (metrics or {}).get("disk_devices")
    if info is None:
        return {"devices": None, "reason": None if metrics else "no metrics exported"}
    reason = None
    missing = [k for k in ("read_bytes", "write_bytes", "read_ops", "write_ops") if disk[k] is None]
    if missing and not info.get("series_devices"):
        reason = (f"{', '.join(missing)}: cAdvisor exported no disk series for the container: this host "
                  "accounts no block I/O to containers")
    elif missing:
        reason = (f"{', '.join(missing)}: no series on {', '.join(info.get('counted') or []) or 'any device'} "
                  f"(the device of Docker's data root); disk series were on: {', '.join(info['series_devices'])}")
    elif not info.get("counted"):
        reason = info.get("reason")
    return {"devices": info.get("counted") or None, "reason": reason}


def _gauge(metrics, service, metric):
    try:
        g = metrics["services"][service]["gauges"][metric]
        return {"mean": g["mean"], "max": g["max"]}
    except (KeyError, TypeError):
        return {"mean": None, "max": None}


def _sum(values):
    vals = [v for v in values if v is not None]
    return sum(vals) if vals else None


def _div(a, b, scale=1.0):
    if a is None or not b:
        return None
    return a * scale / b


def merged_histograms(clients, name):
    hists = []
    for path, c in clients:
        encoded = (c.get("histograms") or {}).get(name)
        if encoded:
            hists.append(hdr.decode(encoded, f"{path}: histograms.{name}"))
    return hdr.merge(hists)


def build_run(bench_dir, database, notes):
    phase = benchfiles.optional_json(os.path.join(bench_dir, f"{database}.phase.json")) or {}
    metrics = benchfiles.optional_json(os.path.join(bench_dir, f"{database}.metrics.json"))
    count = benchfiles.optional_json(os.path.join(bench_dir, f"{database}.count.json"))
    clients = benchfiles.client_results(bench_dir, database)
    perf_text = benchfiles.read_text(os.path.join(bench_dir, f"{database}.perfstat.csv"))
    service = phase.get("service") or database
    servers = [c.get("server") or {} for _, c in clients]

    stand_in_what = phase.get("stand_in")
    client_says_stand_in = any(s.get("stand_in") for s in servers)
    if not stand_in_what and client_says_stand_in:
        s = next(s for s in servers if s.get("stand_in"))
        stand_in_what = f"{s.get('product')} {s.get('version')}".strip()
    versions = sorted({str(s.get("version")) for s in servers if s.get("version")})
    products = sorted({str(s.get("product")) for s in servers if s.get("product")})

    docs_ok = _sum(c.get("docs_ok") for _, c in clients)
    docs_in_db = None
    if count is not None:
        docs_in_db = count.get("documents", count.get("count", count.get("docs")))

    events = perfstat.parse(perf_text) if perf_text else {}
    instructions, instructions_event = perfstat.instructions(events)
    perf = phase.get("perf") or {}

    cpu_user = _counter(metrics, service, "container_cpu_user_seconds_total")
    cpu_sys = _counter(metrics, service, "container_cpu_system_seconds_total")
    disk = {
        "read_bytes": _counter(metrics, service, "container_fs_reads_bytes_total"),
        "write_bytes": _counter(metrics, service, "container_fs_writes_bytes_total"),
        "read_ops": _counter(metrics, service, "container_fs_reads_total"),
        "write_ops": _counter(metrics, service, "container_fs_writes_total"),
    }
    disk.update(_disk_devices(metrics, disk))
    network = {
        "rx_bytes": _counter(metrics, service, "container_network_receive_bytes_total"),
        "tx_bytes": _counter(metrics, service, "container_network_transmit_bytes_total"),
    }
    storage = {k: (count or {}).get(k) for k in ("table_bytes", "index_bytes", "total_bytes")}

    divisor = docs_in_db if docs_in_db else docs_ok
    cpu_total = None if cpu_user is None or cpu_sys is None else cpu_user + cpu_sys
    net_total = None if None in network.values() else network["rx_bytes"] + network["tx_bytes"]
    per_doc = {
        "docs": divisor,
        "basis": "docs_in_db" if docs_in_db else "docs_ok",
        "cpu_us": _div(cpu_total, divisor, 1e6),
        "instructions": _div(instructions, divisor),
        "write_bytes": _div(disk["write_bytes"], divisor),
        "read_bytes": _div(disk["read_bytes"], divisor),
        "net_bytes": _div(net_total, divisor),
        "storage_bytes": _div(storage["total_bytes"], divisor),
    }

    window = phase.get("window") or {}
    start, end = window.get("start"), window.get("end")
    run_notes = list((metrics or {}).get("notes") or [])
    if metrics is None:
        run_notes.append(f"{database}.metrics.json missing: no Prometheus figures for this phase")
    if count is None:
        run_notes.append(f"{database}.count.json missing: no database-side count or sizes")
    if docs_in_db is not None and docs_ok is not None and docs_in_db != docs_ok:
        run_notes.append(f"documents in the database ({docs_in_db}) differ from documents acknowledged "
                         f"by the clients ({docs_ok})")
    if instructions is None:
        why = perf.get("reason") or (f"{instructions_event}: {events[instructions_event]['status']}"
                                     if instructions_event else "no hardware counters on this host")
        run_notes.append(f"instructions not counted ({why}); software events only")
    expected_clients = phase.get("clients")
    if isinstance(expected_clients, int) and expected_clients != len(clients):
        run_notes.append(f"{len(clients)} client result file(s) for {expected_clients} client(s)")
    notes.extend(f"{database}: {n}" for n in run_notes)

    reconciliation = reconcile.reconcile(
        database, benchfiles.optional_json(os.path.join(bench_dir, f"{database}.server-stats.json")),
        [c for _, c in clients], phase)
    status, reason = phase.get("status", "missing"), phase.get("reason") or None
    if reconciliation["verdict"] == "suspect":
        run_notes.append("SUSPECT: work in the window the lab did not ask for: " + "; ".join(reconciliation["reasons"]))
        if status == "ok":  # failed/interrupted keep their meaning; suspect is an ok phase with foreign work
            status, reason = "suspect", "; ".join(reconciliation["reasons"])
    run_notes.extend(f"server counters: {n}" for n in reconciliation["notes"])
    if reconciliation["verdict"] != "suspect" and reconciliation["unavailable"]:
        run_notes.append(f"server counters not reconciled: {reconciliation['unavailable']}")

    return {
        "database": database,
        "service": service,
        "product": products[0] if len(products) == 1 else (products or None),
        "image": phase.get("image"),
        "server_version": versions[0] if len(versions) == 1 else (", ".join(versions) or None),
        "stand_in": bool(stand_in_what) or client_says_stand_in,
        "stand_in_what": stand_in_what or None,
        "status": status,
        "reason": reason,
        "window": {"start": start, "end": end,
                   "seconds": (end - start) if start is not None and end is not None else None},
        "clients": len(clients),
        "clients_expected": expected_clients,
        "docs_target": _sum(c.get("docs_target") for _, c in clients),
        "docs_ok": docs_ok,
        "docs_in_db": docs_in_db,
        "errors": _sum(c.get("errors") for _, c in clients),
        "dropped": _sum(c.get("dropped") for _, c in clients),
        "target_rate": _sum(c.get("target_rate") for _, c in clients),
        "achieved_rate": _sum(c.get("achieved_rate") for _, c in clients),
        "target_sustained": all(c.get("target_sustained", True) for _, c in clients) if clients else None,
        "interrupted": any(c.get("interrupted") for _, c in clients) or phase.get("status") == "interrupted",
        "latency_ms": hdr.summary_ms(merged_histograms(clients, "latency_us")),
        "service_ms": hdr.summary_ms(merged_histograms(clients, "service_us")),
        "start_lag_ms": hdr.summary_ms(merged_histograms(clients, "start_lag_us")),
        "scheduler_lag_ms": hdr.summary_ms(merged_histograms(clients, "scheduler_lag_us")),
        "cpu": {
            "user_s": cpu_user,
            "system_s": cpu_sys,
            "instructions": instructions,
            "instructions_event": instructions_event,
            "hardware_counters": perf.get("hardware_counters", instructions is not None),
            "perf_events": {k: v["value"] for k, v in events.items()},
            "perf_units": {k: v["unit"] for k, v in events.items() if v["unit"]},
            "perf_reason": perf.get("reason"),
            "cgroup_cpu_s": _cgroup_cpu(phase),
        },
        "client_cpu": {
            "user_s": _counter(metrics, "client", "container_cpu_user_seconds_total"),
            "system_s": _counter(metrics, "client", "container_cpu_system_seconds_total"),
        },
        "memory": {
            "rss": _gauge(metrics, service, "container_memory_rss"),
            "cache": _gauge(metrics, service, "container_memory_cache"),
            "working_set": _gauge(metrics, service, "container_memory_working_set_bytes"),
        },
        "disk": disk,
        "network": network,
        "storage": storage,
        "per_doc": per_doc,
        # The perf record profile (file for the Firefox Profiler, or why there is none).
        "profile": _profile(perf),
        # What watching cost: cAdvisor's and Prometheus's own CPU in the window.
        "monitoring": monitoring.summary(metrics),
        "metrics_quality": {
            "gaps": len((metrics or {}).get("gaps") or []),
            "counter_resets": sum(c.get("resets", 0) for s in ((metrics or {}).get("services") or {}).values()
                                  for c in (s.get("counters") or {}).values()),
        },
        "reconciliation": reconciliation,
        "notes": run_notes,
    }


def _profile(perf):
    p = perf.get("profile") or {}
    return {"file": p.get("file"), "samples": p.get("samples"), "frequency_hz": p.get("frequency_hz"),
            "reason": p.get("reason") if p else "the phase manifest has no perf.profile (older run)"}


def _cgroup_cpu(phase):
    c = phase.get("cgroup_cpu_seconds") or {}
    try:
        return float(c["end"]) - float(c["start"])
    except (KeyError, TypeError, ValueError):
        return None


def ratios(runs, numerator="mongodb", denominator="postgres"):
    by_db = {r["database"]: r for r in runs}
    num, den = by_db.get(numerator), by_db.get(denominator)
    out = {"numerator": numerator, "denominator": denominator,
           "stand_in": bool((num and num["stand_in"]) or (den and den["stand_in"]))}
    for f in PER_DOC_FIELDS:
        a = num["per_doc"][f] if num else None
        b = den["per_doc"][f] if den else None
        out[f] = (a / b) if a is not None and b else None
    return out


def _lab_env(path):
    if not path or not os.path.exists(path):
        return None
    env = read_env_file(path)
    return {k: ("<redacted>" if any(w in k.upper() for w in SECRET_WORDS) else v) for k, v in env.items()}


def build(bench_dir, lab_env=None):
    bench_dir = os.path.normpath(bench_dir)
    bench = benchfiles.bench_env(bench_dir)
    run_env = benchfiles.run_env(bench_dir)
    effective = run_env or bench
    planned = (effective.get("DATABASES") or "mongodb postgres").split()
    present = benchfiles.databases_in(bench_dir)
    notes = []
    runs = [build_run(bench_dir, db, notes) for db in present]
    incomplete = [f"{db}: no phase file (phase never ran)" for db in planned if db not in present]
    incomplete += [f"{r['database']}: status {r['status']}" + (f" ({r['reason']})" if r["reason"] else "")
                   for r in runs if r["status"] not in ("ok", "suspect")]
    for r in runs:
        db = r["database"]
        missing = [f"{db}.{k}.json" for k in ("metrics", "count")
                   if not os.path.exists(os.path.join(bench_dir, f"{db}.{k}.json"))]
        if missing:
            incomplete.append(f"{db}: missing " + ", ".join(missing))
        if isinstance(r["clients_expected"], int) and r["clients"] < r["clients_expected"]:
            incomplete.append(f"{db}: {r['clients']} of {r['clients_expected']} client result files")
        # Nothing lost: what the database holds must be exactly what the clients saw acknowledged.
        if r["docs_in_db"] is not None and r["docs_ok"] is not None and r["docs_in_db"] != r["docs_ok"]:
            incomplete.append(f"{db}: {r['docs_in_db']} documents in the database but {r['docs_ok']} "
                              f"acknowledged by the clients")
    settings = {db: benchfiles.optional_json(os.path.join(bench_dir, f"{db}.settings.json")) for db in present}
    result = {
        "schema_version": SCHEMA_VERSION,
        "bench": os.path.basename(os.path.abspath(bench_dir)),
        "description": effective.get("DESCRIPTION"),
        "generated_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "complete": not incomplete,
        "incomplete": incomplete,
        "config": {
            "bench": bench,
            "run": run_env,
            "database_settings": settings,
            "lab_env": _lab_env(lab_env),
        },
        "host": benchfiles.optional_json(os.path.join(bench_dir, "host.json")),
        "runs": runs,
        "ratios": ratios(runs),
        "notes": notes,
    }
    return result


def write(bench_dir, lab_env=None):
    result = build(bench_dir, lab_env)
    from . import schema
    schema.validate(result)
    write_json_atomic(os.path.join(bench_dir, "results.json"), result)
    return result
