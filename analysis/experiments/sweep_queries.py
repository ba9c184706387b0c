"""A sweep's time-series ingest side by side (`ingest`) and its query answers compared across its points (sweep results.json `queries`, report.md
"Query answers across the points"): in a sweep whose points run the same query set (e.g. the paired
sweep MODEL+DATABASES of tsbs-timescale: MongoDB per event, MongoDB per host-hour, TimescaleDB),
each (point, database) that ran a query is one side; per query, every side's digest is compared with
the first side's: equal on all, or which differ with the first differing execution's rows (as a
bench compares its databases, analysis/figures/queries.py). Beside it each side's per-query latency and CPU
(net of idle). A point repeated (REPEAT > 1) is compared on every repetition: each one's answers
against the first side's, its figures the mean over the repetitions whose phase is ok (`repetitions`
names them). A side whose figures come from a suspect phase is marked so.
"""
import os

from ..common.fileio import read_json
from ..common.labels import fmt
from ..figures import queries
from . import repeat

FIELDS = ("latency_p50_ms", "latency_p99_ms", "cpu_us_net")


def _point_results(path):
    """[(repetition number, or None for a single run, results.json)] of a point: its single run, or
    each of its repetitions that wrote one; [] without any."""
    res = os.path.join(path, "results.json")
    if not os.path.exists(res):
        return []
    r = read_json(res)
    if not repeat.is_experiment(r):
        return [(None, r)]
    out = []
    for i, rep in repeat.repetition_dirs(path):
        p = os.path.join(rep, "results.json")
        if os.path.exists(p):
            out.append((i, read_json(p)))
    return out


def build(pts):
    """pts: [(value, folder, path)] of a sweep -> {query: comparison} or None when no point ran queries."""
    sides = {}  # query -> {side label: [(repetition, run, its results.json complete)]}
    for value, _, path in pts:
        for rep, r in _point_results(path):
            for run in r.get("runs") or []:
                if run.get("stage") == "query" and run.get("query"):
                    sides.setdefault(run["query"]["name"], {}).setdefault(f"{value}: {run['database']}", []).append(
                        (rep, run, bool(r.get("complete", True))))
    if not sides:
        return None
    return {name: _compare(list(by_label.items())) for name, by_label in sides.items()}


def ingest_sides(pts):
    """{"<value>: <db>": the ingest phase's model, events, host-hours, CPU/WAL/network per event,
    latency, storage per event and per host-hour, chunks, compression} of each point, or None when no
    point ingested time series (WORKLOAD=tsbs). A repeated point gives the first repetition whose
    phase is ok (else its first), named in `repetition` (null for a single run)."""
    out = {}
    for value, _, path in pts:
        found = {}
        for rep, r in _point_results(path):
            for run in r.get("runs") or []:
                if run.get("ingest") and run.get("stage") != "query":
                    found.setdefault(run["database"], []).append((rep, run))
        for db, reps in found.items():
            rep, run = next(((k, x) for k, x in reps if x.get("status") == "ok"), reps[0])
            i, op, lat = run["ingest"], run.get("per_op") or {}, run.get("latency_ms") or {}
            out[f"{value}: {db}"] = {
                "phase": run["phase"], "status": run.get("status"), "stand_in": bool(run.get("stand_in")),
                "repetition": rep, "repetitions": len(reps) if rep is not None else None,
                **{k: i.get(k) for k in ("model", "events", "host_hours", "storage_bytes_per_event",
                                         "storage_bytes_per_host_hour", "chunks", "compressed_chunks")},
                "cpu_us_per_event": op.get("cpu_us"), "wal_bytes_per_event": op.get("wal_bytes"),
                "wal_reason": (run.get("wal") or {}).get("reason"), "net_bytes_per_event": op.get("net_bytes"),
                "latency_p50_ms": lat.get("p50"), "latency_p99_ms": lat.get("p99"),
                "compression_ratio": (i.get("compression") or {}).get("ratio")}
    return out or None


def _mean(values):
    vals = [v for v in values if v is not None]
    return sum(vals) / len(vals) if vals else None


def _usable(run):
    q = run["query"]
    return q.get("status") == "ok" and run.get("status") in ("ok", "suspect") and q.get("digest")


def _side(reps):
    """One side from its runs [(repetition, run, complete)]: the first run's identity and answers, its
    figures the mean over the runs whose phase is ok in a complete results.json, else over the suspect
    ones (`figures_from` says which, `suspect` names why)."""
    rep0, run0, _ = reps[0]
    q = run0["query"]
    ok = [(rep, run) for rep, run, complete in reps if run.get("status") == "ok" and complete]
    suspect = [(rep, run) for rep, run, complete in reps if run.get("status") == "suspect" and complete]
    used, source = (ok, "ok") if ok else ((suspect, "suspect") if suspect else ([], None))
    statuses = [run.get("status") for _, run, _ in reps]
    worst = next((s for s in ("failed", "interrupted", "missing", "suspect") if s in statuses), statuses[0])
    per = [(run["query"].get("per_query") or {}) for _, run in used]
    return {"database": run0["database"], "phase": run0["phase"], "run_status": worst, "status": q.get("status"),
            "stand_in": any(bool(run.get("stand_in")) for _, run, _ in reps), "digest": q.get("digest"),
            "answered": q.get("answered"), "rows_first": (q.get("per_execution") or [{}])[0].get("rows"),
            **{f: _mean([p.get(f) for p in per]) for f in FIELDS},
            # a repeated point: which repetitions the figures are the mean of, out of how many
            "repetitions": [rep for rep, _ in used] if rep0 is not None else None,
            "of": len(reps) if rep0 is not None else None,
            "figures_from": source,
            "suspect": "; ".join(dict.fromkeys(
                (f"repetition {rep}: " if rep is not None else "") + (run.get("reason") or "no reason given")
                for rep, run, _ in reps if run.get("status") == "suspect")) or None}


