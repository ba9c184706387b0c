"""Reconciles a phase's server-side operation counters with what the lab sent.

The lab reads each server's own counters (`node client server-stats`) just before its window opens
and again after the clients have finished (D.server-stats.json: {start, end}). Between the two
readings the server should have done the clients' work, the lab's own bookkeeping (each session's
set-up statements, the readings themselves, connection start-up) and nothing else. Anything beyond
a stated tolerance is work nobody in the lab asked for, e.g. a monitoring query scanning the table:
the phase is then `suspect`. Its figures are still reported, just flagged.

Every check is `observed <= expected + tolerance`; the tolerance rule (TOLERANCE) is written into
results.json with each reconciliation so a reader sees exactly what was allowed.
"""
import sys

from . import counters, databases

# What the lab allows beyond the work it can count exactly. Figures measured on PostgreSQL 15 and
# FerretDB 1.24 (client/test/integration/server-stats.test.js): a new PostgreSQL session runs one
# start-up transaction and reads 150-900 catalog rows (more on a server whose relcache init file is
# not yet written); a MongoDB driver opens up to 3 connections per client (pool, monitor, RTT) and
# sends a hello on each plus heartbeats about every 10 s on the monitoring ones.
TOLERANCE = {
    "postgres": {
        "startup_transactions_per_connection": 1,
        "transactions_per_s": 0.2,  # autovacuum workers visiting the database
        "transactions_fixed": 5,
        "rows_read_per_connection": 1000,  # catalog reads at session start-up
        "rows_read_per_s": 20,  # autovacuum workers scan pg_class
        "user_table_reads": 0,  # the lab's inserts never scan or index-fetch a user table in the window
        "other_backends_at_edges": 0,
        # the rest of the cluster (databases/postgres/client/postgres-stats.js readClusterStats): other
        # databases get autovacuum visits (transactions_per_s, rows_read_per_s, as above) and no client
        "other_databases_sessions": 0,
        "other_databases_active_ms": 0,  # only client sessions accrue active_time
    },
    "mongodb": {
        "reads_per_s": 1 / 60,  # internal housekeeping at most once a minute
        "other_writes_fixed": 2,  # session refresh, TTL monitor
        "other_writes_per_s": 1 / 30,
        "commands_per_connection": 6,  # hellos, saslStart/Continue, endSessions
        "commands_per_client_per_s": 0.5,  # heartbeats on the monitoring and RTT connections
        "connections_per_session": 3,  # the driver's pool (1), monitor, RTT pinger
        "extra_connections_at_edges": 0,
    },
}

