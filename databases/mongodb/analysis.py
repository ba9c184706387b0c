"""What analysis knows of MongoDB (loaded by analysis/common/databases.py `hooks`; the names it may define:
docs/contracts.md "A database's analysis hooks"): its journal counter, counter meanings,
reconciliation rules, fairness cells and terms, transaction isolation and transparent-huge-pages advice.
"""
import re

from analysis.figures.reconcile import (  # the rules' helpers (analysis/figures/reconcile.py; loaded after it)
    check as _check, commands_delta as _commands_delta, delta as _delta, n as _n, total as _sum)

# runs[].wal: `wt_log_bytes_written` = serverStatus().wiredTiger.log["log bytes written"] in each
# server-stats reading: WiredTiger's journal. The stand-ins have none (SecantusDB: no `wiredTiger`
# section; FerretDB: SQLite/PostgreSQL behind it): null with the reader's reason and the server's name.
WAL = {"counter": "wt_log_bytes_written", "source": "wiredTiger.log",
       "about": "WiredTiger's journal, serverStatus wiredTiger.log 'log bytes written'"}

# runs[].read_io (analysis/figures/read_io.py): WiredTiger's reads into its cache. SecantusDB has no
# wiredTiger section: null there with the reading's reason and the server's name.
READ_IO = {"wt_cache_read": {
    "counter": "wt_cache_bytes_read", "unit_counter": None, "source": "wiredTiger.cache 'bytes read into cache'",
    "about": ("bytes WiredTiger read into its cache (misses of its cache, as the pages are in memory: "
              "uncompressed, so larger than the compressed bytes read from the file); a read the OS page "
              "cache may serve")},
    # The server process's own storage reads, which SecantusDB has too: /proc/<pid>/io read_bytes of the
    # manifest's server processes (mongod; the stand-in's secantusd-py) at the window's marks, read by the
    # probe from outside the container (no exec in it; analysis/figures/read_io.py server_process_figure).
    "server_process_read": {
        "process_field": "read_bytes",
        "source": "/proc/<pid>/io read_bytes of the server's process (mongod, secantusd-py) at the window's marks (the probe)",
        "about": ("bytes the server's process caused to be fetched from storage (WiredTiger's file reads that "
                  "missed both its cache and the OS page cache; a read the page cache serves adds nothing)")}}


# --- counter meanings (analysis/figures/counters.py asks `counter_semantics`) ---------------------------
# Sources, per row:
# - mongod, opcounters.query and .command: MongoDB 8.0 manual, reference/command/serverStatus
#   (mongodb/docs content/manual/v8.0/source/reference/command/serverStatus.txt):
#     "opcounters.query: The total number of queries received since the mongod instance last
#      started. Starting in MongoDB 7.1, aggregations count as query operations and increment this
#      value."
#     "opcounters.command counts all commands except the following: insert, update, delete, aggregate"
#   (SERVER-66495 "Aggregations should be counted as Query ops, not Command ops", fixed in 7.1).
#   Before 7.1 an aggregate counted in opcounters.command. count and distinct are commands in every
#   version. Fixture: analysis/tests/fixtures/counters/mongod-8.0-manual.json.
# - mongod, opcounters.insert: one per document. The manual's note ("bulk insert ... as a single
#   operation") is contradicted by the server's code, which the lab follows:
#   src/mongo/db/ops/write_ops_exec.cpp `globalOpCounters.gotInserts(batch.size())` after a batch.
# - secantus (SecantusDB 0.7.0b3, the MongoDB stand-in), read with the Node driver against
#   secantusd-py (fixture analysis/tests/fixtures/counters/secantus-0.7.0b3.json): an insertMany of
#   2,000 documents counted opcounters.insert 1 (commands, not documents); an aggregate and a
#   countDocuments counted in opcounters.command, not query; metrics.commands holds no per-command
#   totals; there is no wiredTiger section and network.bytesIn/Out stay 0. Its serverStatus says
#   version 8.2.11, which is not a mongod version: the table keys on the name only.
# - mongod, transactions.totalStarted/.totalCommitted/.totalAborted/.currentOpen (server-stats
#   counters txn_total_started, ..., txn_current_open): MongoDB 8.0 manual, same page, section
#   transactions: "For the mongod, the total number of transactions started [committed, aborted] on
#   this instance since its last startup"; currentOpen: "A transaction is opened when the first
#   command is run as a part of that transaction, and stays open until the transaction either
#   commits or aborts" (totalCommitted/totalAborted since 4.0.2, SERVER-35295; currentOpen
#   SERVER-35294). So one client attempt that reached the server starts one transaction, which ends
#   committed or aborted; a write conflict aborts it on the server (the driver's later
#   abortTransaction then finds none to abort). Fixture: analysis/tests/fixtures/counters/
#   mongod-8.0-manual.json, `transactions`.
# - secantus: its serverStatus has no `transactions` section at all, also as a replica set that has
#   just committed and aborted transactions (client/test/integration/server-stats.test.js): every
#   transaction counter null with that reason.

