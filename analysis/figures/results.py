"""`results`: one bench folder's files -> results.json (schema: analysis/results.schema.json)."""
import datetime
import os

from ..common import databases
from ..common.fileio import read_env_file, write_json_atomic
from ..bench import benchfiles, folder, phases, plan as plan_mod
from ..collect import monitoring
from . import (
    counts, cpu_crosscheck, fairness, hdr, identity, memory, per_doc, profile_samples, reconcile, resources, schema,
    cpu as cpu_mod, groups as groups_mod, ingest as ingest_mod, operations as ops_mod, pooler as pooler_mod, queries as queries_mod,
    read_io as read_io_mod, status as status_mod, storage as storage_mod, transactions as txn_mod, wal as wal_mod,
    clock as clock_mod,
)

SCHEMA_VERSION = 1
PER_DOC_FIELDS = [*per_doc.INSERT_COSTS, "storage_bytes"]
SECRET_WORDS = ("PASSWORD", "SECRET", "TOKEN")


def build_run(ph, notes, docs_before=0, config=None):
    """One phase's run: each figure a function of the phase (bench/folder.py Phase: its files, each
    read once), in the module it belongs to. ph.id is the phase's file prefix (the database for the
    insert workload, `<db>-load` / `<db>` for a workload with a load stage); notes: the bench's notes,
    which get the phase's notes about its data; docs_before: documents the database's earlier phases
    of this bench inserted (its load phase), expected in its count too; config: the run's bench keys
    (run.env), for what a workload's count must hold (oltp: TABLE_ROWS rows)."""
    who = identity.of_phase(ph)
    # what analysis needs of the workload: the plan's (its file's `analysis`), else the old facts
    facts = plan_mod.workload_facts(ph.bench, who["workload"])
    operations, ops_note = ops_mod.merge(ph.clients())
    txn = txn_mod.of_phase(ph, facts)
    check = txn_mod.booking_check(ph.count())
    counted = counts.of_phase(ph, counts.docs_expected(ph, facts, operations, txn, docs_before, config))
    cpu = cpu_mod.of_phase(ph, who["service"])
    cpu_s = cpu_mod.total_s(cpu)
    used = resources.of_phase(ph, who["service"])
    net_bytes = resources.net_total(used["network"])
    storage = storage_mod.of_phase(ph)
    wal, logs = wal_mod.of_phase(ph)
    per_op = ops_mod.per_op_of_phase(ph, operations, cpu, cpu_s, net_bytes, wal, logs)

    run_notes = status_mod.data_notes(ph, counted, docs_before, check, txn, ops_note, cpu)
    notes.extend(f"{ph.id}: {n}" for n in run_notes)
    reconciliation = reconcile.of_phase(ph, check)
    # the memory the bench asked for, held to what ran: the server's own cache, the cgroup's limit
    cache, limit = memory.cache(ph, config), memory.memory_limit(ph, config)
    status, reason, status_notes = status_mod.of_phase(ph, facts, check, reconciliation,
                                                       cpu_crosscheck.of_phase(ph, cpu), clock_mod.skew(ph.doc()),
                                                       memory.mismatches(cache, limit))
    run_notes += status_notes + reconcile.notes(reconciliation)
    window = identity.window(ph)
    run = {
        **who,
        "status": status,
        "reason": reason,
        "window": window,
        **counted,
        **hdr.latencies(ph.clients()),
        "cpu": cpu,
        **used,
        "storage": storage,
        # WORKLOAD=insert, ycsb: the storage form of the documents (jsonb, json, relational, bson),
        # absent where the clients name none (runs before the forms: the database's default)
        **({"form": counts.form(ph)} if counts.form(ph) else {}),
        # an ingest (the plan's workload `ingest`: tsbs): the model, events and host-hours ingested,
        # storage per event and per host-hour
        "ingest": ingest_mod.of_phase(ph, facts, storage["total_bytes"]),
        # DIGEST=documents: count's digest of every key and document read back after the phase
        # (client/src/document-digest.js); null when not asked for
        "documents_digest": (ph.count() or {}).get("digest"),
        "per_doc": per_doc.of_phase(ph, facts, operations, docs_before, cpu_s, cpu["instructions"], used["disk"],
                                    net_bytes, storage["total_bytes"]),
        # Per operation type (counts, exactly merged latency percentiles) and the phase's resources
        # per operation; WAL/journal bytes from the server's own counters; per-second timeline.
        "operations": operations,
        "per_op": per_op,
        "wal": wal,
        **logs,
        # read I/O per acknowledged operation: the server's own counters and the kernel's
        # /proc/<pid>/io, each with its source (analysis/figures/read_io.py)
        "read_io": read_io_mod.of_phase(ph, operations),
        "timeline": ops_mod.merge_timeline(ph.clients(), window["start"]),
        # WORKLOAD=booking/oltp: the transactions merged over the clients (analysis/figures/transactions.py) with
        # the phase's CPU per committed transaction; booking: count's nothing-lost check, rows included
        "transactions": txn_mod.with_costs(txn, cpu_s, counted["target_rate"], cpu["usage"]),
        # POOL=pgbouncer: the pooler's own CPU, memory and network, and per operation the server alone
        # beside the server + pooler (analysis/figures/pooler.py); null without a pooler
        "pooler": pooler_mod.of_phase(ph, per_op["ops"], txn["committed"] if txn else None, cpu_s, used["network"]),
        "booking_check": check,
        # The perf record profile (file for the Firefox Profiler, or why there is none).
        "profile": profile_samples.summary((ph.doc() or {}).get("perf") or {}),
        # What watching cost: cAdvisor's and Prometheus's own CPU in the window.
        "monitoring": monitoring.summary(ph.metrics()),
        "metrics_quality": resources.quality(ph.metrics()),
        "reconciliation": reconciliation,
        "notes": run_notes,
    }
    groups = groups_mod.of_phase(ph.clients())
    if groups is not None:  # a run of client groups (GROUPS): each stream's own figures
        run["groups"] = groups
    # WORKLOAD=globalsign: count's index proof (the plan of the run's range statement as sent), present
    # only where count printed one; a plan without the band's index is said in the run's notes
    proof = (ph.count() or {}).get("index_proof")
    if proof is not None:
        run["index_proof"] = proof
        if proof.get("used") is not True:
            run["notes"].append(index_proof_note(proof))
            notes.append(f"{ph.id}: {index_proof_note(proof)}")
    if clock_mod.summary(ph.doc()) is not None:  # each host's clock at the marks (a run on several hosts)
        run["clock"] = clock_mod.summary(ph.doc())
    # present where the run recorded the readings (runs before them have neither field)
    for key, value in (("cache", cache), ("memory_limit", limit)):
        if value is not None:
            run[key] = value
    if who["stage"] == "query":  # the query, its answers' digest and its cost per query (analysis/figures/queries.py)
        run["query"] = queries_mod.run_query(run, ph.clients(), ph.bench)
    return run


