"""What analysis knows of MongoDB (loaded by analysis/databases.py `hooks`; the names it may define:
docs/contracts.md "A database's analysis hooks").

Still in analysis/ (docs/layout.md step 5, not moved yet): its counter meanings (analysis/counters.py
mongod, SecantusDB), fairness cells (analysis/fairness.py), THP advice (analysis/thp.py).
"""
from analysis.reconcile import (  # the rules' helpers (analysis/reconcile.py; loaded after it)
    check as _check, commands_delta as _commands_delta, delta as _delta, n as _n, total as _sum)

# runs[].wal: `wt_log_bytes_written` = serverStatus().wiredTiger.log["log bytes written"] in each
# server-stats reading: WiredTiger's journal. The stand-ins have none (SecantusDB: no `wiredTiger`
# section; FerretDB: SQLite/PostgreSQL behind it): null with the reader's reason and the server's name.
WAL = {"counter": "wt_log_bytes_written", "source": "wiredTiger.log",
       "about": "WiredTiger's journal, serverStatus wiredTiger.log 'log bytes written'"}


# --- reconciliation (analysis/reconcile.py asks `reconcile`) ------------------------------------
# What the lab allows beyond the work it can count exactly. Measured on FerretDB 1.24
# (client/test/integration/server-stats.test.js): a MongoDB driver opens up to 3 connections per
# client (pool, monitor, RTT) and sends a hello on each plus heartbeats about every 10 s on the
# monitoring ones.
TOLERANCE = {
    "reads_per_s": 1 / 60,  # internal housekeeping at most once a minute
    "other_writes_fixed": 2,  # session refresh, TTL monitor
    "other_writes_per_s": 1 / 30,
    "commands_per_connection": 6,  # hellos, saslStart/Continue, endSessions
    "commands_per_client_per_s": 0.5,  # heartbeats on the monitoring and RTT connections
    "connections_per_session": 3,  # the driver's pool (1), monitor, RTT pinger
    "extra_connections_at_edges": 0,
}


def reconcile(checks, w, start, end, seconds, sem, helpers):
    """sem: the server's counter semantics (analysis/counters.py): which opcounter holds what."""
    _mongodb(checks, w, start, end, seconds, sem)


def _mongodb(checks, w, start, end, seconds, sem):
    """sem: the server's counter semantics (analysis/counters.py): which opcounter holds what."""
    t = TOLERANCE
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
