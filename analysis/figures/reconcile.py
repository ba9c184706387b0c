"""Reconciles a phase's server-side operation counters with what the lab sent.

The lab reads each server's own counters (`node client server-stats`) just before its window opens
and again after the clients have finished (D.server-stats.json: {start, end}). Between the two
readings the server should have done the clients' work, the lab's own bookkeeping (each session's
set-up statements, the readings themselves, connection start-up) and nothing else. Anything beyond
a stated tolerance is work nobody in the lab asked for, e.g. a monitoring query scanning the table:
the phase is then `suspect`. Its figures are still reported, just flagged.

Every check is `observed <= expected + tolerance`; the tolerance rule (the database's hooks'
TOLERANCE) is written into results.json with each reconciliation so a reader sees exactly what was
allowed. Each database's rules are in its folder (databases/<db>/analysis.py `reconcile`), called
with this module's helpers (`check`, `delta`, `n`, `total`, `commands_delta`).
"""
import sys

from ..common import databases
from . import counters, profile_samples
from .operations import client_operations

def _tolerance_rule(database):
    """The allowances written into results.json: the database's hooks' TOLERANCE (what the lab allows
    beyond the work it can count exactly; databases/<db>/analysis.py)."""
    return databases.hook(database, "TOLERANCE")


def _delta(start, end, key):
    a, b = (start.get("counters") or {}).get(key), (end.get("counters") or {}).get(key)
    return None if a is None or b is None else b - a


def _sum(*values):
    return None if any(v is None for v in values) else sum(values)


def _commands_delta(start, end, names=None, exclude=()):
    a, b = start.get("commands") or {}, end.get("commands") or {}
    if not b:
        return None
    keys = names if names is not None else [k for k in b if k not in exclude]
    return sum(b.get(k, 0) - a.get(k, 0) for k in keys)


def _ops(clients):
    """{op: {ok, errors}} summed over the clients (an insert-only client without `operations`
    counts as inserts: analysis/figures/operations.py)."""
    out = {}
    for c in clients:
        for op, o in client_operations(c)[0].items():
            cell = out.setdefault(op, {"ok": 0, "errors": 0})
            cell["ok"] += int(o.get("ok") or 0)
            cell["errors"] += int(o.get("errors") or 0)
    return out


def lab_work(clients, stats, booking_check=None):
    """What the lab sent between the readings, from the client result files and the readings
    (booking: and what count's nothing-lost check found of the clients' bookings, booking_check)."""
    start = stats.get("start") or {}
    ops = _ops(clients)
    docs_ok = (ops.get("insert") or {}).get("ok", 0)
    # A query phase's client (stage "query") sends one query (aggregate or find; on PostgreSQL one
    # statement) per execution: counted as the lab's own reads, refused ones included.
    queries = {"ok": 0, "errors": 0}
    for c in clients:
        if c.get("stage") == "query":
            for o in (c.get("operations") or {}).values():
                queries["ok"] += int(o.get("ok") or 0)
                queries["errors"] += int(o.get("errors") or 0)
    errors = sum(int(c.get("errors") or 0) for c in clients)
    # a transaction workload's client holds SESSIONS connections, each running the set-up statements
    sessions = sum(int((c.get("transactions") or {}).get("sessions") or 1) + int(c.get("reconnects") or 0)
                   for c in clients)
    run_session = start.get("run_session") or (stats.get("end") or {}).get("run_session") or {}
    reading = start.get("reading") or (stats.get("end") or {}).get("reading") or {}
    # tsbs MODEL=bucket: an upsert per event; the first of each host-hour creates its bucket row,
    # the others update it (the clients count the host-hours they ingested)
    txn = _txn_work(clients, booking_check)
    buckets_created = sum(int((c.get("tsbs") or {}).get("host_hours") or 0) for c in clients
                          if (c.get("tsbs") or {}).get("model") == "bucket")
    # the storage form and FIELDS of generated documents (a database's table's width follows them:
    # databases/mysql/analysis.py), as the clients report them (absent before the forms: the default)
    forms = {(c.get("form"), c.get("fields")) for c in clients if c.get("form")}
    # globalsign on MongoDB: the range selects' finds and getMores as the clients counted them
    # (range_round_trips), when every client that ran a range states them
    rangers = [c for c in clients if ((c.get("operations") or {}).get("range") or {}).get("ok")
               or ((c.get("operations") or {}).get("range") or {}).get("errors")]
    trips = None
    if rangers and all(c.get("range_round_trips") for c in rangers):
        trips = {k: sum(int(c["range_round_trips"][k]) for c in rangers) for k in ("ranges", "round_trips")}
    return {
        **({"range_round_trips": trips} if trips else {}),
        "clients": len(clients), "client_sessions": sessions, "docs_ok": docs_ok, "errors": errors,
        **({"buckets_created": buckets_created} if buckets_created else {}),
        **({"form": {"form": next(iter(forms))[0], "fields": next(iter(forms))[1]}} if len(forms) == 1 else {}),
        # WORKLOAD=booking/oltp: {workload, committed, attempts, aborted, aborted_on_errors, in_doubt,
        # commit_retries, writes (booking), booked (booking, from count)}
        **({"txn": txn} if txn else {}),
        # per operation type; a phase of inserts only holds {insert: ...}
        "ops": ops,
        "queries": queries,
        "statements_per_session": int(run_session.get("statements", 0)),
        "statements_per_reading": int(reading.get("statements", 0)),
        "readings": 2,
    }