def index_proof_note(proof):
    """The note of an index proof whose plan does not use the index (used false), or that has no plan
    to read (used null)."""
    if proof.get("used") is None:
        return f"index proof: no plan read for {proof.get('index')} ({proof.get('reason') or 'no reason given'})"
    return (f"index proof: the plan of the range statement does not use {proof.get('index')} "
            f"(plan: {' > '.join(proof.get('plan_nodes') or []) or 'not given'})")


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


def documents_differ(c):
    """Whether an entry of documents_compared fails: keys that differ, or documents that differ where
    no concurrent update can explain it."""
    return c["keys_equal"] is False or (c["equal"] is False and not c["order_dependent"])


def build(bench_dir, lab_env=None):
    """results.json of a bench folder (its path, or its Bench): its files read once, through one Bench
    (bench/folder.py)."""
    bench = folder.of(bench_dir)
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
                   for c in compared if documents_differ(c)]
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
    # every host of the run with its roles and facts (hosts.json, lab/driver/host_facts.py); absent
    # for a run that recorded none, whose results stay as they were
    hosts = bench.hosts()
    if hosts is not None:
        result["hosts"] = hosts
    # the network between the clients' host and each database host, just before the run (canary.json)
    canary = bench.canary()
    if canary is not None:
        result["network_canary"] = canary
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
    result["fairness"] = fairness.statements(settings, effective) + fairness.read_rows(runs)
    return result


def write(bench_dir, lab_env=None):
    result = build(bench_dir, lab_env)
    schema.validate(result)
    write_json_atomic(os.path.join(bench_dir, "results.json"), result)
    return result