# mongod versions whose counters the lab has read from the manual: up to the pinned 8.0. A later
# version may count differently (SERVER-123987 gives aggregates their own opcounter): checked
# first, then added here.
MONGOD_CHECKED_UP_TO = (8, 0)


def _version(text):
    m = re.match(r"\s*v?(\d+)\.(\d+)", str(text or ""))
    return (int(m.group(1)), int(m.group(2))) if m else None


def _mongod(version):
    v = _version(version)
    if v is None:
        return None, f"mongod version {version!r} not understood: its counters cannot be interpreted"
    if v > MONGOD_CHECKED_UP_TO:
        return None, (f"no counter semantics recorded for mongod {version}: the table holds versions "
                      f"up to {'.'.join(map(str, MONGOD_CHECKED_UP_TO))} (databases/mongodb/analysis.py)")
    since_7_1 = v >= (7, 1)
    return {
        "label": f"mongod {version}",
        "inserts": {"counter": "opcounters.insert", "counts": "documents"},
        # a find is `query`; an aggregate is `query` from 7.1, `command` before
        "aggregate_in": "query" if since_7_1 else "command",
        # the read commands opcounters count under `command`, moved to reads by name
        # (metrics.commands.<name>.total)
        "reads_in_command": ("count", "distinct") if since_7_1 else ("aggregate", "count", "distinct"),
        "by_name": True,
        "updates": {"counter": "opcounters.update + .delete", "counts": "statements"},
        "transactions": MONGOD_TRANSACTIONS,
        # whether a write the server refused (a write conflict) still counts in opcounters and `top`:
        # not recorded for mongod, so such writes are tolerated rather than expected
        "failed_writes_counted": None,
    }, None


# mongod's serverStatus.transactions, the same meaning in every version up to MONGOD_CHECKED_UP_TO
# (the section exists from 4.0; totalCommitted/totalAborted from 4.0.2)
MONGOD_TRANSACTIONS = {
    "started": "transactions.totalStarted: one per transaction begun on the server (its first command)",
    "committed": "transactions.totalCommitted: one per committed transaction",
    "aborted": "transactions.totalAborted: one per transaction aborted on the server (a write conflict, "
               "an abortTransaction, a timeout)",
    "open": "transactions.currentOpen: transactions begun and neither committed nor aborted",
}


