"""`results`: one bench folder's files -> results.json (schema: analysis/results.schema.json)."""
import datetime
import os

from ..common import databases
from ..common.fileio import read_env_file, write_json_atomic
from ..bench import benchfiles, folder, perfstat, phases, plan as plan_mod
from ..collect import monitoring
from . import (
    cpu_crosscheck, fairness, hdr, reconcile, schema, ingest as ingest_mod, operations as ops_mod,
    pooler as pooler_mod, queries as queries_mod, resources, transactions as txn_mod, wal as wal_mod,
)

SCHEMA_VERSION = 1
PER_DOC_FIELDS = ["cpu_us", "instructions", "write_bytes", "read_bytes", "net_bytes", "storage_bytes"]
SECRET_WORDS = ("PASSWORD", "SECRET", "TOKEN")


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


def build_run(ph, notes, docs_before=0, config=None):
    """One phase's run. ph: the phase's view of the bench folder (bench/folder.py Phase: its files,
    each read once), its id the phase's file prefix (the database for the insert workload,
    `<db>-load` / `<db>` for a workload with a load stage); docs_before: documents the database's
    earlier phases of this bench inserted (its load phase), expected in its count too; config: the
    run's bench keys (run.env), for what a workload's count must hold (oltp: TABLE_ROWS rows)."""
    phase_id, bench = ph.id, ph.bench
    phase = ph.doc() or {}
    database = phase.get("database") or benchfiles.database_of(phase_id)
    metrics = ph.metrics()
    count = ph.count()
    clients = ph.clients()
    service = phase.get("service") or database
    servers = [c.get("server") or {} for _, c in clients]

    stand_in_what = phase.get("stand_in")
    client_says_stand_in = any(s.get("stand_in") for s in servers)
    if not stand_in_what and client_says_stand_in:
        s = next(s for s in servers if s.get("stand_in"))
        stand_in_what = f"{s.get('product')} {s.get('version')}".strip()
    versions = sorted({str(s.get("version")) for s in servers if s.get("version")})
    products = sorted({str(s.get("product")) for s in servers if s.get("product")})
    comments = sorted({str(s.get("version_comment")) for s in servers if s.get("version_comment")})

    docs_ok = _sum(c.get("docs_ok") for _, c in clients)
    docs_in_db = None
    if count is not None:
        docs_in_db = count.get("documents", count.get("count", count.get("docs")))

    perf = phase.get("perf") or {}
    counted = perfstat.counted(ph.perfstat_text(), perf)
    events, instructions, instructions_event = counted["events"], counted["instructions"], counted["event"]
    instructions_scaled, instructions_reason = counted["scaled"], counted["reason"]

    cpu_user, cpu_sys = resources.cpu_seconds(metrics, service)
    disk = resources.disk(metrics, service)
    network = resources.network(metrics, service)
    storage = {k: (count or {}).get(k) for k in ("table_bytes", "index_bytes", "total_bytes")}
    storage.update(_settled_storage(count))

    # the documents this phase added: what the database holds minus what its earlier phases
    # (a load) inserted; the insert workload has no earlier phase
    divisor = (docs_in_db - docs_before) if docs_in_db else docs_ok
    cpu_total = None if cpu_user is None or cpu_sys is None else cpu_user + cpu_sys
    usage = (metrics or {}).get("cpu_usage") or {"gross_s": None, "net_s": None, "idle": None,
                                                 "reason": "no cpu_usage in the metrics export"}
    net_total = None if None in network.values() else network["rx_bytes"] + network["tx_bytes"]
    first = clients[0][1] if clients else {}
    workload = first.get("workload") or "insert"
    # what analysis needs of the workload: the plan's (its file's `analysis`), else the old facts
    facts = plan_mod.workload_facts(bench, workload)
    stage = phase.get("stage") or first.get("stage") or "run"
    operations, ops_note = ops_mod.merge(clients)
    # what the phase added to the database's count: its operations that each add one document (tsbs:
    # a bucket upsert adds one event, count = events held, analysis/figures/ingest.py)
    inserted = sum((operations.get(op) or {}).get("ok") or 0 for op in facts["insert_ops"])
    # per_doc is an insert cost: the phase's figures over its documents, only where it did nothing
    # but inserts (the insert workload, a load phase); storage per document holds for every phase.
    inserts_only = set(operations) <= set(facts["insert_ops"])
    per_doc = {
        "docs": divisor,
        "basis": "docs_in_db" if docs_in_db else "docs_ok",
        "cpu_us": _div(cpu_total, divisor, 1e6),
        "instructions": _div(instructions, divisor),
        "write_bytes": _div(disk["write_bytes"], divisor),
        "read_bytes": _div(disk["read_bytes"], divisor),
        "net_bytes": _div(net_total, divisor),
        # storage is what all documents in the database take
        "storage_bytes": _div(storage["total_bytes"], docs_in_db if docs_in_db else divisor),
    }
    if not inserts_only:
        per_doc.update({k: None for k in ("cpu_us", "instructions", "write_bytes", "read_bytes", "net_bytes")})
        per_doc["reason"] = ("the phase ran " + ", ".join(operations) + ": per-document costs are insert costs; "
                             "see per_op (storage_bytes is per document in the database)")
    server_stats = ph.server_stats()
    wal = wal_mod.wal(database, server_stats, phase_id)
    mix = first.get("mix") if isinstance(first.get("mix"), dict) else None
    per_op = ops_mod.per_op(operations, cpu_total, instructions, net_total, wal["bytes"], mix,
                            usage.get("net_s"), usage.get("reason"))
    # logs a database keeps beside its WAL (its hooks' LOGS: MySQL's binary log), per operation as
    # the WAL; a database without one gets no such field
    logs = wal_mod.further_logs(database, server_stats, phase_id)
    for name, log in logs.items():
        per_op[f"{name}_bytes"] = ops_mod.per_op(operations, None, None, None, log["bytes"], mix)["wal_bytes"]
    if phase.get("pooler"):
        per_op["includes_pooler"] = pooler_mod.INCLUDES
    timeline = ops_mod.merge_timeline(clients, (phase.get("window") or {}).get("start"))
    docs_expected = docs_before + (inserted if operations else (docs_ok or 0))
    # transactions (booking, oltp): the clients' counts merged; what the count must hold: one row per
    # committed transaction (booking's seats: count's nothing-lost check also allows the in-doubt
    # ones), or the number a bench key gives (oltp's TABLE_ROWS: a delete+insert keeps its id)
    txn = txn_mod.merge(clients) if facts["transactions"] else None
    check = txn_mod.booking_check(count)
    expect = facts["count_expected"]
    if expect["basis"] == "committed" and txn is not None:
        docs_expected = docs_before + txn["committed"]
    elif expect["basis"] == "setting" and str((config or {}).get(expect["setting"]) or "").isdigit():
        docs_expected = int(config[expect["setting"]])

    window = phase.get("window") or {}
    start, end = window.get("start"), window.get("end")
    run_notes = list((metrics or {}).get("notes") or [])
    if metrics is None:
        run_notes.append(f"{phase_id}.metrics.json missing: no Prometheus figures for this phase")
    if count is None:
        run_notes.append(f"{phase_id}.count.json missing: no database-side count or sizes")
    uncovered = txn_mod.check_uncovered(check, txn)
    if uncovered:
        run_notes.append(uncovered)
    if docs_in_db is not None and clients and docs_in_db != docs_expected and check is None:
        run_notes.append(f"documents in the database ({docs_in_db}) differ from documents acknowledged "
                         f"by the clients ({docs_expected}" + (f", {docs_before} of them in earlier phases)"
                                                                if docs_before else ")"))
    if ops_note:
        run_notes.append(f"operations: {ops_note}")
    run_notes[:] = _one_created_in_window_note(run_notes)
    if instructions_scaled:
        run_notes.append(f"instructions not counted ({instructions_reason}); the estimate is in cpu.instructions_scaled")
    elif instructions is None:
        run_notes.append(f"instructions not counted ({instructions_reason}); software events only")
    expected_clients = phase.get("clients")
    if isinstance(expected_clients, int) and expected_clients != len(clients):
        run_notes.append(f"{len(clients)} client result file(s) for {expected_clients} client(s)")
    notes.extend(f"{phase_id}: {n}" for n in run_notes)

    reconciliation = reconcile.of_phase(ph, database, server_stats, clients, phase, check)
    status, reason = phase.get("status", "missing"), phase.get("reason") or None
    if check is not None and not check.get("ok"):
        # the lab fails the phase on count's exit 1; a folder from elsewhere is held to the same rule
        lost = "nothing-lost check failed: " + "; ".join(check.get("problems") or ["(no problem listed)"])
        run_notes.append(lost)
        if status in ("ok", "suspect"):
            status, reason = "failed", lost
    if facts["transactions"] and count is None and status in ("ok", "suspect"):
        # a transaction workload's count is its correctness check (phase_status.COUNT_FAILED): without
        # it the phase is not known to have kept what it committed, and its figures compare nothing
        status, reason = "failed", (f"no count after the phase ({phase_id}.count.json missing): the transactions' "
                                    "correctness check (what the database holds: nothing lost) did not run")
        run_notes.append(reason)
    if reconciliation["verdict"] == "suspect":
        run_notes.append("SUSPECT: work in the window the lab did not ask for: " + "; ".join(reconciliation["reasons"]))
        if status == "ok":  # failed/interrupted keep their meaning; suspect is an ok phase with foreign work
            status, reason = "suspect", "; ".join(reconciliation["reasons"])
    cpu_mismatch = cpu_crosscheck.crosscheck(cpu_total, _cgroup_cpu(phase), (end - start) if start and end else None,
                                             (metrics or {}).get("scrape_interval_s"))
    if cpu_mismatch:
        run_notes.append("SUSPECT: " + cpu_mismatch)
        if status == "ok":
            status, reason = "suspect", cpu_mismatch
        elif status == "suspect":
            reason = f"{reason}; {cpu_mismatch}"
    run_notes.extend(f"server counters: {n}" for n in reconciliation["notes"])
    if reconciliation["verdict"] != "suspect" and reconciliation["unavailable"]:
        run_notes.append(f"server counters not reconciled: {reconciliation['unavailable']}")

    run = {
        "database": database,
        "phase": phase_id,
        "stage": stage,
        "workload": workload,
        "service": service,
        "product": products[0] if len(products) == 1 else (products or None),
        "image": phase.get("image"),
        # the image's OS and C library, read by the lab before the phases (lab/image-os.py)
        "image_os": phase.get("image_os"),
        "server_version": versions[0] if len(versions) == 1 else (", ".join(versions) or None),
        "server_version_comment": ", ".join(comments) or None,
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
        "docs_expected_in_db": docs_expected if clients else None,
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
            # perf counts `instructions:u` (lab/driver/probe.py): what the kernel ran for the server is not in it
            "instructions_scope": ("user mode only (instructions:u): instructions the kernel ran for the server "
                                   "(system calls, network, I/O) are not counted") if instructions is not None
                                  and str(instructions_event or "").endswith(":u") else None,
            # why instructions is null: not counted on this host, or only a scaled estimate
            "instructions_reason": instructions_reason,
            # perf multiplexed instructions: {running_pct, estimate, reason}; null when counted throughout
            "instructions_scaled": instructions_scaled,
            "hardware_counters": perf.get("hardware_counters", instructions is not None),
            "perf_events": {k: v["value"] for k, v in events.items()},
            "perf_units": {k: v["unit"] for k, v in events.items() if v["unit"]},
            # per counted event, the share of its enabled time it ran (perf stat's percentage column):
            # below 100 its perf_events value is perf's scaled estimate
            "perf_running_pct": {k: v["running_pct"] for k, v in events.items() if v.get("running_pct") is not None},
            "perf_reason": perf.get("reason"),
            "cgroup_cpu_s": _cgroup_cpu(phase),
            # container_cpu_usage_seconds_total (ns) over the window, and net of the idle rate read
            # just before the clients started (analysis/collect/idle.py); null with the reason
            "usage": usage,
        },
        "client_cpu": resources.client_cpu(metrics),
        "memory": resources.memory(metrics, service),
        "disk": disk,
        "network": network,
        "storage": storage,
        # an ingest (the plan's workload `ingest`: tsbs): the model, events and host-hours ingested,
        # storage per event and per host-hour
        "ingest": ingest_mod.ingest(clients, count, storage["total_bytes"]) if facts["ingest"] else None,
        # DIGEST=documents: count's digest of every key and document read back after the phase
        # (client/src/document-digest.js); null when not asked for
        "documents_digest": (count or {}).get("digest"),
        "per_doc": per_doc,
        # Per operation type (counts, exactly merged latency percentiles) and the phase's resources
        # per operation; WAL/journal bytes from the server's own counters; per-second timeline.
        "operations": operations,
        "per_op": per_op,
        "wal": wal,
        **logs,
        "timeline": timeline,
        # WORKLOAD=booking/oltp: the transactions merged over the clients (analysis/figures/transactions.py) with
        # the phase's CPU per committed transaction; booking: count's nothing-lost check, rows included
        "transactions": txn_mod.with_costs(txn, cpu_total, _sum(c.get("target_rate") for _, c in clients),
                                            usage),
        # POOL=pgbouncer: the pooler's own CPU, memory and network, and per operation the server alone
        # beside the server + pooler (analysis/figures/pooler.py); null without a pooler
        "pooler": pooler_mod.summary(phase, metrics, per_op["ops"], txn["committed"] if txn else None, cpu_total, network),
        "booking_check": check,
        # The perf record profile (file for the Firefox Profiler, or why there is none).
        "profile": _profile(perf),
        # What watching cost: cAdvisor's and Prometheus's own CPU in the window.
        "monitoring": monitoring.summary(metrics),
        "metrics_quality": resources.quality(metrics),
        "reconciliation": reconciliation,
        "notes": run_notes,
    }
    if stage == "query":  # the query, its answers' digest and its cost per query (analysis/figures/queries.py)
        run["query"] = queries_mod.run_query(run, clients, bench)
    return run