def _label(label, rep):
    return label if rep is None else f"{label} (repetition {rep})"


def _compare(sides):
    """sides: [(label, [(repetition, run, complete)])] in the points' order."""
    out = {"sides": {label: _side(reps) for label, reps in sides}, "answers_equal": None, "differ": [],
           "first_difference": None, "status": None, "reason": None}
    # every usable run of every side (each repetition of a repeated point) is compared
    usable = [(label, [(rep, run) for rep, run, _ in reps if _usable(run)]) for label, reps in sides]
    left = [label for label, runs in usable if not runs]
    usable = [(label, runs) for label, runs in usable if runs]
    if left:
        out["status"] = "incomplete"
        out["reason"] = "; ".join(f"{label}: query {out['sides'][label]['status']} / phase {out['sides'][label]['run_status']}"
                                  for label in left)
    if len(usable) < 2:
        out["status"] = out["status"] or "incomplete"
        out["reason"] = out["reason"] or "fewer than two sides answered: nothing to compare"
        return out
    base_label, base_runs = usable[0]
    base_rep, base = base_runs[0]
    base_name = _label(base_label, base_rep)
    differ = [(label, rep, run) for label, runs in usable for rep, run in runs
              if run is not base and (run["query"]["digest"] != base["query"]["digest"]
                                      or run["query"].get("normalisation") != base["query"].get("normalisation"))]
    out["answers_equal"] = not differ and not left
    out["differ"] = list(dict.fromkeys(label for label, _, _ in differ))
    if differ:
        label, rep, run = differ[0]
        d = queries._first_difference(run["query"], base["query"])
        name = _label(label, rep)
        out["status"] = "answers differ"
        out["first_difference"] = d and {"k": d["k"], name: {"digest": d["digests"][0], "rows": d["rows"][0], "answer": d["answers"][0]},
                                         base_name: {"digest": d["digests"][1], "rows": d["rows"][1], "answer": d["answers"][1]}}
        out["reason"] = "; ".join(filter(None, [out["reason"], f"differ from {base_name}'s: "
                                                + ", ".join(dict.fromkeys(_label(lb, r) for lb, r, _ in differ))
                                                + (f" (execution {d['k']}: {d['rows'][0]} rows vs {d['rows'][1]})" if d else "")]))
    elif not left:
        empty = all(all(e.get("rows") == 0 for e in run["query"].get("per_execution") or [{}])
                    for _, runs in usable for _, run in runs)
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
    suspects = {}
    for name, c in comparison.items():
        verdict = {"ok": f"equal on all {len(c['sides'])} (digest {(next(iter(c['sides'].values()))['digest'] or '')[:12]})",
                   "answers differ": "DIFFER: " + ", ".join(c["differ"]), "empty": "empty", "incomplete": "incomplete"}.get(c["status"], c["status"])
        cells = [name, verdict]
        for label in labels:
            s = c["sides"].get(label)
            cells.append("—" if s is None else f"{fmt(s['latency_p50_ms'])} / {fmt(s['cpu_us_net'])}" + _marks(s))
            if s and s.get("suspect"):
                suspects.setdefault(label, []).append(s["suspect"])
        rows.append("| " + " | ".join(cells) + " |")
        if c["reason"]:
            notes.append(f"- {name}: {c['reason']}")
        if c["first_difference"]:
            for label, side in c["first_difference"].items():
                if label != "k":
                    notes.append(f"  - {label}, execution {c['first_difference']['k']}: {side['rows']} rows, first: "
                                 f"`{str((side.get('answer') or [None])[0])[:200]}`")
    for label, why in suspects.items():
        notes.append(f"- SUSPECT {label}: " + "; ".join(dict.fromkeys(why)) + " (work the lab did not send in the window, "
                     "or CPU readings that disagree: its figures include it)")
    return (["## Query answers across the points", "",
             "Each point's query phases (one side per point and database), their answers' digests compared with the "
             "first side's (results.json `queries`; a repeated point: every repetition's); latency p50 and CPU net of "
             "the database's idle rate per query (a repeated point: the mean over its repetitions whose phase is ok, "
             "\"mean of reps i, j of N\").", "",
             "\n".join(rows), ""] + notes + ([""] if notes else []))


def _marks(side):
    """What a side's figures are: a mean over which repetitions, and SUSPECT where they come from (or
    the point holds) a suspect phase."""
    out = []
    if side.get("repetitions") is not None:
        reps = side["repetitions"]
        out.append(f"mean of reps {', '.join(map(str, reps))} of {side['of']}" if reps else f"no ok repetition of {side['of']}")
    if side.get("figures_from") == "suspect":
        out.append("SUSPECT")
    elif side.get("suspect"):
        out.append("a repetition suspect, left out")
    return f" ({'; '.join(out)})" if out else ""
