"""What analysis knows of PostgreSQL (loaded by analysis/common/databases.py `hooks`; the names it may
define: docs/contracts.md "A database's analysis hooks"): its WAL counter, counter meanings, reconciliation
rules, fairness cells and terms, and transaction isolation.
"""
import re

from analysis.figures.reconcile import (  # the rules' helpers (analysis/figures/reconcile.py; loaded after it)
    check as _check, delta as _delta, n as _n, total as _sum)

# runs[].wal: `wal_bytes` = pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0') in each server-stats
# reading (databases/postgres/client/postgres-stats.js): the advance of the WAL *write* position (WAL
# handed to the operating system, not necessarily flushed; records still in the server's WAL
# buffers, pg_current_wal_insert_lsn, are not in it), full-page images and TOAST included.
WAL = {"counter": "wal_bytes", "source": "pg_current_wal_lsn",
       "about": ("advance of the WAL write position, pg_current_wal_lsn() (WAL written to the operating "
                 "system, not necessarily flushed; not the insert position)")}

# runs[].read_io (analysis/figures/read_io.py): blocks PostgreSQL read because shared_buffers did not
# hold them. Each is a read() of one block from the kernel, which the OS page cache may serve: a
# buffer-cache miss, not necessarily a storage read (the kernel's read_bytes beside it says which).
READ_IO = {"blks_read": {
    "counter": "blks_read", "unit_counter": "block_size_bytes", "source": "pg_stat_database.blks_read x block_size",
    "about": ("blocks read into shared_buffers (misses of PostgreSQL's cache, this database only), each a read "
              "the OS page cache may serve: not necessarily storage reads")}}


# --- counter meanings (analysis/figures/counters.py asks `counter_semantics`) ---------------------------
# pg_stat_database columns (PostgreSQL 17 manual, monitoring-stats; the same in 15); `sessions` from 14.
# xact_commit/xact_rollback count every transaction of the database, the lab's own readings and
# each session's start-up included (reconcile below counts those).
SESSIONS_FROM = (14, 0)


def counter_semantics(server):
    return {"label": f"postgres {server.get('version')}", "sessions_from": SESSIONS_FROM}, None


# --- reconciliation (analysis/figures/reconcile.py asks `reconcile`) ------------------------------------
# What the lab allows beyond the work it can count exactly. Measured on PostgreSQL 17.12 (the
# stand-in; 15.18 read the same within 2%) in windows between two server-stats readings: a new
# session runs one start-up transaction; a reading's own session (the start reading's lands in the
# window: a session's counters are published when it ends) runs 4 transactions and reads about 2,200
# catalog rows (the pg_stat views' definitions: 2,212 on 17.12, 2,165 on 15.18); a `run` session of
# the insert workload reads about 80 besides its start-up, set and prepare, a session that only
# connects 31-51 (client/test/integration/server-stats.test.js pins the transactions). An e2e
# window of 53 s on 17.12 (2 clients, 4,000 inserts) read 3,933 rows against an allowance of 5,099.
TOLERANCE = {
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
}


def reconcile(checks, w, start, end, seconds, sem, helpers):
    _postgres(checks, w, start, end, seconds)
    _postgres_cluster(checks, start, end, seconds)


# What one committed transaction writes on PostgreSQL, as user-table row counts (databases/postgres/
# client/workloads/oltp.js): oltp's writes per operation type. A booking's are reconciled per table
# (_postgres_booking_rows).
OLTP_ROWS_INSERTED = {"delete-insert": 1}
OLTP_ROWS_CHANGED = {"index-update": 1, "non-index-update": 1, "delete-insert": 1}
# The tables a booking writes (client/src/workloads/booking.js WRITTEN; their write counters are read
# one by one, databases/postgres/client/postgres-stats.js `table_<name>_n_tup_*`).
BOOKING_WRITTEN = ("seat", "payment", "audit")