def _settled_storage(count):
    """The sizes `count` read before its flush (CHECKPOINT / {fsync: 1}) beside the settled ones it
    reports: MongoDB's collStats sizes are file sizes, short of pages still dirty in the cache."""
    settle = (count or {}).get("settle")
    if not settle:
        return {"before_settle": None, "settle": None,
                "settle_reason": "count.json has no `settle` (a count before issue 16): sizes read without a flush"}
    return {"before_settle": settle.get("before"), "settle": settle.get("command"), "settle_reason": settle.get("reason")}


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


def _created_in_window(note):
    return "no sample at window start: the container was created in the window" in note


def _one_created_in_window_note(run_notes):
    """Every phase starts its clients inside its window, so their counters have no sample before
    it: one note for all of them instead of one per client container."""
    created = [n for n in run_notes if _created_in_window(n)]
    if not created:
        return run_notes
    kept = [n for n in run_notes if not _created_in_window(n)]
    return kept + [f"{len(created)} client container(s) created in the window (as every phase's clients are): "
                   "their counters' start values are taken as 0"]


def _ratio(a, b):
    return (a / b) if a is not None and b else None


def ratios(runs, numerator=None, denominator=None, stage="run"):
    """numerator/denominator of the phases of one stage (`run`: the insert workload's phases, a
    workload's measured run; `load`: its load phases); by default the stated baseline
    (databases/baseline.json: mongodb/postgres, as the original study)."""
    numerator, denominator = databases.pair(numerator, denominator)
    by_db = {r["database"]: r for r in runs if r.get("stage", "run") == stage}
    num, den = by_db.get(numerator), by_db.get(denominator)
    out = {"numerator": numerator, "denominator": denominator,
           "stand_in": bool((num and num["stand_in"]) or (den and den["stand_in"]))}
    # a ratio of a phase that failed or did work the lab did not send would compare unequal work
    flagged = [f"{r['phase']} status {r['status']}" + (f" ({r['reason']})" if r.get("reason") else "")
               for r in (num, den) if r and r.get("status") != "ok"]
    if flagged:
        out["reason"] = "no ratio: " + "; ".join(flagged)
        num = den = None
    for f in PER_DOC_FIELDS:
        out[f] = _ratio(num["per_doc"][f] if num else None, den["per_doc"][f] if den else None)
    out["per_op"] = {f: _ratio((num.get("per_op") or {}).get(f) if num else None,
                               (den.get("per_op") or {}).get(f) if den else None)
                     for f in ops_mod.COST_FIELDS}
    # latency per operation type: p50 and p99 of the merged histograms
    lat = {}
    for op in (num or {}).get("operations") or {}:
        a = ((num["operations"][op] or {}).get("latency_ms") or {})
        b = (((den or {}).get("operations") or {}).get(op) or {}).get("latency_ms") or {}
        lat[op] = {p: _ratio(a.get(p), b.get(p)) for p in ("p50", "p99")}
    out["latency"] = lat
    return out