def _txn_work(clients, booking_check=None):
    """The transactions the clients ran (client results' `transactions`), or None: each attempt is
    one transaction on the server, committed or rolled back."""
    txns = [(c.get("workload"), c["transactions"]) for c in clients if isinstance(c.get("transactions"), dict)]
    if not txns:
        return None
    total = lambda k: sum(int(t.get(k) or 0) for _, t in txns)  # noqa: E731
    # booking: write statements per table over every attempt, {table: {ok, failed}}; None when a
    # client's result does not say (a client before `writes`)
    writes = None
    if all(isinstance(t.get("writes"), dict) for _, t in txns):
        writes = {}
        for _, t in txns:
            for table, w in t["writes"].items():
                cell = writes.setdefault(table, {"ok": 0, "failed": 0})
                cell["ok"] += int(w.get("ok") or 0)
                cell["failed"] += int(w.get("failed") or 0)
    return {"workload": txns[0][0], "committed": total("committed"), "attempts": total("attempts"),
            "aborted": sum(int(n) for _, t in txns for n in (t.get("aborts") or {}).values()),
            # aborted on an error no retry helps (a lost connection among them): such an attempt may
            # never have reached the server, or (a COMMIT in flight) may have committed there
            "aborted_on_errors": sum(int(n) for _, t in txns for r, n in (t.get("aborts") or {}).items()
                                     if str(r).startswith("error:")),
            "in_doubt": total("in_doubt"), "commit_retries": total("commit_retries"),
            "writes": writes, "booked": _booked(booking_check)}


def _booked(check):
    """What count's nothing-lost check found of the clients' bookings (count.json booking_check):
    {rows: the audit rows they created, by_bookings: {n: audit rows holding n bookings}, landed: the
    bookings in the database (committed + in-doubt ones that landed)}, or None when it derived none
    (no count, or count ran without the clients' outcomes)."""
    if not isinstance(check, dict) or check.get("audit_rows_booked") is None:
        return None
    return {"rows": int(check["audit_rows_booked"]),
            "by_bookings": {int(n): int(k) for n, k in (check.get("audit_rows_by_bookings") or {}).items()},
            "landed": int(check.get("committed") or 0) + int(check.get("in_doubt_landed") or 0)}


def _n(ops, op, field="ok"):
    return int((ops.get(op) or {}).get(field) or 0)


def _check(checks, name, expected, observed, tolerance, about, unavailable=None, low_too=False):
    if observed is None:
        checks[name] = {"expected": expected, "observed": None, "tolerance": tolerance, "verdict": "unavailable",
                        "about": about, "reason": unavailable or "counter not offered by this server"}
        return
    over = observed - expected - tolerance
    # low: the server did less than the clients were acknowledged for (readings that do not bracket
    # the window, or a counter reset): not foreign work, but the counters then prove nothing
    low = low_too and observed < expected - tolerance
    checks[name] = {"expected": expected, "observed": observed, "tolerance": round(tolerance, 3),
                    "over": round(over, 3) if over > 0 else 0,
                    "verdict": "suspect" if over > 0 else ("low" if low else "ok"), "about": about}


def _container(watch, profile):
    """What ran in the database container's cgroup besides the server: the process watch
    (D.phase.json cgroup_processes) and the perf record profile's samples ({comm: samples})."""
    checks, reasons = {}, []
    if watch is not None:
        foreign = watch.get("foreign")
        if foreign is None or (not foreign and watch.get("reason")):
            checks["container_processes"] = {"verdict": "unavailable", "observed": None,
                                             "reason": watch.get("reason") or "the watch read no sample"}
        else:
            checks["container_processes"] = {"verdict": "suspect" if foreign else "ok", "observed": len(foreign),
                                             "foreign": sorted(set(map(str, foreign)))}
            if foreign:
                reasons.append("processes other than the server ran in the database container during the window: "
                               + ", ".join(sorted(set(map(str, foreign)))))
    if profile is not None:
        n = sum(profile.values())
        checks["container_perf_samples"] = {"verdict": "suspect" if n else "ok", "observed": n, "foreign": profile}
        if n:
            reasons.append("perf record sampled processes other than the server in the database container: "
                           + ", ".join(f"{c} ({k} samples)" for c, k in profile.items()))
    for c in checks.values():
        c.update(expected=0, tolerance=0, about="what ran in the database container's cgroup besides the server")
    return checks, reasons