def _postgres_oltp_rows(w):
    """Rows written by the oltp transactions: an aborted attempt's rows count too (pg_stat counts the
    tuples of rolled-back transactions), so each aborted attempt is tolerated up to its rows."""
    txn, ops = w["txn"], w.get("ops") or {}
    inserted = sum(_n(ops, op) * k for op, k in OLTP_ROWS_INSERTED.items())
    changed = sum(_n(ops, op) * k for op, k in OLTP_ROWS_CHANGED.items())
    return (inserted, txn["aborted"] + w["errors"],
            "pg_stat_user_tables n_tup_ins: one row per committed delete+insert (tolerance: aborted attempts)",
            changed, 2 * txn["aborted"] + w["errors"],
            "pg_stat_user_tables n_tup_upd + n_tup_del: one row per committed index/non-index update and "
            "delete+insert (tolerance: aborted attempts)")


def _postgres_booking_rows(checks, w, start, end):
    """A booking's rows, table by table, against the write statements the clients counted over every
    attempt (results' transactions.writes: pg_stat_user_tables counts a rolled-back transaction's
    tuples as a committed one's, so they are expected, not tolerated). Tolerated: an attempt ended by
    an error no retry helps (a lost connection) may have written its statement in flight.

    seat, payment: n_tup_ins + n_tup_upd + n_tup_del = their inserts. audit, whose upsert (insert ...
    on conflict do update) inserts a row the first time and updates it after: two sessions racing to
    create the same row both insert speculatively and the later takes its tuple back, which
    PostgreSQL counts as inserted and deleted (heapam.c heap_abort_speculative: "count deletion, as
    we counted the insertion too"), before it updates. So n_tup_ins + n_tup_upd - n_tup_del = its
    upserts; n_tup_ins - n_tup_del = the rows created: those of the bookings in the database (count's
    nothing-lost check derives each booking's (flight, day): booking_check.audit_rows_booked), plus
    at most one per rolled-back upsert; n_tup_del = the speculative insertions taken back: a row
    holding n bookings was raced for by at most min(sessions - 1, n - 1) of them, and an upsert of no
    booking in the database (rolled back, or failed) may have raced or been raced by every session.
    Any other table of the database (aircraft, schedule, anything else): no write at all."""
    txn, sessions = w["txn"], w["client_sessions"]
    writes, lost = txn.get("writes"), txn["aborted_on_errors"]
    d = {(t, c): _delta(start, end, f"table_{t}_n_tup_{c}") for t in BOOKING_WRITTEN for c in ("ins", "upd", "del")}
    why = None
    if writes is None or any(t not in writes for t in BOOKING_WRITTEN):
        why = "the client results have no transactions.writes (per-table write counts)"
    elif any(v is None for v in d.values()):
        missing = next(f"table_{t}_n_tup_{c}" for (t, c), v in d.items() if v is None)
        why = ((end.get("unavailable") or {}).get(missing) or (start.get("unavailable") or {}).get(missing)
               or f"the readings have no per-table counter {missing} (a client before per-table readings)")
    ok = {t: (writes or {}).get(t, {}).get("ok", 0) for t in BOOKING_WRITTEN}
    failed = {t: (writes or {}).get(t, {}).get("failed", 0) for t in BOOKING_WRITTEN}

    def of(table, ins, upd, dl):
        return None if why else ins * d[(table, "ins")] + upd * d[(table, "upd")] + dl * d[(table, "del")]
    for table in ("seat", "payment"):
        _check(checks, f"{table}_rows", ok[table], of(table, 1, 1, 1), lost,
               f"pg_stat_user_tables {table}: n_tup_ins + n_tup_upd + n_tup_del = one insert per {table} insert the "
               "clients sent and the server answered, in any attempt (transactions.writes; tolerance: attempts ended "
               "by a non-retryable error, whose statement in flight may have run)", why, low_too=True)
    _check(checks, "audit_upserts", ok["audit"], of("audit", 1, 1, -1), lost,
           "pg_stat_user_tables audit: n_tup_ins + n_tup_upd - n_tup_del = one insert or update per audit upsert the "
           "server answered, in any attempt (a speculative insertion taken back counts as inserted and deleted; "
           "tolerance: attempts ended by a non-retryable error)", why, low_too=True)
    booked = txn.get("booked")
    booked_why = why or (None if booked else "count's nothing-lost check did not derive the bookings' (flight, day) "
                                             "(no booking_check with audit_rows_booked: no count, or no TXN_OUTCOMES)")
    landed = (booked or {}).get("landed", 0)
    rolled_back_ok = max(0, ok["audit"] - landed)
    _check(checks, "audit_rows_created", (booked or {}).get("rows", 0),
           None if booked_why else of("audit", 1, 0, -1), rolled_back_ok + lost,
           "pg_stat_user_tables audit: n_tup_ins - n_tup_del = the audit rows the bookings in the database created "
           "(booking_check.audit_rows_booked; tolerance: an answered upsert of no booking in the database, rolled "
           "back, may have inserted a row; attempts ended by a non-retryable error)", booked_why, low_too=True)
    # Each row created (a committed or rolled-back insertion) is raced for at most once by each other
    # session, and only by an upsert of the same row. Rows created: at most the answered upserts; with
    # count's figures, the rows of the bookings in the database (`booked`) plus one per answered upsert
    # of no booking there (rolled back). Racers of a booked row: its other bookings, at most
    # sessions - 1 of them, and any upsert of no booking in the database (answered or failed).
    others = ok["audit"] + failed["audit"] - landed
    if booked:
        per_row = sum(rows * min(sessions - 1, n - 1) for n, rows in booked["by_bookings"].items())
        races = min(per_row + others + (sessions - 1) * rolled_back_ok, (sessions - 1) * (booked["rows"] + rolled_back_ok))
        rule = ("the lesser of: the sum over the audit rows of min(sessions - 1, its bookings - 1) "
                "(booking_check.audit_rows_by_bookings) + the upserts of no booking in the database + (sessions - 1) x "
                "the answered ones among them; (sessions - 1) x (audit rows created + those answered upserts)")
    else:
        races = (sessions - 1) * ok["audit"]
        rule = "(sessions - 1) x the answered audit upserts (count's audit rows unknown)"
    _check(checks, "audit_speculative_deletes", 0, None if why else d[("audit", "del")], races + lost,
           f"pg_stat_user_tables audit n_tup_del: bookings delete nothing; tolerance: the speculative insertions two "
           f"sessions racing to create the same audit row take back (heapam.c heap_abort_speculative): {rule}", why)
    # every other table of the database: the user tables' sums less the three
    user = [_delta(start, end, f"user_n_tup_{c}") for c in ("ins", "upd", "del")]
    elsewhere = None if why or any(v is None for v in user) else sum(user) - sum(d.values())
    _check(checks, "rows_written_elsewhere", 0, elsewhere, 0,
           "pg_stat_user_tables n_tup_ins + n_tup_upd + n_tup_del of every user table but seat, payment and audit "
           "(aircraft and schedule included): bookings write nothing there", why)


