"""report.md's section of a study's own figures beside the lab's, for the workloads that reproduce a
study with published figures: WORKLOAD=globalsign (seed 001, GlobalSign's "High Performance JSON:
PostgreSQL vs MongoDB", FOSDEM PGDay 2018). The study's figures are its own, at its saturation (40
threads, 32 GB, FreeBSD/ZFS, PostgreSQL 9.6.5 with PgBouncer and full_page_writes=off, MongoDB 3.4.9,
10 million preloaded people, three clients of 50 workers each): throughput and p99 there are what each
database did flat out, the lab's are what it did at the bench's fixed rate here. The two are set side
by side to be read apart, never divided. Also the index proof of each phase (runs[].index_proof).
Nothing for any other workload."""
from ..common.labels import fmt, phase_id

# The study's figures per database and operation: (operations per second, p99 in ms), its three
# streams at once on the ~320 B people; the 1 MB variant's inserts: p99 only (seconds in the talk).
STUDY = {
    "mongodb": {"insert": (18070, 13), "update": (22304, 11), "range": (18960, 12)},
    "postgres": {"insert": (25244, 4), "update": (26085, 4), "range": (27778, 3)},
}
STUDY_1MB_INSERT_P99_MS = {"mongodb": 4500, "postgres": 1500}
ONE_MB = 1024 * 1024


def _workload(result):
    runs = result.get("runs") or []
    return runs[0].get("workload") if runs else None


def _pad_bytes(result):
    cfg = (result.get("config") or {}).get("run") or (result.get("config") or {}).get("bench") or {}
    try:
        return int(cfg.get("PAD_BYTES") or 0)
    except (TypeError, ValueError):
        return 0


def _lab_cells(run, op):
    """The lab's achieved operations per second of one type over the window, and its p99 (ms)."""
    o = (run.get("operations") or {}).get(op) or {}
    seconds = (run.get("window") or {}).get("seconds")
    rate = (o.get("ok") / seconds) if o.get("ok") is not None and seconds else None
    return fmt(rate), fmt((o.get("latency_ms") or {}).get("p99"))


def _proof_cell(proof):
    if proof is None:
        return "no proof (count printed none)"
    used = {True: "yes", False: "**no**", None: "unknown"}[proof.get("used")]
    nodes = " > ".join(proof.get("plan_nodes") or []) or "no plan"
    why = f"; {proof['reason']}" if proof.get("reason") else ""
    return f"{used} | {proof.get('index_used') or '—'} | {nodes}{why}"


def report_lines(result):
    if _workload(result) != "globalsign":
        return []
    runs = [r for r in result.get("runs") or [] if r.get("stage", "run") == "run"]
    one_mb = _pad_bytes(result) >= ONE_MB
    lines = ["## The study's figures beside the lab's (GlobalSign, seed 001)", "",
             "The study's figures are its own, at its saturation: 40 threads, 10 million preloaded people, three "
             "clients of 50 workers (one per operation) driving both servers flat out (PostgreSQL 9.6.5 behind "
             "PgBouncer with full_page_writes=off, MongoDB 3.4.9, FreeBSD/ZFS). The lab's are this run's, at the "
             "bench's fixed rate on this host" + (" (stand-ins: not the databases' results)" if any(
                 r.get("stand_in") for r in runs) else "") + ". Read them apart: a rate the lab chose is not a "
             "saturation throughput, and the study ran no MySQL.", ""]
    if one_mb:
        lines += ["| database | operation | study: p99 | lab: op/s | lab: p99 ms |", "|---|---|---|---|---|"]
        for r in runs:
            study = STUDY_1MB_INSERT_P99_MS.get(r["database"])
            rate, p99 = _lab_cells(r, "insert")
            lines.append(f"| {phase_id(r)} | insert (1 MiB padding) | {fmt(study / 1000) + ' s' if study else '—'} | {rate} | {p99} |")
    else:
        lines += ["| database | operation | study: op/s | study: p99 ms | lab: op/s | lab: p99 ms |",
                  "|---|---|---|---|---|---|"]
        for r in runs:
            for op in ("insert", "update", "range"):
                if op not in (r.get("operations") or {}):
                    continue
                study = STUDY.get(r["database"], {}).get(op)
                rate, p99 = _lab_cells(r, op)
                lines.append(f"| {phase_id(r)} | {op} | {fmt(study[0]) if study else '—'} | "
                             f"{fmt(study[1]) if study else '—'} | {rate} | {p99} |")
    lines += ["", "The index proof after each phase (count, outside the window): the plan of the range statement "
              "as the run sends it, explained after 6 executions (runs[].index_proof).", "",
              "| phase | index | used | index in the plan | plan |", "|---|---|---|---|---|"]
    for r in result.get("runs") or []:
        proof = r.get("index_proof")
        lines.append(f"| {phase_id(r)} | {(proof or {}).get('index') or '—'} | {_proof_cell(proof)} |")
    return lines + [""]