SECANTUS = {
    "label": "secantus (SecantusDB stand-in)",
    "inserts": {"counter": None, "reason": "secantus counts insert commands in opcounters.insert, not documents "
                                           "(an insertMany of 2,000 documents counts 1)"},
    "aggregate_in": "command",
    "reads_in_command": ("aggregate", "count", "distinct"),
    "by_name": False,
    "by_name_reason": ("secantus counts aggregates under opcounters.command and has no metrics.commands "
                       "totals to tell them from other commands"),
    # every update the lab sends is one command with one statement, so commands and statements agree
    "updates": {"counter": "opcounters.update + .delete", "counts": "commands (one statement each from the lab)"},
    # a booking inserts with insertOne only: one document per insert command, so its inserts are counted
    "insert_commands": "opcounters.insert counts insert commands; a booking's are insertOne, one document each",
    # measured: an update refused for a write conflict in a transaction counts in opcounters and in
    # `top` (tests/unit/test_txn_lab_real_servers.py, the contended booking run); so did an insert
    # refused for a duplicate key (read once against secantusd-py 0.7.0b3 with the Node driver)
    "failed_writes_counted": True,
    # read right after a client closed, it still counted that client's connections (4 where the
    # reading holds 2; 2 again two seconds later)
    "transactions": None,
    "transactions_reason": ("secantus (SecantusDB 0.7.0b3) has no serverStatus transactions section, also as a "
                            "replica set running transactions: the server's own transaction counts are unknown"),
    "connections_current_reason": ("secantus's connections.current still counts connections a client has just "
                                   "closed (4 for the reading's own 2 right after a client exited)"),
}


def counter_semantics(server):
    """(table, None) for mongod (by version) and SecantusDB, else (None, reason)."""
    name, version = server.get("name"), server.get("version")
    if name == "mongod":
        return _mongod(version)
    if name == "secantus":
        return SECANTUS, None
    return None, f"no counter semantics recorded for server {name!r} (databases/mongodb/analysis.py)"


# --- reconciliation (analysis/figures/reconcile.py asks `reconcile`) ------------------------------------
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
    _mongodb(checks, w, start, end, seconds, sem)