def _postgres(checks, w, start, end, seconds):
    t = TOLERANCE
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
        if txn["workload"] == "booking":
            _postgres_booking_rows(checks, w, start, end)
        else:
            ins, ins_tol, ins_about, chg, chg_tol, chg_about = _postgres_oltp_rows(w)
            _check(checks, "rows_written", ins, _delta(start, end, "user_n_tup_ins"), ins_tol, ins_about, low_too=True)
            _check(checks, "rows_changed", chg, _sum(_delta(start, end, "user_n_tup_upd"),
                                                     _delta(start, end, "user_n_tup_del")),
                   chg_tol, chg_about, low_too=bool(chg))
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


def _autovacuum_reads(check, start, end):
    """Rows read beyond the tolerance while autovacuum or autoanalyze ran on the lab's own tables in
    the window (pg_stat_user_tables autovacuum_count + autoanalyze_count, in readings since they were
    taken): the server's own maintenance of the workload's data, counted in its CPU like any of its
    work, not work from outside. An ANALYZE evaluates every expression index on each sampled row, and
    a document stored in TOAST is read whole for it (globalsign-1mb: the partial index on
    data->'age' of 1 MiB documents; about 800 TOAST rows a sampled row, measured). The check is then
    `ok` with `explained_by`; reads of the lab's tables themselves stay user_table_reads' to judge."""
    runs = _sum(_delta(start, end, "user_autovacuum_count"), _delta(start, end, "user_autoanalyze_count"))
    if check.get("verdict") == "suspect" and runs:
        check["verdict"] = "ok"
        check["explained_by"] = (f"autovacuum ran {runs} time(s) on the lab's tables in the window "
                                 "(pg_stat_user_tables autovacuum_count + autoanalyze_count): its ANALYZE reads "
                                 "the sampled rows' documents (whole, from TOAST, for an expression index); "
                                 "the server's own work for this workload, in its CPU figures")