def _lab_env(path):
    if not path or not os.path.exists(path):
        return None
    env = read_env_file(path)
    return {k: ("<redacted>" if any(w in k.upper() for w in SECRET_WORDS) else v) for k, v in env.items()}


# Operations that change existing documents: with them the last value of a field is whichever update
# the server applied last, and concurrent clients' updates reach each server in its own order.
UPDATING_OPS = ("update", "rmw")


def documents_compared(runs):
    """Per stage (load, run) of a DIGEST=documents bench: the databases' digests side by side and
    whether they are all equal (null when fewer than two databases have one). `keys_equal`: the same
    keys (null for KEY=sequence, whose keys each server makes). `order_dependent`: the stage updated
    existing documents from concurrent clients or connections, so documents may differ legitimately
    (each server applied concurrent updates of one field in its own order); otherwise a difference
    means the databases did not do the same work."""
    out = []
    for stage in dict.fromkeys(r.get("stage", "run") for r in runs):
        phases = [r for r in runs if r.get("stage", "run") == stage and r.get("documents_digest")]
        have = {r["database"]: r["documents_digest"] for r in phases}
        if not have:
            continue
        shas = {db: d["sha256"] for db, d in have.items()}
        equal = len(set(shas.values())) == 1 if len(shas) > 1 else None
        key_shas = {db: d.get("keys_sha256") for db, d in have.items()}
        keys_equal = (len(set(key_shas.values())) == 1 if len(shas) > 1 else None) \
            if all(key_shas.values()) else None
        first = next(iter(shas.values()))
        out.append({"stage": stage, "equal": equal, "keys_equal": keys_equal,
                    "order_dependent": any(op in (r.get("operations") or {}) for r in phases for op in UPDATING_OPS),
                    "digests": shas, "documents": {db: d["documents"] for db, d in have.items()},
                    "keys": next(iter(have.values())).get("keys"),
                    "differ": None if equal is not False else ", ".join(db for db, s in shas.items() if s != first)
                    + f" against {next(iter(shas))}"})
    return out