def _server_name(stats):
    """server.name of a {start, end} pair of readings (counters.of_readings checked they agree)."""
    named = [(stats.get(k) or {}).get("server") for k in ("start", "end")]
    return next((s.get("name") for s in named if isinstance(s, dict) and s.get("name")), None)


# The helpers a database's `reconcile` hook is given (this module).
check, delta, n, total, commands_delta = _check, _delta, _n, _sum, _commands_delta


def reconcile(database, stats, clients, phase=None, profile_foreign=None, booking_check=None):
    """The reconciliation object of one phase (results.json runs[].reconciliation).

    stats: D.server-stats.json ({start, end}) or None; clients: the client result dicts;
    booking_check: D.count.json's nothing-lost check (booking: the audit rows its bookings created);
    phase: D.phase.json (its optional cgroup_processes.foreign lists processes other than the server
    seen in the database container during the window; null with a reason when the watch could not
    read the cgroup); profile_foreign: {comm: samples} of the perf record profile's samples from
    processes other than the server (analysis/figures/profile_samples.py), None without a profile."""
    container, reasons = _container((phase or {}).get("cgroup_processes"), profile_foreign)
    out = {"verdict": None, "reasons": reasons, "expected": {}, "observed": {}, "tolerance": {}, "deltas": None,
           "checks": {}, "lab_work": None, "interval_s": None, "tolerance_rule": _tolerance_rule(database),
           "unavailable": None, "notes": [], "server": None}
    start, end = (stats or {}).get("start"), (stats or {}).get("end")
    sem, unknown = counters.of_readings(stats)
    if sem is not None and databases.of_server_stats_name(_server_name(stats)) != database:
        sem, unknown = None, f"the readings name server {sem['label']!r} for the {database} phase"
    if not start or not end:
        out["unavailable"] = (f"{database}.server-stats.json missing" if stats is None else
                              "a server-stats reading failed (see the phase's .out)")
    elif sem is None:
        # the same counter name means different things per server and version: not guessed
        out["unavailable"] = unknown
    else:
        seconds = max(0.0, float(end.get("taken_at", 0)) - float(start.get("taken_at", 0)))
        w = lab_work(clients, stats, booking_check)
        # every counter's change between the readings (WAL and journal bytes, blocks, ...), for the record
        out["deltas"] = {k: _delta(start, end, k) for k in (end.get("counters") or {})}
        out["lab_work"], out["interval_s"] = w, round(seconds, 3)
        checks = out["checks"]
        out["server"] = sem["label"]
        if databases.hook(database, "reconcile"):
            # the database's folder holds its rules (databases/<db>/analysis.py), with this module's helpers
            databases.hook(database, "reconcile")(checks, w, start, end, seconds, sem, sys.modules[__name__])
        else:  # a further database's counters mean other things: not guessed
            out["unavailable"] = f"no reconciliation rules for {database} (databases/{database}/analysis.py has no `reconcile`)"
        for name, c in checks.items():
            out["expected"][name], out["observed"][name], out["tolerance"][name] = (
                c["expected"], c["observed"], c["tolerance"])
            if c["verdict"] == "suspect":
                reasons.append(f"{name} {c['observed']} > expected {c['expected']} + tolerance {c['tolerance']}")
            elif c.get("explained_by"):
                # beyond its tolerance, and the readings say why (e.g. PostgreSQL's autovacuum on the
                # lab's own tables): not a suspicion, but said with the run
                out["notes"].append(f"{name} {c['observed']} > expected {c['expected']} + tolerance {c['tolerance']}: "
                                    f"{c['explained_by']}")
            elif c["verdict"] == "low":
                out["notes"].append(f"{name} {c['observed']} < expected {c['expected']} - tolerance {c['tolerance']}: "
                                    "the readings do not cover all of the clients' work")
    out["checks"].update(container)
    if reasons:
        out["verdict"] = "suspect"
    elif out["unavailable"]:
        out["verdict"] = "unavailable"
    else:
        out["verdict"] = "ok"
    return out


def of_phase(ph, booking_check=None):
    """reconcile() of one phase of a Bench (bench/folder.py Phase): its server's readings, its
    clients' results, its phase file, its profile's samples of other processes than the server
    (profile_samples.foreign)."""
    database = ph.database()
    return reconcile(database, ph.server_stats(), [c for _, c in ph.clients()], ph.doc() or {},
                     profile_samples.foreign(ph.bench, ph.id, database), booking_check)


def notes(reconciliation):
    """The run's notes of its reconciliation: the server counters' own notes, and why none was
    reconciled (a suspect verdict says its reasons in the phase's status instead)."""
    out = [f"server counters: {n}" for n in reconciliation["notes"]]
    if reconciliation["verdict"] != "suspect" and reconciliation["unavailable"]:
        out.append(f"server counters not reconciled: {reconciliation['unavailable']}")
    return out