def _postgres_reads(checks, w, start, end, seconds, sessions_in):
    t = TOLERANCE
    ops = w.get("ops") or {}
    reading = [op for op in ops if op != "insert" and ops[op]["ok"] + ops[op]["errors"]]
    cannot = (f"the phase's own {', '.join(reading)} operations read rows: these counters cannot tell them "
              "from foreign reads" if reading else None)
    _check(checks, "rows_read", 0,
           None if cannot else _sum(_delta(start, end, "tup_returned"), _delta(start, end, "tup_fetched")),
           t["rows_read_per_connection"] * (sessions_in + 1) + t["rows_read_per_s"] * seconds,
           "tup_returned + tup_fetched: the lab's inserts read no rows (tolerance: catalog reads per session "
           "incl. the readings, autovacuum)", cannot)
    _autovacuum_reads(checks["rows_read"], start, end)
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
    t = TOLERANCE
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
    # in `postgres`/`template1` with no client at all, a 53 s one on PostgreSQL 17.12 26 and 5,798. A client's work there shows in sessions,
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


# --- fairness (analysis/figures/fairness.py asks `fairness_cells` and `fairness_terms`) ------------------
# What postgres does where the lab does not align it (README.md's fairness table says why):
DEFAULT_WORK_MEM = "4MB"          # PostgreSQL's default, unchanged by the official image
DEFAULT_CHECKPOINT_TIMEOUT = "300s"
# the ISOLATION bench key's values as PostgreSQL names them (SET TRANSACTION ISOLATION LEVEL)
ISOLATION_NAMES = {"read-committed": "READ COMMITTED", "repeatable-read": "REPEATABLE READ", "serializable": "SERIALIZABLE"}


def _command(settings):
    cmd = (settings or {}).get("command")
    return [str(a) for a in cmd] if isinstance(cmd, list) else None


def setting(settings, name):
    """A command-line setting postgres ran with (`-c name=value`), None without it."""
    for a in _command(settings) or []:
        if a.startswith(name + "="):
            return a.split("=", 1)[1]
    return None