def _mongodb(checks, w, start, end, seconds, sem):
    """sem: the server's counter semantics (counter_semantics above): which opcounter holds what."""
    t = TOLERANCE
    connections = w["client_sessions"] + w["readings"]
    source = f"opcounters ({sem['label']})"
    ops = w.get("ops") or {}
    queries = w.get("queries") or {"ok": 0, "errors": 0}
    lab_queries = queries["ok"] + queries["errors"]
    # a booking (databases/mongodb/client/workloads/booking.js, mongodb-txn.js): one aggregate ($lookup of the
    # flight's aircraft), two insertOne (seat, payment), one updateOne (the audit upsert) and a
    # commitTransaction; an aborted attempt sent up to as many, and an abortTransaction
    txn = w.get("txn")
    booked, aborted = (txn["committed"], txn["aborted"]) if txn and txn["workload"] == "booking" else (0, 0)
    booking = bool(txn) and txn["workload"] == "booking"
    oltp_why = ("WORKLOAD=oltp on MongoDB: its operation types' commands are not modelled per opcounter "
                "(transactions counted by the client only)") if txn and txn["workload"] == "oltp" else None
    writes = txn.get("writes") if booking else None
    inserts = (_delta(start, end, "opcounters_insert")
               if sem["inserts"]["counter"] or (writes is not None and sem.get("insert_commands")) else None)
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
    if writes is not None:
        sent, unsure, how = _booking_writes(txn, sem)
        _check(checks, "inserts", sent("seat", "payment"), inserts, unsure("seat", "payment"),
               f"{source}: one insert per seat and payment insert the clients sent, in any attempt "
               f"(transactions.writes: {how})", None if inserts is not None else sem["inserts"].get("reason"),
               low_too=True)
    elif booking:
        _check(checks, "inserts", 2 * booked, inserts, 2 * aborted,
               f"{source}: two inserts (seat, payment) per committed booking (tolerance: aborted attempts')",
               sem["inserts"].get("reason"), low_too=True)
    else:
        _check(checks, "inserts", w["docs_ok"], inserts, w["errors"],
               f"{source}: one insert per acknowledged document (tolerance: failed inserts)",
               oltp_why or sem["inserts"].get("reason"), low_too=True)
    lab_reads = _n(ops, "read") + _n(ops, "rmw") + _n(ops, "scan") + _n(ops, "range") + queries["ok"] + booked
    read_errors = (_n(ops, "read", "errors") + _n(ops, "rmw", "errors") + _n(ops, "scan", "errors")
                   + _n(ops, "range", "errors") + queries["errors"])
    # a scan is one find whose first batch holds all its documents; a getMore or killCursors per
    # scan at most is tolerated; globalsign's range is one find read to the end: its band's people
    # beyond the first batch's 101 come in getMores (16 MiB each). Where the clients counted the
    # ranges' round trips (range_round_trips: a find and each getMore, e.g. 1 MiB people's several),
    # those are the ranges' reads; else one getMore per range is tolerated
    trips = w.get("range_round_trips")
    range_slack = _n(ops, "range")
    if trips:
        lab_reads += trips["round_trips"] - trips["ranges"]
        range_slack = 0
    _check(checks, "reads", lab_reads, reads,
           t["reads_per_s"] * seconds + read_errors + _n(ops, "scan") + range_slack + aborted,
           f"{source}: {read_names}: one aggregate per committed booking (tolerance: aborted attempts')" if booking else
           f"{source}: {read_names}: one find per read, scan{', range' if _n(ops, 'range') else ''} and read-modify-write, "
           f"{'each range its find and getMores as the clients counted them (range_round_trips), ' if trips else ''}"
           "one aggregate or find per query execution (tolerance: refused queries)"
           if lab_reads else f"{source}: {read_names}: the lab reads nothing in the window",
           reads_why, low_too=bool(lab_reads))
    # a tsbs bucket upsert is one update command (upsert: true), whether it creates or appends
    lab_writes = _n(ops, "update") + _n(ops, "rmw") + _n(ops, "bucket") + booked
    unsure_writes = aborted
    about = (f"{source}: update/delete {sem['updates']['counts']}: one audit upsert per committed booking "
             "(tolerance: aborted attempts')")
    if writes is not None:
        lab_writes, unsure_writes = sent("audit"), unsure("audit")
        about = (f"{source}: update/delete {sem['updates']['counts']}: one per audit upsert the clients sent, in any "
                 f"attempt (transactions.writes: {how})")
    _check(checks, "other_writes", lab_writes,
           None if oltp_why else _sum(_delta(start, end, "opcounters_update"), _delta(start, end, "opcounters_delete")),
           t["other_writes_fixed"] + t["other_writes_per_s"] * seconds + unsure_writes
           + _n(ops, "update", "errors") + _n(ops, "rmw", "errors") + _n(ops, "bucket", "errors"),
           about if booking else
           f"{source}: update/delete {sem['updates']['counts']}: one update per update and read-modify-write"
           if lab_writes else f"{source}: update/delete: the lab only inserts",
           oltp_why, low_too=bool(lab_writes))
    if writes is not None:
        _mongodb_booking_collections(checks, txn, start, end, sem)
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


def _booking_writes(txn, sem):
    """(sent(*tables), unsure(*tables), how): the booking's write commands the server counts, from the
    clients' transactions.writes ({table: {ok, failed}}), and what is tolerated. A server known to count
    a refused write (semantics failed_writes_counted) is expected to count every one the clients sent;
    otherwise a refused one is tolerated. Either way an attempt ended by an error no retry helps (a lost
    connection) may have had its write in flight."""
    w, lost = txn["writes"], txn["aborted_on_errors"]
    counted = sem.get("failed_writes_counted") is True

    def sent(*tables):
        return sum(w[x]["ok"] + (w[x]["failed"] if counted else 0) for x in tables)

    def unsure(*tables):
        return (0 if counted else sum(w[x]["failed"] for x in tables)) + lost
    how = ("answered and refused ones, which this server counts; tolerance: attempts ended by a non-retryable error"
           if counted else "answered ones; tolerance: refused ones, which this server may or may not count, and "
                           "attempts ended by a non-retryable error")
    return sent, unsure, how


