"""A sweep's time-series ingest side by side (`ingest`) and its query answers compared across its points (sweep results.json `queries`, report.md
"Query answers across the points"): in a sweep whose points run the same query set (e.g. the paired
sweep MODEL+DATABASES of tsbs-timescale: MongoDB per event, MongoDB per host-hour, TimescaleDB),
each (point, database) that ran a query is one side; per query, every side's digest is compared with
the first side's: equal on all, or which differ with the first differing execution's rows (as a
bench compares its databases, analysis/queries.py). Beside it each side's per-query latency and CPU
(net of idle). A point summarised over repetitions (REPEAT > 1) is compared on its first repetition.
"""
import os

from . import queries, repeat
from .fileio import read_json
from .labels import fmt

FIELDS = ("latency_p50_ms", "latency_p99_ms", "cpu_us_net")


def _point_result(path):
    """The point's single run (results.json), or its first repetition's; None without one."""
    res = os.path.join(path, "results.json")
    if not os.path.exists(res):
        return None
    r = read_json(res)
    if repeat.is_experiment(r):
        first = os.path.join(path, "repeat-1", "results.json")
        return read_json(first) if os.path.exists(first) else None
    return r


def build(pts):
    """pts: [(value, folder, path)] of a sweep -> {query: comparison} or None when no point ran queries."""
    sides = {}  # query -> [(side label, run)]
    for value, _, path in pts:
        r = _point_result(path)
        for run in (r or {}).get("runs") or []:
            if run.get("stage") == "query" and run.get("query"):
                sides.setdefault(run["query"]["name"], []).append((f"{value}: {run['database']}", run))
    if not sides:
        return None
    return {name: _compare(runs) for name, runs in sides.items()}


def ingest_sides(pts):
    """{"<value>: <db>": the ingest phase's model, events, host-hours, CPU/WAL/network per event,
    latency, storage per event and per host-hour, chunks, compression} of each point, or None when no
    point ingested time series (WORKLOAD=tsbs)."""
    out = {}
    for value, _, path in pts:
        for run in ((_point_result(path) or {}).get("runs") or []):
            if run.get("ingest") and run.get("stage") != "query":
                i, op, lat = run["ingest"], run.get("per_op") or {}, run.get("latency_ms") or {}
                out[f"{value}: {run['database']}"] = {
                    "phase": run["phase"], "status": run.get("status"), "stand_in": bool(run.get("stand_in")),
                    **{k: i.get(k) for k in ("model", "events", "host_hours", "storage_bytes_per_event",
                                             "storage_bytes_per_host_hour", "chunks", "compressed_chunks")},
                    "cpu_us_per_event": op.get("cpu_us"), "wal_bytes_per_event": op.get("wal_bytes"),
                    "wal_reason": (run.get("wal") or {}).get("reason"), "net_bytes_per_event": op.get("net_bytes"),
                    "latency_p50_ms": lat.get("p50"), "latency_p99_ms": lat.get("p99"),
                    "compression_ratio": (i.get("compression") or {}).get("ratio")}
    return out or None


def _side(run):
    q = run["query"]
    pq = q.get("per_query") or {}
    return {"database": run["database"], "phase": run["phase"], "run_status": run.get("status"), "status": q.get("status"),
            "stand_in": bool(run.get("stand_in")), "digest": q.get("digest"), "answered": q.get("answered"),
            "rows_first": (q.get("per_execution") or [{}])[0].get("rows"), **{f: pq.get(f) for f in FIELDS}}


def _compare(runs):
    out = {"sides": {label: _side(run) for label, run in runs}, "answers_equal": None, "differ": [],
           "first_difference": None, "status": None, "reason": None}
    usable = [(label, run) for label, run in runs
              if run["query"].get("status") == "ok" and run.get("status") in ("ok", "suspect") and run["query"].get("digest")]
    left = [label for label, _ in runs if label not in dict(usable)]
    if left:
        out["status"] = "incomplete"
        out["reason"] = "; ".join(f"{label}: query {out['sides'][label]['status']} / phase {out['sides'][label]['run_status']}"
                                  for label in left)
    if len(usable) < 2:
        out["status"] = out["status"] or "incomplete"
        out["reason"] = out["reason"] or "fewer than two sides answered: nothing to compare"
        return out
    (base_label, base), rest = usable[0], usable[1:]
    differ = [(label, run) for label, run in rest if run["query"]["digest"] != base["query"]["digest"]
              or run["query"].get("normalisation") != base["query"].get("normalisation")]
    out["answers_equal"] = not differ and not left
    out["differ"] = [label for label, _ in differ]
    if differ:
        label, run = differ[0]
        d = queries._first_difference(run["query"], base["query"])
        out["status"] = "answers differ"
        out["first_difference"] = d and {"k": d["k"], label: {"digest": d["digests"][0], "rows": d["rows"][0], "answer": d["answers"][0]},
                                         base_label: {"digest": d["digests"][1], "rows": d["rows"][1], "answer": d["answers"][1]}}
        out["reason"] = "; ".join(filter(None, [out["reason"], f"differ from {base_label}'s: {', '.join(out['differ'])}"
                                                + (f" (execution {d['k']}: {d['rows'][0]} rows vs {d['rows'][1]})" if d else "")]))
    elif not left:
        empty = all(all(e.get("rows") == 0 for e in run["query"].get("per_execution") or [{}]) for _, run in usable)
        out["status"] = "empty" if empty else "ok"
        if empty:
            out["answers_equal"] = None
            out["reason"] = "every side answered 0 rows in every execution: equal digests prove nothing"
    return out


def report_lines(comparison):
    """report.md's section: one row per query, the digests' verdict, then each side's p50 and net CPU."""
    if not comparison:
        return []
    labels = list(dict.fromkeys(label for c in comparison.values() for label in c["sides"]))
    head = ["query", "answers"] + [f"{label} p50 ms / CPU µs net" for label in labels]
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    notes = []
    for name, c in comparison.items():
        verdict = {"ok": f"equal on all {len(c['sides'])} (digest {(next(iter(c['sides'].values()))['digest'] or '')[:12]})",
                   "answers differ": "DIFFER: " + ", ".join(c["differ"]), "empty": "empty", "incomplete": "incomplete"}.get(c["status"], c["status"])
        cells = [name, verdict]
        for label in labels:
            s = c["sides"].get(label)
            cells.append("—" if s is None else f"{fmt(s['latency_p50_ms'])} / {fmt(s['cpu_us_net'])}")
        rows.append("| " + " | ".join(cells) + " |")
        if c["reason"]:
            notes.append(f"- {name}: {c['reason']}")
        if c["first_difference"]:
            for label, side in c["first_difference"].items():
                if label != "k":
                    notes.append(f"  - {label}, execution {c['first_difference']['k']}: {side['rows']} rows, first: "
                                 f"`{str((side.get('answer') or [None])[0])[:200]}`")
    return (["## Query answers across the points", "",
             "Each point's query phases (one side per point and database), their answers' digests compared with the "
             "first side's (results.json `queries`); latency p50 and CPU net of the database's idle rate per query.", "",
             "\n".join(rows), ""] + notes + ([""] if notes else []))