def fairness_cells(settings, run_env):
    """{what: cell} of postgres (`settings` None: it did not run in this bench; what does not depend
    on its command line is stated all the same)."""
    cmd = _command(settings)

    def pg(value, default):
        return "not run in this bench" if cmd is None else (value if value is not None else default)
    timeout, wal_level, work_mem = setting(settings, "checkpoint_timeout"), setting(settings, "wal_level"), run_env.get("WORK_MEM") or DEFAULT_WORK_MEM
    iso = run_env["ISOLATION"]
    return {
        "checkpoint interval": pg(timeout and f"checkpoint_timeout={timeout}",
                                  f"checkpoint_timeout={DEFAULT_CHECKPOINT_TIMEOUT} (default)"),
        "settle between phases": "VACUUM (ANALYZE) + CHECKPOINT after each load phase and before each query phase; "
                                 "CHECKPOINT before each storage read",
        "replication log": pg(wal_level and f"wal_level={wal_level}", "wal_level=replica (default)"),
        "compression at rest": "TOAST (pglz) only for rows over ~2 kB; heap and index pages uncompressed",
        "sort / hash memory": f"work_mem={work_mem} per sort/hash node"
                              + (" (default)" if work_mem == DEFAULT_WORK_MEM else " (WORK_MEM)"),
        "idle CPU": "background writer, checkpointer, WAL writer, autovacuum launcher",
        "transaction isolation": pg(None, f"{transaction_isolation(iso)} (ISOLATION={iso})"),
        "retries": pg(None, f"40001 serialization_failure and 40P01 deadlock_detected: the whole transaction; "
                            f"RETRY={run_env['RETRY']}, MAX_ATTEMPTS={run_env['MAX_ATTEMPTS']}"),
        "sessions per client": pg(None, f"SESSIONS={run_env['SESSIONS']} connections"),
    }


def fairness_terms(settings, run_env):
    """{what: term}: a row is aligned when the baseline's pair state the same term (None: not
    comparable). PostgreSQL's REPEATABLE READ is snapshot isolation."""
    timeout = setting(settings, "checkpoint_timeout")
    iso = run_env["ISOLATION"]
    return {
        "checkpoint interval": timeout and f"every {timeout.rstrip('s')} s",
        "settle between phases": "flushed after each load phase and before each storage read",
        "replication log": "a replica's log written",
        "compression at rest": "TOAST of rows over ~2 kB only",
        "sort / hash memory": run_env.get("WORK_MEM") or DEFAULT_WORK_MEM,
        "idle CPU": "background writer, checkpointer, WAL writer, autovacuum launcher",
        "transaction isolation": "snapshot" if iso == "repeatable-read" else transaction_isolation(iso),
        "retries": f"the whole transaction, RETRY={run_env['RETRY']}, MAX_ATTEMPTS={run_env['MAX_ATTEMPTS']}",
        "sessions per client": f"SESSIONS={run_env['SESSIONS']}",
    }


def transaction_isolation(iso):
    """The isolation a transaction ran at: the ISOLATION bench key's level, by PostgreSQL's name."""
    return ISOLATION_NAMES.get(iso, str(iso))


# --- the cache (analysis/figures/memory.py asks `cache_asked` and `cache_expected`) ---------------------
# shared_buffers as postgres reads it: a number with a memory unit (B, kB, MB, GB, TB: powers of 1024),
# or a bare number of buffers of block_size bytes (PostgreSQL 17 manual, "Parameter Names and Values")
PG_UNITS = {"B": 1, "kB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30, "TB": 1 << 40}


def _block(read):
    parts = (read or {}).get("parts") or {}
    return int(((parts.get("block_size") or {}).get("setting")) or 8192)


def cache_asked(settings, read):
    """CACHE_MB unset: the shared_buffers on the server's command line (compose.yaml's -c
    shared_buffers=${PG_SHARED_BUFFERS}, .env's), in bytes; None without it."""
    value = setting(settings, "shared_buffers")
    if value is None:
        return None
    m = re.fullmatch(r"\s*(\d+)\s*(B|kB|MB|GB|TB)?\s*", value)
    where = f"shared_buffers={value} on the server's command line (.env PG_SHARED_BUFFERS)"
    if m is None:
        return {"bytes": None, "from": where}
    return {"bytes": int(m.group(1)) * (PG_UNITS[m.group(2)] if m.group(2) else _block(read)), "from": where}


def cache_expected(asked, read):
    """shared_buffers is whole buffers: a size that is no multiple of block_size is rounded to the
    nearest one (the manual: a value is rounded to the parameter's unit); a multiple is held exactly."""
    block = _block(read)
    if asked % block == 0:
        return asked, None
    return (asked + block // 2) // block * block, f"whole {block} B buffers: {asked} B rounded to the nearest"