def build(bench_dir, lab_env=None):
    """results.json of a bench folder: its files read once, through one Bench (bench/folder.py)."""
    bench = folder.Bench(bench_dir)
    bench_dir = bench.path
    env = bench.bench_env()
    run_env = plan_mod.run_settings(bench)  # config.run: plan.json's settings.given, else run.env
    # the run's settings: plan.json's (defaults filled in), else run.env's (analysis/bench/plan.py)
    effective = plan_mod.settings(bench) or env
    present = phases.phases_in(bench)
    notes = []
    runs, inserted_before = [], {}
    for ph in present:
        db_of = benchfiles.database_of(ph)
        runs.append(build_run(bench.phase(ph), notes, inserted_before.get(db_of, 0), effective))
        inserted_before[runs[-1]["database"]] = runs[-1]["docs_expected_in_db"] or 0
    incomplete = [f"{ph}: no phase file (phase never ran)"
                  for ph in plan_mod.expected_phases(bench, effective)
                  if ph not in present]
    incomplete += [f"{r['phase']}: status {r['status']}" + (f" ({r['reason']})" if r["reason"] else "")
                   for r in runs if r["status"] not in ("ok", "suspect")]
    for r in runs:
        ph = r["phase"]
        missing = [f"{ph}.{k}.json" for k in ("metrics", "count") if not bench.phase(ph).has(f".{k}.json")]
        if missing:
            incomplete.append(f"{ph}: missing " + ", ".join(missing))
        if isinstance(r["clients_expected"], int) and r["clients"] < r["clients_expected"]:
            incomplete.append(f"{ph}: {r['clients']} of {r['clients_expected']} client result files")
        # Nothing lost: what the database holds must be exactly what the clients saw acknowledged
        # (in this phase and the database's earlier phases of the bench).
        # (booking: count's own check, which knows the in-doubt commits, decides instead; its failure
        # fails the phase, listed above)
        if (r["docs_in_db"] is not None and r["docs_expected_in_db"] is not None and r["docs_in_db"] != r["docs_expected_in_db"]
                and r.get("booking_check") is None):
            incomplete.append(f"{ph}: {r['docs_in_db']} documents in the database but {r['docs_expected_in_db']} "
                              f"acknowledged by the clients")
        # booking: a passed check speaks for the clients' bookings only if it looked for them
        uncovered = txn_mod.check_uncovered(r.get("booking_check"), r.get("transactions"))
        if uncovered:
            incomplete.append(f"{ph}: {uncovered}")
    dbs = list(dict.fromkeys(r["database"] for r in runs))
    compared = documents_compared(runs)
    incomplete += [f"{c['stage']} phases: the documents read back differ between the databases ({c['differ']})"
                   for c in compared if c["keys_equal"] is False or (c["equal"] is False and not c["order_dependent"])]
    settings = {db: bench.settings(db) for db in dbs}
    result = {
        "schema_version": SCHEMA_VERSION,
        "bench": os.path.basename(os.path.abspath(bench_dir)),
        "description": effective.get("DESCRIPTION"),
        "generated_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "complete": not incomplete,
        "incomplete": incomplete,
        "config": {
            "bench": env,
            "run": run_env,
            "database_settings": settings,
            "lab_env": _lab_env(lab_env),
            # MongoDB's topology (bench key TOPOLOGY, default standalone): a standalone mongod writes
            # no oplog; replset, a one-member replica set, writes one as production MongoDB does.
            "topology": effective.get("TOPOLOGY") or "standalone",
        },
        "host": bench.host(),
        "runs": runs,
        "ratios": ratios(runs),
        # the load phases' ratios (insert costs), null for a workload without a load stage
        "load_ratios": ratios(runs, stage="load") if any(r["stage"] == "load" for r in runs) else None,
        # DIGEST=documents: per stage, whether every database holds the same keys and documents
        "documents_compared": compared,
        "notes": notes,
    }
    # a database beyond the baseline's pair (DATABASES="mongodb postgres mysql"): its ratios against the
    # baseline's denominator, "mysql/postgres"; absent for the pair alone, whose results stay as they were
    others = databases.others(dbs)
    if others:
        den = databases.baseline()[1]
        result["other_ratios"] = {f"{db}/{den}": ratios(runs, db, den) for db in others}
        if result["load_ratios"] is not None:
            result["other_load_ratios"] = {f"{db}/{den}": ratios(runs, db, den, stage="load") for db in others}
    if any(r.get("stage") == "query" for r in runs):
        # per query type, the databases side by side: answers' digests, equal or not, cost ratios
        result["queries"] = queries_mod.compare(runs)
    # the indexes a query set declared, as each database created them (init)
    result["indexes"] = queries_mod.indexes(bench, dbs)
    # what differs between the sides, stated from what ran (analysis/figures/fairness.py; README "Fairness")
    result["fairness"] = fairness.statements(settings, effective)
    return result


def write(bench_dir, lab_env=None):
    result = build(bench_dir, lab_env)
    schema.validate(result)
    write_json_atomic(os.path.join(bench_dir, "results.json"), result)
    return result
