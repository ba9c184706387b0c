"""Time-series ingest figures of one phase (WORKLOAD=tsbs; results.json runs[] `ingest`): which
model ran, the events and host-hours ingested, and the storage per event and per host-hour.

Events: what the database holds (`count`: documents = events; the bucket model sums its buckets'
arrays), else the clients' acknowledged operations. Host-hours: distinct (host, UTC hour) pairs of
the acknowledged events, summed over the clients (each client owns its own hosts, so the sets are
disjoint). Storage: the database's own total (table + indexes, `storage.total_bytes`) over them.
A database that partitions by time reports its chunks beside its sizes (count.json `chunks`,
`compressed_chunks`), and COMPRESS's sizes before the compression (`compress`): read here by
those fields' names, whichever database wrote them.
Per-event CPU, WAL and network are `per_op` (one event = one operation)."""
from ..common.labels import fmt, fmt_bytes, run_label



def _div(a, b):
    return None if a is None or not b else a / b


def ingest(clients, count, storage_total):
    """clients: [(path, client result)]; count: the phase's count.json or None."""
    tsbs = [c.get("tsbs") for _, c in clients if isinstance(c.get("tsbs"), dict)]
    if not tsbs:
        return None
    models = sorted({t.get("model") for t in tsbs if t.get("model")})
    acked = sum(int(o.get("ok") or 0) for _, c in clients for o in (c.get("operations") or {}).values())
    events = (count or {}).get("documents")
    basis = "events in the database (count)" if events is not None else "events acknowledged by the clients"
    if events is None:
        events = acked
    host_hours = sum(int(t.get("host_hours") or 0) for t in tsbs)
    reasons = []
    if storage_total is None:
        reasons.append("no storage figure (count.json missing or without total_bytes)")
    if not host_hours:
        reasons.append("no host-hour ingested")
    return {
        "model": models[0] if len(models) == 1 else (models or None),
        "events": events,
        "events_basis": basis,
        "events_acknowledged": acked,
        "events_planned": sum(int(t.get("events") or 0) for t in tsbs),
        "host_hours": host_hours,
        "hosts": sum(int(t.get("hosts") or 0) for t in tsbs),
        # bucket: one row per host-hour; event/native: one per event
        "rows": (count or {}).get("rows"),
        "storage_bytes_per_event": _div(storage_total, events),
        "storage_bytes_per_host_hour": _div(storage_total, host_hours),
        # what a database that partitions by time reports beside its sizes (count.json `chunks`,
        # `compressed_chunks`), and its native compression (count.json `compress`, COMPRESS)
        "chunks": (count or {}).get("chunks"),
        "compressed_chunks": (count or {}).get("compressed_chunks"),
        "chunks_reason": None if (count or {}).get("chunks") is not None else
        ("no count.json" if count is None else "the database reports no chunks (its count has no `chunks`: it does not partition by time)"),
        "compression": compression((count or {}).get("compress"), storage_total, events, host_hours),
        "reason": "; ".join(reasons) or None,
    }


def compression(compress, storage_total, events, host_hours):
    """COMPRESS's figures (count.json `compress`: the setting, the sizes before it) or None when the
    run did not compress: the storage figures above are then the compressed ones; these are the
    uncompressed ones beside them, read the same way (after the same flush)."""
    if not isinstance(compress, dict):
        return None
    before = (compress.get("uncompressed") or {}).get("total_bytes")
    return {
        "setting": compress.get("setting"),
        "interval": compress.get("interval"),
        "uncompressed_total_bytes": before,
        "compressed_total_bytes": storage_total,
        "uncompressed_bytes_per_event": _div(before, events),
        "uncompressed_bytes_per_host_hour": _div(before, host_hours),
        "ratio": _div(before, storage_total),
        "statements": compress.get("statements"),
    }