def _tolerance_rule(database):
    """The allowances written into results.json: the pair's here, a further database's from its hooks."""
    return TOLERANCE.get(database) or databases.hook(database, "TOLERANCE")


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
    counts as inserts: analysis/operations.py)."""
    from .operations import client_operations
    out = {}
    for c in clients:
        for op, o in client_operations(c)[0].items():
            cell = out.setdefault(op, {"ok": 0, "errors": 0})
            cell["ok"] += int(o.get("ok") or 0)
            cell["errors"] += int(o.get("errors") or 0)
    return out


def lab_work(clients, stats):
    """What the lab sent between the readings, from the client result files and the readings."""
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
    txn = _txn_work(clients)
    buckets_created = sum(int((c.get("tsbs") or {}).get("host_hours") or 0) for c in clients
                          if (c.get("tsbs") or {}).get("model") == "bucket")
    return {
        "clients": len(clients), "client_sessions": sessions, "docs_ok": docs_ok, "errors": errors,
        **({"buckets_created": buckets_created} if buckets_created else {}),
        # WORKLOAD=booking/oltp: {workload, committed, attempts, aborted, in_doubt, commit_retries}
        **({"txn": txn} if txn else {}),
        # per operation type; a phase of inserts only holds {insert: ...}
        "ops": ops,
        "queries": queries,
        "statements_per_session": int(run_session.get("statements", 0)),
        "statements_per_reading": int(reading.get("statements", 0)),
        "readings": 2,
    }


def _txn_work(clients):
    """The transactions the clients ran (client results' `transactions`), or None: each attempt is
    one transaction on the server, committed or rolled back."""
    txns = [(c.get("workload"), c["transactions"]) for c in clients if isinstance(c.get("transactions"), dict)]
    if not txns:
        return None
    total = lambda k: sum(int(t.get(k) or 0) for _, t in txns)  # noqa: E731
    return {"workload": txns[0][0], "committed": total("committed"), "attempts": total("attempts"),
            "aborted": sum(int(n) for _, t in txns for n in (t.get("aborts") or {}).values()),
            # aborted on an error no retry helps (a lost connection among them): such an attempt may
            # never have reached the server, or (a COMMIT in flight) may have committed there
            "aborted_on_errors": sum(int(n) for _, t in txns for r, n in (t.get("aborts") or {}).items()
                                     if str(r).startswith("error:")),
            "in_doubt": total("in_doubt"), "commit_retries": total("commit_retries")}


# What one committed transaction writes on PostgreSQL, as user-table row counts (databases/postgres/
# client/postgres-booking.js, postgres-oltp.js): a booking inserts a seat and a payment and upserts its
# audit row (an insert the first time, an update after); oltp's writes per operation type.
OLTP_ROWS_INSERTED = {"delete-insert": 1}
OLTP_ROWS_CHANGED = {"index-update": 1, "non-index-update": 1, "delete-insert": 1}


def _postgres_txn_rows(w):
    """Rows written by the transactions: an aborted attempt's rows count too (pg_stat counts the
    tuples of rolled-back transactions), so each aborted attempt is tolerated up to its rows."""
    txn, ops = w["txn"], w.get("ops") or {}
    if txn["workload"] == "booking":
        return (3 * txn["committed"], 3 * txn["aborted"] + w["errors"],
                "pg_stat_user_tables n_tup_ins + n_tup_upd: three rows per committed booking (seat, payment, "
                "the audit upsert: an insert the first time, an update after; tolerance: the aborted attempts' rows)",
                0, 0, "pg_stat_user_tables n_tup_del: bookings delete nothing")
    inserted = sum(_n(ops, op) * k for op, k in OLTP_ROWS_INSERTED.items())
    changed = sum(_n(ops, op) * k for op, k in OLTP_ROWS_CHANGED.items())
    return (inserted, txn["aborted"] + w["errors"],
            "pg_stat_user_tables n_tup_ins: one row per committed delete+insert (tolerance: aborted attempts)",
            changed, 2 * txn["aborted"] + w["errors"],
            "pg_stat_user_tables n_tup_upd + n_tup_del: one row per committed index/non-index update and "
            "delete+insert (tolerance: aborted attempts)")


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


def _postgres(checks, w, start, end, seconds):
    t = TOLERANCE["postgres"]
    sessions_in = w["client_sessions"] + 1  # the clients' sessions and the start reading's own
    startup = t["startup_transactions_per_connection"]
    per_reading = startup + w["statements_per_reading"]
    ops = w.get("ops") or {}
    # one transaction per operation (autocommit), two for a read-modify-write (get, then patch)
    statements = sum(o["ok"] + o["errors"] for o in ops.values()) + _n(ops, "rmw")
    txn = w.get("txn")
    # transactions (booking, oltp): one per attempt, committed or rolled back; after a COMMIT that
    # failed (a serialization failure found at commit) the client's ROLLBACK runs outside a
    # transaction block and is itself a rolled-back transaction (PostgreSQL's xact.c,
    # UserAbortTransactionBlock in TBLOCK_STARTED: WARNING, then abort): up to one more per abort
    extra = 0 if txn is None else txn["aborted"] + txn["in_doubt"]
    if txn is not None:
        statements = txn["attempts"]
    _check(checks, "transactions",
           w["client_sessions"] * (startup + w["statements_per_session"]) + statements + per_reading,
           _sum(_delta(start, end, "xact_commit"), _delta(start, end, "xact_rollback")),
           per_reading + t["transactions_fixed"] + t["transactions_per_s"] * seconds + extra,
           ("xact_commit + xact_rollback: one per transaction attempt (committed or rolled back), the sessions' "
            "start-up and set-up statements (every one of each client's SESSIONS), the start reading (tolerance: "
            "the end reading, autovacuum, a ROLLBACK after each failed COMMIT, in-doubt commits)") if txn else
           "xact_commit + xact_rollback: one per insert, the sessions' start-up and set-up statements, the "
           "start reading (tolerance: the end reading, autovacuum)")
    if txn is not None:
        _check(checks, "transactions_rolled_back", txn["aborted"], _delta(start, end, "xact_rollback"),
               txn["aborted"] + txn["in_doubt"],
               "xact_rollback: one per aborted attempt (tolerance: a ROLLBACK after each failed COMMIT, in-doubt "
               "commits)", low_too=True)
        ins, ins_tol, ins_about, chg, chg_tol, chg_about = _postgres_txn_rows(w)
        written = (_sum(_delta(start, end, "user_n_tup_ins"), _delta(start, end, "user_n_tup_upd"))
                   if txn["workload"] == "booking" else _delta(start, end, "user_n_tup_ins"))
        changed = (_delta(start, end, "user_n_tup_del") if txn["workload"] == "booking"
                   else _sum(_delta(start, end, "user_n_tup_upd"), _delta(start, end, "user_n_tup_del")))
        _check(checks, "rows_written", ins, written, ins_tol, ins_about, low_too=True)
        _check(checks, "rows_changed", chg, changed, chg_tol, chg_about, low_too=bool(chg))
    if txn is None:
        _postgres_rows(checks, w, start, end)
    _postgres_reads(checks, w, start, end, seconds, sessions_in)


def _postgres_rows(checks, w, start, end):
    ops = w.get("ops") or {}
    # user tables only: pg_stat_database's tup_inserted also counts TOAST chunks and catalog rows
    created = w.get("buckets_created") or 0
    _check(checks, "rows_written", w["docs_ok"] + created, _delta(start, end, "user_n_tup_ins"), w["errors"],
           "pg_stat_user_tables n_tup_ins: one row per acknowledged document (tolerance: failed inserts)"
           + ("; tsbs buckets: one per host-hour ingested" if created else ""),
           low_too=True)
    updates = _n(ops, "update") + _n(ops, "rmw") + _n(ops, "bucket") - created
    _check(checks, "rows_changed", updates,
           _sum(_delta(start, end, "user_n_tup_upd"), _delta(start, end, "user_n_tup_del")),
           _n(ops, "update", "errors") + _n(ops, "rmw", "errors") + _n(ops, "bucket", "errors"),
           "pg_stat_user_tables n_tup_upd + n_tup_del: one row per acknowledged update (and read-modify-write); "
           "the lab deletes nothing" if updates else "pg_stat_user_tables n_tup_upd + n_tup_del: the lab only inserts",
           low_too=bool(updates))


def _postgres_reads(checks, w, start, end, seconds, sessions_in):
    t = TOLERANCE["postgres"]
    ops = w.get("ops") or {}
    reading = [op for op in ops if op != "insert" and ops[op]["ok"] + ops[op]["errors"]]
    cannot = (f"the phase's own {', '.join(reading)} operations read rows: these counters cannot tell them "
              "from foreign reads" if reading else None)
    _check(checks, "rows_read", 0,
           None if cannot else _sum(_delta(start, end, "tup_returned"), _delta(start, end, "tup_fetched")),
           t["rows_read_per_connection"] * (sessions_in + 1) + t["rows_read_per_s"] * seconds,
           "tup_returned + tup_fetched: the lab's inserts read no rows (tolerance: catalog reads per session "
           "incl. the readings, autovacuum)", cannot)
    _check(checks, "user_table_reads", 0,
           None if cannot else _sum(_delta(start, end, "user_seq_tup_read"), _delta(start, end, "user_idx_tup_fetch"),
                                    _delta(start, end, "user_seq_scan"), _delta(start, end, "user_idx_scan")),
           t["user_table_reads"],
           "pg_stat_user_tables seq_scan + seq_tup_read + idx_scan + idx_tup_fetch: inserts read no user table", cannot)
    _check(checks, "sessions", sessions_in, _delta(start, end, "sessions"), 1,
           "pg_stat_database.sessions: one per client session and the start reading (tolerance: the end reading)",
           (end.get("unavailable") or {}).get("sessions"))
    for edge, reading in (("start", start), ("end", end)):
        n = (reading.get("counters") or {}).get("other_client_backends")
        _check(checks, f"other_sessions_at_{edge}", 0, n, t["other_backends_at_edges"],
               f"client sessions on the database besides the {edge} reading's own (pg_stat_activity; "
               "autovacuum workers are not client sessions)",
               None if n is not None else "reading has no other_client_backends")


def _postgres_cluster(checks, start, end, seconds):
    """Work in the other databases of the same server, and checkpoints nobody in the lab asked for."""
    t = TOLERANCE["postgres"]
    older = (None if "cluster_other_databases_sessions" in (end.get("counters") or {})
             else "the readings have no cluster counters (a client before the whole-cluster reading)")

    def why(key):
        return older or (end.get("unavailable") or {}).get(key) or (start.get("unavailable") or {}).get(key)
    for name, key, tol, about in (
            ("other_databases_sessions", "cluster_other_databases_sessions", t["other_databases_sessions"],
             "pg_stat_database.sessions of every other database: the lab connects only to its own"),
            ("other_databases_active_ms", "cluster_other_databases_active_ms", t["other_databases_active_ms"],
             "pg_stat_database.active_time (ms) of every other database: time client sessions spent running statements")):
        _check(checks, name, 0, None if older else _delta(start, end, key), tol, about, why(key))
    # Not judged: the other databases' transactions and rows read (cluster_other_databases_xacts,
    # _rows_read). Autovacuum workers visit every database each naptime and their catalog scans count
    # there: clean e2e windows of about 40 s on PostgreSQL 15 saw 28 transactions and 8,117 rows read
    # in `postgres`/`template1` with no client at all. A client's work there shows in sessions,
    # active_time and the backends at the edges, which autovacuum never moves.
    # A requested checkpoint is a CHECKPOINT command, or one the WAL forced: one per
    # max_wal_size / (1 + checkpoint_completion_target) of WAL (PostgreSQL's CheckPointSegments)
    c = end.get("counters") or {}
    wal, size, target = _delta(start, end, "wal_bytes"), c.get("cluster_max_wal_size_bytes"), c.get("cluster_checkpoint_completion_target")
    forced = int(wal // (size / (1 + target))) if wal is not None and size and target is not None else 0
    _check(checks, "checkpoints_requested", 0, None if older else _delta(start, end, "cluster_checkpoints_requested"),
           forced, "pg_stat_bgwriter.checkpoints_req (pg_stat_checkpointer.num_requested from 17): the lab asks for "
           "none in the window (tolerance: those its WAL may force, one per max_wal_size / (1 + "
           "checkpoint_completion_target))", why("cluster_checkpoints_requested"))
    for edge, reading in (("start", start), ("end", end)):
        n = (reading.get("counters") or {}).get("cluster_other_database_backends")
        _check(checks, f"other_database_sessions_at_{edge}", 0, None if older else n, t["other_backends_at_edges"],
               f"client sessions on the other databases at the {edge} reading (pg_stat_activity)", older)


def _mongodb(checks, w, start, end, seconds, sem):
    """sem: the server's counter semantics (analysis/counters.py): which opcounter holds what."""
    t = TOLERANCE["mongodb"]
    connections = w["client_sessions"] + w["readings"]
    source = f"opcounters ({sem['label']})"
    ops = w.get("ops") or {}
    queries = w.get("queries") or {"ok": 0, "errors": 0}
    lab_queries = queries["ok"] + queries["errors"]
    # a booking (databases/mongodb/client/mongodb-booking.js, mongodb-txn.js): one aggregate ($lookup of the
    # flight's aircraft), two insertOne (seat, payment), one updateOne (the audit upsert) and a
    # commitTransaction; an aborted attempt sent up to as many, and an abortTransaction
    txn = w.get("txn")
    booked, aborted = (txn["committed"], txn["aborted"]) if txn and txn["workload"] == "booking" else (0, 0)
    booking = bool(txn) and txn["workload"] == "booking"
    oltp_why = ("WORKLOAD=oltp on MongoDB: its operation types' commands are not modelled per opcounter "
                "(transactions counted by the client only)") if txn and txn["workload"] == "oltp" else None
    inserts = _delta(start, end, "opcounters_insert") if sem["inserts"]["counter"] else None
    reads = _sum(_delta(start, end, "opcounters_query"), _delta(start, end, "opcounters_getmore"))
    commands = _delta(start, end, "opcounters_command")
    reads_why = commands_why = None
    if sem["by_name"]:
        # the read commands this server counts under `command`, moved to reads by name
        moved = _commands_delta(start, end, sem["reads_in_command"])
        if moved is None:
            reads_why = commands_why = "serverStatus has no metrics.commands: read commands cannot be told apart"
            reads = commands = None
        else:
            reads = None if reads is None else reads + moved
            commands = None if commands is None else commands - moved
    elif lab_queries or (booking and sem["aggregate_in"] == "command"):
        # the lab's own query executions (a booking's aggregate) land in `command` with every other command
        reads_why = commands_why = sem["by_name_reason"]
        reads = commands = None
    if oltp_why:
        inserts = reads = commands = None
        reads_why = commands_why = oltp_why
    read_names = "find/getMore/" + "/".join(("aggregate",) * (sem["aggregate_in"] == "query" or sem["by_name"])
                                            + (("count", "distinct") if sem["by_name"] else ()))
    if booking:
        _check(checks, "inserts", 2 * booked, inserts, 2 * aborted,
               f"{source}: two inserts (seat, payment) per committed booking (tolerance: aborted attempts')",
               sem["inserts"].get("reason"), low_too=True)
    else:
        _check(checks, "inserts", w["docs_ok"], inserts, w["errors"],
               f"{source}: one insert per acknowledged document (tolerance: failed inserts)",
               oltp_why or sem["inserts"].get("reason"), low_too=True)
    lab_reads = _n(ops, "read") + _n(ops, "rmw") + _n(ops, "scan") + queries["ok"] + booked
    read_errors = (_n(ops, "read", "errors") + _n(ops, "rmw", "errors") + _n(ops, "scan", "errors")
                   + queries["errors"])
    # a scan is one find whose first batch holds all its documents; a getMore or killCursors per
    # scan at most is tolerated
    _check(checks, "reads", lab_reads, reads, t["reads_per_s"] * seconds + read_errors + _n(ops, "scan") + aborted,
           f"{source}: {read_names}: one aggregate per committed booking (tolerance: aborted attempts')" if booking else
           f"{source}: {read_names}: one find per read, scan and read-modify-write, "
           "one aggregate or find per query execution (tolerance: refused queries)"
           if lab_reads else f"{source}: {read_names}: the lab reads nothing in the window",
           reads_why, low_too=bool(lab_reads))
    # a tsbs bucket upsert is one update command (upsert: true), whether it creates or appends
    lab_writes = _n(ops, "update") + _n(ops, "rmw") + _n(ops, "bucket") + booked
    _check(checks, "other_writes", lab_writes,
           None if oltp_why else _sum(_delta(start, end, "opcounters_update"), _delta(start, end, "opcounters_delete")),
           t["other_writes_fixed"] + t["other_writes_per_s"] * seconds + aborted
           + _n(ops, "update", "errors") + _n(ops, "rmw", "errors") + _n(ops, "bucket", "errors"),
           f"{source}: update/delete {sem['updates']['counts']}: one audit upsert per committed booking "
           "(tolerance: aborted attempts')" if booking else
           f"{source}: update/delete {sem['updates']['counts']}: one update per update and read-modify-write"
           if lab_writes else f"{source}: update/delete: the lab only inserts",
           oltp_why, low_too=bool(lab_writes))
    # transactions: a commitTransaction per committed booking and per retried commit; an
    # abortTransaction per aborted attempt at most
    txn_commands = booked + (txn["commit_retries"] if booking else 0)
    _check(checks, "commands", w["client_sessions"] * w["statements_per_session"] + w["statements_per_reading"]
           + txn_commands,
           commands,
           w["statements_per_reading"] + t["commands_per_connection"] * connections
           + t["commands_per_client_per_s"] * (w["clients"] + 1) * seconds + aborted,
           f"{source}: other commands: each session's set-up (every one of each client's SESSIONS), the readings"
           + (", a commitTransaction per committed booking and retried commit (tolerance: handshakes, heartbeats, "
              "an abortTransaction per aborted attempt)" if booking else " (tolerance: handshakes, heartbeats)"),
           commands_why)
    if txn:
        _mongodb_transactions(checks, txn, start, end, sem)
    _check(checks, "connections_created", t["connections_per_session"] * (w["client_sessions"] + 1),
           _delta(start, end, "connections_total_created"), t["connections_per_session"],
           "connections.totalCreated: the driver's connections per client session and the start reading "
           "(tolerance: the end reading)")
    for edge, reading in (("start", start), ("end", end)):
        why = sem.get("connections_current_reason")
        _check(checks, f"connections_at_{edge}", t["connections_per_session"],
               None if why else (reading.get("counters") or {}).get("connections_current"),
               t["extra_connections_at_edges"],
               f"connections.current at the {edge} reading: only the reading's own", why)