def _mongodb_booking_collections(checks, txn, start, end, sem):
    """A booking's writes collection by collection, from `top` (MongoDB manual, top: per collection, a
    count of how many times each event has executed; a booking's commands are single statements): the
    collections it writes (client/src/workloads/booking.js WRITTEN) take a seat or payment insertOne as
    an insert and the audit upsert (updateOne, upsert: true) as an update, nothing else; no other
    collection of the lab's database is written (top_other_writes)."""
    sent, unsure, how = _booking_writes(txn, sem)

    def delta(key):
        return _delta(start, end, key)

    def why(key):
        return ((end.get("unavailable") or {}).get(key) or (start.get("unavailable") or {}).get(key)
                or f"the readings have no {key} (a client before `top` was read)")
    for table, event in (("seat", "insert"), ("payment", "insert"), ("audit", "update")):
        keys = [f"top_{table}_{e}" for e in ("insert", "update", "remove")]
        values = [delta(k) for k in keys]
        missing = next((k for k, v in zip(keys, values) if v is None), None)
        _check(checks, f"{table}_writes", sent(table), None if missing else sum(values), unsure(table),
               f"top {table}: insert + update + remove = one {event} per {table} write the clients sent, in any "
               f"attempt ({how})", why(missing) if missing else None, low_too=True)
    other = delta("top_other_writes")
    _check(checks, "writes_elsewhere", 0, other, 0,
           "top: inserts, updates and removes in every other collection of the lab's database (aircraft and "
           "schedule included): bookings write nothing there", None if other is not None else why("top_other_writes"))


def _mongodb_transactions(checks, txn, start, end, sem):
    """The server's own transaction counts (serverStatus.transactions, counter_semantics above) against
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


# --- fairness (analysis/figures/fairness.py asks `fairness_cells` and `fairness_terms`) ------------------
# What mongod does where the lab does not align it (README.md's fairness table says why):
DEFAULT_SYNCDELAY = "60"       # storage.syncPeriodSecs
BLOCKING_STAGE_MB = 100        # internalQueryMaxBlockingSortMemoryUsageBytes, $group's limit


def _command(settings):
    cmd = (settings or {}).get("command")
    return [str(a) for a in cmd] if isinstance(cmd, list) else None


def _flag(cmd, name):
    """mongod's `--name value` / `--name=value`."""
    for i, a in enumerate(cmd or []):
        if a == name and i + 1 < len(cmd):
            return cmd[i + 1]
        if a.startswith(name + "="):
            return a.split("=", 1)[1]
    return None


def _stand_in(settings):
    return ((settings or {}).get("labels") or {}).get("jsonbench.stand_in")


def setting(settings, name):
    """A command-line setting mongod ran with (`--name value`), None without it."""
    return _flag(_command(settings), name)