def report_lines(result):
    """report.md's "Time-series ingest" section, right after the answer: per phase the model, the
    events and host-hours, the per-event costs (per_op: one event = one operation) and the storage
    per event and per host-hour; [] for other workloads."""
    runs = [r for r in result.get("runs") or [] if r.get("ingest")]
    if not runs:
        return []
    head = ["per event"] + [run_label(r) for r in runs]
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    cells = [
        ("model", lambda r: str(r["ingest"].get("model"))),
        ("events in the database / acknowledged", lambda r: f"{fmt(r['ingest'].get('events'))} / {fmt(r['ingest'].get('events_acknowledged'))}"),
        ("host-hours / rows or documents", lambda r: f"{fmt(r['ingest'].get('host_hours'))} / {fmt(r['ingest'].get('rows'))}"),
        ("CPU (µs/event)", lambda r: fmt((r.get("per_op") or {}).get("cpu_us"))),
        ("WAL/journal (B/event)", lambda r: fmt((r.get("per_op") or {}).get("wal_bytes"))
         if (r.get("per_op") or {}).get("wal_bytes") is not None else f"n/a ({(r.get('wal') or {}).get('reason') or 'no WAL figure'})"),
        ("network (B/event)", lambda r: fmt((r.get("per_op") or {}).get("net_bytes"))),
        ("latency p50 / p99 (ms)", lambda r: f"{fmt((r.get('latency_ms') or {}).get('p50'))} / {fmt((r.get('latency_ms') or {}).get('p99'))}"),
        ("storage (B/event)", lambda r: fmt(r["ingest"].get("storage_bytes_per_event"))),
        ("storage per host-hour", lambda r: fmt_bytes(r["ingest"].get("storage_bytes_per_host_hour"))),
    ]
    if any(r["ingest"].get("chunks") is not None for r in runs):
        cells.append(("chunks (compressed)", lambda r: "n/a" if r["ingest"].get("chunks") is None else
                      f"{fmt(r['ingest']['chunks'])} ({fmt(r['ingest'].get('compressed_chunks'))})"))
    if any(r["ingest"].get("compression") for r in runs):
        cells.append(("uncompressed per host-hour (COMPRESS)", lambda r: "not compressed" if not r["ingest"].get("compression") else
                      f"{fmt_bytes(r['ingest']['compression']['uncompressed_bytes_per_host_hour'])} "
                      f"({r['ingest']['compression']['setting']}: {fmt(r['ingest']['compression']['ratio'])}x smaller)"))
    for name, get in cells:
        rows.append("| " + " | ".join([name] + [get(r) for r in runs]) + " |")
    reasons = [f"{run_label(r)}: {r['ingest']['reason']}" for r in runs if r["ingest"].get("reason")]
    return (["## Time-series ingest", "",
             "One event = one operation (per-event costs are `per_op`); storage is the database's table/collection "
             "plus indexes over the events it holds and over the distinct host-hours ingested "
             "(results.json `runs[].ingest`).", "", "\n".join(rows), ""]
            + ([f"Missing: {'; '.join(reasons)}.", ""] if reasons else []) + index_lines(result))


def index_lines(result):
    """The secondary indexes the ingest maintained (the query set's, created before it by `init`,
    whether or not the bench runs queries): part of what each event costs."""
    indexes = result.get("indexes") or {}
    if not indexes:
        return ["Secondary indexes during the ingest: none (only the primary key, if the model has one).", ""]
    return [f"Secondary indexes during the ingest on {db} (the query set's, created before it): "
            + "; ".join(f"`{x}`" for x in stmts) for db, stmts in indexes.items()] + [""]


def sweep_lines(sides):
    """A sweep's "Time-series ingest, point by point" table (analysis/experiments/sweep_queries.py ingest_sides):
    one column per point and database; [] when no point ingested time series."""
    if not sides:
        return []
    labels = list(sides)
    # a repeated point: the repetition its figures are from (sweep_queries.ingest_sides)
    heads = [k + (f" (repetition {sides[k]['repetition']} of {sides[k]['repetitions']})"
                  if sides[k].get("repetition") is not None else "") for k in labels]
    rows = ["| per event | " + " | ".join(heads) + " |", "|" + "---|" * (len(labels) + 1)]
    cells = [
        ("model / events / host-hours", lambda s: f"{s['model']} / {fmt(s['events'])} / {fmt(s['host_hours'])}"),
        ("CPU (µs/event)", lambda s: fmt(s["cpu_us_per_event"])),
        ("WAL/journal (B/event)", lambda s: fmt(s["wal_bytes_per_event"]) if s["wal_bytes_per_event"] is not None
         else f"n/a ({s['wal_reason'] or 'no WAL figure'})"),
        ("network (B/event)", lambda s: fmt(s["net_bytes_per_event"])),
        ("latency p50 / p99 (ms)", lambda s: f"{fmt(s['latency_p50_ms'])} / {fmt(s['latency_p99_ms'])}"),
        ("storage (B/event)", lambda s: fmt(s["storage_bytes_per_event"])),
        ("storage per host-hour", lambda s: fmt_bytes(s["storage_bytes_per_host_hour"])),
        ("chunks (compressed)", lambda s: "n/a" if s["chunks"] is None else f"{fmt(s['chunks'])} ({fmt(s['compressed_chunks'])})"),
    ]
    for name, get in cells:
        rows.append("| " + " | ".join([name] + [get(sides[k]) for k in labels]) + " |")
    return ["Time-series ingest, point by point (results.json `ingest`; each point's report has the rest):", "",
            "\n".join(rows), ""]


def of_phase(ph, facts, storage_total):
    """ingest() of a phase (bench/folder.py Phase) of an ingest workload (the plan's workload `ingest`:
    tsbs); None for any other."""
    return ingest(ph.clients(), ph.count(), storage_total) if facts["ingest"] else None