def _mongodb_transactions(checks, txn, start, end, sem):
    """The server's own transaction counts (serverStatus.transactions, analysis/counters.py) against
    the clients' attempts: each attempt that reached the server began one transaction, which
    committed or aborted there; the lab's readings run none."""
    meaning = sem.get("transactions")
    why = None if meaning else sem.get("transactions_reason") or f"no transaction counter semantics for {sem['label']}"
    unsure = txn["aborted_on_errors"]

    def delta(key):
        return None if why else _delta(start, end, key)
    _check(checks, "transactions_started", txn["attempts"], delta("txn_total_started"), unsure,
           f"{(meaning or {}).get('started', 'transactions.totalStarted')}: one per client attempt "
           "(tolerance: attempts ended by a non-retryable error, which may not have reached the server)",
           why, low_too=True)
    _check(checks, "transactions_committed", txn["committed"], delta("txn_total_committed"), txn["in_doubt"],
           f"{(meaning or {}).get('committed', 'transactions.totalCommitted')}: one per committed transaction "
           "(tolerance: in-doubt commits, which the server may have committed)", why, low_too=True)
    _check(checks, "transactions_aborted", txn["aborted"], delta("txn_total_aborted"), unsure,
           f"{(meaning or {}).get('aborted', 'transactions.totalAborted')}: one per aborted attempt (tolerance: "
           "attempts ended by a non-retryable error: not begun, or committed after all)", why, low_too=True)
    for edge, reading in (("start", start), ("end", end)):
        _check(checks, f"transactions_open_at_{edge}", 0,
               None if why else (reading.get("counters") or {}).get("txn_current_open"), 0,
               f"{(meaning or {}).get('open', 'transactions.currentOpen')}: none at the {edge} reading", why)


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