def fairness_cells(settings, run_env):
    """{what: cell} of mongodb (`settings` None: it did not run in this bench). What mongod would do
    is not said of a stand-in: its label is named instead."""
    cmd, si = _command(settings), _stand_in(settings)

    def mongod(value, default):
        if si:
            return f"stand-in ({si}): mongod's behaviour does not apply"
        if cmd is None:
            return "not run in this bench"
        return value if value is not None else default
    syncdelay, repl = _flag(cmd, "--syncdelay"), _flag(cmd, "--replSet")
    cells = {
        "checkpoint interval": mongod(syncdelay and f"{syncdelay} s (--syncdelay)", f"{DEFAULT_SYNCDELAY} s (default)"),
        "settle between phases": mongod(None, "{fsync: 1} after each load phase, before each query phase and before "
                                              "each storage read"),
        "replication log": mongod(repl and f"replica set {repl}: oplog written", "standalone: no oplog"),
        "compression at rest": mongod(None, "WiredTiger: snappy on every collection block, prefix compression of indexes"),
        "sort / hash memory": mongod(None, f"{BLOCKING_STAGE_MB} MB per blocking stage, spilling beyond"),
        "idle CPU": mongod(None, "always-on FTDC (1 s diagnostic sampling) and WiredTiger's threads"),
    }
    # transactions (WORKLOAD=booking/oltp): MongoDB's have no isolation level to set
    on_stand_in = f" (as the stand-in {si} implements it)" if si else ""

    def txn(text):
        return text + on_stand_in if settings else "not run in this bench"
    cells.update({
        "transaction isolation": txn(transaction_isolation(None) + ", on a one-member replica set"),
        "retries": txn(f"TransientTransactionError: the whole transaction; UnknownTransactionCommitResult: the "
                       f"commit; RETRY={run_env['RETRY']}, MAX_ATTEMPTS={run_env['MAX_ATTEMPTS']}"),
        "sessions per client": txn(f"SESSIONS={run_env['SESSIONS']} connections, one session each"),
    })
    return cells


def fairness_terms(settings, run_env):
    """{what: term}: a row is aligned when the baseline's pair state the same term (None: not
    comparable). Read from the command line whatever the server (a stand-in's says nothing)."""
    cmd, si = _command(settings), _stand_in(settings)
    syncdelay, repl = _flag(cmd, "--syncdelay"), _flag(cmd, "--replSet")
    return {
        "checkpoint interval": syncdelay and f"every {syncdelay} s",
        "settle between phases": None if si else "flushed after each load phase and before each storage read",
        "replication log": repl and "a replica's log written",
        "compression at rest": "WiredTiger block compression",
        "sort / hash memory": f"{BLOCKING_STAGE_MB}MB",
        "idle CPU": "FTDC and WiredTiger's threads",
        "transaction isolation": "snapshot",
        "retries": f"the whole transaction, RETRY={run_env['RETRY']}, MAX_ATTEMPTS={run_env['MAX_ATTEMPTS']}",
        "sessions per client": f"SESSIONS={run_env['SESSIONS']}",
    }


def transaction_isolation(iso):
    """The isolation a transaction ran at, whatever ISOLATION says: MongoDB's transactions have no
    isolation level to set (analysis/render/txn_report.py, fairness above)."""
    return "snapshot read concern, majority write concern"


# --- transparent huge pages (analysis/collect/thp.py asks `THP`) ------------------------------------------
# MongoDB 8.0's TCMalloc (per-CPU caches) wants THP enabled before mongod starts; its "TCMalloc
# Performance Optimization for a Self-Managed Deployment" page sets enabled=always,
# defrag=defer+madvise, khugepaged/max_ptes_none=0 and vm.overcommit_memory=1. host.json records
# `mongodb_8_0_recommends` and `matches_mongodb_8_0` (the key below, by contract).
THP = {"key": "mongodb_8_0", "who": "MongoDB 8.0",
       "recommends": {"enabled": "always", "defrag": "defer+madvise", "max_ptes_none": 0, "overcommit_memory": 1}}


# --- the cache (analysis/figures/memory.py asks `cache_asked`) ------------------------------------------

def cache_asked(settings, read):
    """CACHE_MB unset: --wiredTigerCacheSizeGB on the command line (compose.yaml's, .env's
    MONGO_CACHE_GB), in bytes as mongod gives WiredTiger its cache_size: whole MiB of the GiB given
    (the stand-in's entrypoint maps it to --cache-size the same way); None without it."""
    value = setting(settings, "--wiredTigerCacheSizeGB")
    if value is None:
        return None
    try:
        mib = int(float(value) * 1024)
    except ValueError:
        mib = None
    return {"bytes": None if mib is None else mib << 20,
            "from": f"--wiredTigerCacheSizeGB {value} on the command line (.env MONGO_CACHE_GB)"}