# The helpers a database's `reconcile` hook is given (this module): the same rules as the pair's checks.
check, delta, n, total = _check, _delta, _n, _sum


def reconcile(database, stats, clients, phase=None, profile_foreign=None):
    """The reconciliation object of one phase (results.json runs[].reconciliation).

    stats: D.server-stats.json ({start, end}) or None; clients: the client result dicts;
    phase: D.phase.json (its optional cgroup_processes.foreign lists processes other than the server
    seen in the database container during the window; null with a reason when the watch could not
    read the cgroup); profile_foreign: {comm: samples} of the perf record profile's samples from
    processes other than the server (analysis/profile_samples.py), None without a profile."""
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
        w = lab_work(clients, stats)
        # every counter's change between the readings (WAL and journal bytes, blocks, ...), for the record
        out["deltas"] = {k: _delta(start, end, k) for k in (end.get("counters") or {})}
        out["lab_work"], out["interval_s"] = w, round(seconds, 3)
        checks = out["checks"]
        out["server"] = sem["label"]
        if database == "postgres":
            _postgres(checks, w, start, end, seconds)
            _postgres_cluster(checks, start, end, seconds)
        elif database == "mongodb":
            _mongodb(checks, w, start, end, seconds, sem)
        elif databases.hook(database, "reconcile"):
            # the database's folder holds its rules (databases/<db>/analysis.py), with this module's helpers
            databases.hook(database, "reconcile")(checks, w, start, end, seconds, sem, sys.modules[__name__])
        else:  # a further database's counters mean other things: not guessed
            out["unavailable"] = (f"no reconciliation rules for {database} (analysis/reconcile.py knows mongodb and "
                                  f"postgres; databases/{database}/analysis.py has no `reconcile`)")
        for name, c in checks.items():
            out["expected"][name], out["observed"][name], out["tolerance"][name] = (
                c["expected"], c["observed"], c["tolerance"])
            if c["verdict"] == "suspect":
                reasons.append(f"{name} {c['observed']} > expected {c['expected']} + tolerance {c['tolerance']}")
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
