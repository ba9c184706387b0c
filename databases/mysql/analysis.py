"""What analysis knows of MySQL and of MariaDB, the stand-in of earlier runs (loaded by
analysis/common/databases.py `hooks`; the names a hooks file may define: docs/contracts.md "A database's
analysis hooks").

Every counter is read from `node client server-stats` (databases/mysql/client/mysql-stats.js:
SHOW GLOBAL STATUS, SHOW BINARY LOGS) at the window edges. What each counts, by server:
- MySQL manual (8.4 and 9.7), server-status-variables.html: Com_xxx "the number of times each xxx
  statement has been executed"; Com_stmt_execute one per COM_STMT_EXECUTE (and EXECUTE), counted
  "even if ... an error occurred during execution"; Questions "statements sent to the server by
  clients ... does not count COM_PING, COM_STATISTICS, COM_STMT_PREPARE, COM_STMT_CLOSE, or
  COM_STMT_RESET"; Handler_write / Handler_update "requests to insert / update a row in a table";
  Handler_read_key "requests to read a row based on a key"; Connections "connection attempts
  (successful or not)"; Threads_connected "currently open connections"; Innodb_rows_inserted /
  _updated "rows inserted / updated in InnoDB tables"; Innodb_redo_log_current_lsn "the last written
  log sequence number".
- MariaDB 10.11 (mariadb.com/kb server-status-variables, innodb-status-variables): the same Com_*,
  Questions, Handler_*, Connections, Threads_connected; no Innodb_rows_* at all (the readings hold
  them null with that reason); Innodb_lsn_current "current log sequence number".
What the documentation leaves open was measured through `node client` exactly as the lab runs it
(readings kept as fixtures in analysis/tests/fixtures/reconcile/), on MySQL 9.7.4-2 (Debian's
package, the lab's stand-in: mysql97-*) and earlier on MariaDB 10.11.18 (mariadb-*):
- a prepared INSERT/SELECT/UPDATE executed with COM_STMT_EXECUTE counts once in Com_stmt_execute
  AND once in Com_insert/Com_select/Com_update (400 inserts: both deltas 400; both servers);
- COM_QUIT counts in Questions, COM_STMT_PREPARE does not (both);
- Handler_write and Handler_update count one per row the workload writes or changes (an UPDATE
  writing the value already there changes no row: 76 of 200 in YCSB F after A, on both);
  Handler_read_key one per keyed SELECT/UPDATE and per scan;
- MySQL 9.7 only: the reading's SHOW GLOBAL STATUS ... WHERE Variable_name IN (...) goes through a
  temporary table, counting one Handler_read_key per name asked and one Handler_write per row found
  (23 and 23 in every window: the reading's `status_names`, its raw.status rows); MariaDB's counts
  nothing there;
- the first phase that opens the table after `init` adds the reads of opening it: MariaDB 4
  Handler_read_key (its persistent statistics), MySQL 9.7 12 Handler_read_key and 9
  Handler_read_next (its data dictionary and statistics): TOLERANCE["table_open_reads"], for the
  table of the json form (id, data); MySQL 9.7 reads the dictionary per column, 10 + C Handler_read_key
  and 5 + 2C Handler_read_next for a table of C columns (measured at 2, 5, 11 and 31 columns: the
  relational form's, MYSQL_FORM=relational, one column per field): TABLE_OPEN_READS_PER_COLUMN;
- the LSN's delta is the redo generated (MariaDB: equal to Innodb_os_log_written's; MySQL 9.7:
  Innodb_os_log_written is about 5% more, 5,757,952 against 5,502,897 bytes for 400 10 kB
  documents: a partly filled 512-byte log block is written again by the next commit), and SHOW
  BINARY LOGS' File_size sum grows by what each commit appends (equal to the files' own sizes).
On MySQL 8.4 (the official mysql:8.4.10 of MYSQL_VERSION=8.4) nothing was measured (no registry
reaches it here): the checks that rest on a measurement are null there with that reason; the ones
the manual decides are kept.
"""
import re

# runs[].wal: InnoDB's redo log. The LSN is a byte position in the redo log, so its advance between
# the readings is the redo generated in the window (records and, on MySQL, the 512-byte blocks'
# headers and trailers; MariaDB 10.8+ writes the log as one circular file with no per-block headers).
REDO_SOURCE = {"MariaDB": "Innodb_lsn_current", "MySQL": "Innodb_redo_log_current_lsn"}


def WAL(server):
    source = REDO_SOURCE.get((server or {}).get("product"), "Innodb_redo_log_current_lsn")
    return {"counter": "redo_lsn", "source": source,
            "about": (f"InnoDB redo log: advance of the log sequence number, {source} (MySQL: the redo "
                      "written, 'the last written LSN'; the doublewrite buffer and the binary log are not in it)")}


# runs[].binlog (and per_op.binlog_bytes): the binary log, which a MySQL server writes on every commit
# beside the redo log. `binlog_bytes` = the sum of SHOW BINARY LOGS' File_size: a rotation (a restart,
# max_binlog_size) adds a file and keeps the sum growing; only a purge (binlog_expire_logs_seconds,
# PURGE BINARY LOGS) makes it go down, and then the window's bytes are unknown.
BINLOG = {"counter": "binlog_bytes", "source": "SHOW BINARY LOGS",
          "about": ("binary log: growth of the sum of SHOW BINARY LOGS File_size (row events of every "
                    "commit: an insert's whole row; an update's row before and after it, with "
                    "binlog_row_image=FULL the before-image whole even when PARTIAL_JSON shrinks the after-image)"),
          "down": "binary log files were purged or the server restarted"}
LOGS = {"binlog": ("binary log", BINLOG)}

# runs[].read_io (analysis/figures/read_io.py): InnoDB's reads from its files. With
# innodb_flush_method=O_DIRECT (MySQL 8.4 and 9.7's default on Linux where the file system allows it;
# D.settings.json records what ran) the data files bypass the OS page cache, so these are storage reads.
READ_IO = {
    "buffer_pool_reads": {
        "counter": "innodb_buffer_pool_reads", "unit_counter": "innodb_page_size_bytes",
        "source": "Innodb_buffer_pool_reads x Innodb_page_size",
        "about": ("pages InnoDB could not find in the buffer pool and read from its files (with O_DIRECT, "
                  "from storage; read-ahead has its own counter, Innodb_buffer_pool_read_ahead)")},
    "data_read": {
        "counter": "innodb_data_read_bytes", "unit_counter": None, "source": "Innodb_data_read",
        "about": "bytes InnoDB read from all its files (data, undo, system tablespace), read-ahead included"},
}


# --- counter meanings (analysis/figures/counters.py asks `counter_semantics`) --------------------------

MARIADB_CHECKED = (10, 11)  # the stand-in of earlier runs, the version measured on
MYSQL_MEASURED = (9, 7)     # the stand-in's line (9.7.4-2, Debian's package), measured
MYSQL_MANUAL_ONLY = (8, 4)  # MYSQL_VERSION=8.4 (mysql:8.4.10): the manual read, nothing measured
# The checks that rest on a measurement, not on the manual (WHY_NOT_MEASURED's keys): null on a
# server not measured.
NOT_MEASURED = ("not measured on MySQL {version} (no registry reaches mysql:8.4.10 here; the meanings here were "
                "measured on MySQL 9.7.4, the stand-in): {what}")
WHY_NOT_MEASURED = {
    "questions": "whether COM_QUIT counts in Questions",
    "rows_written": "how many Handler_write SHOW GLOBAL STATUS's temporary table adds",
    "rows_changed": "whether the readings' internal temporary tables count in Handler_update",
    "keyed_reads": "how many Handler_read_key the readings and the table's opening add",
    "rows_read_next": "how many Handler_read_next the readings and the table's opening add",
    # transaction phases (_reconcile_txn)
    "audit_upserts": "whether an INSERT ... ON DUPLICATE KEY UPDATE counts one COUNT_INSERT per upsert in performance_schema",
    "audit_rows_created": "whether an upsert that finds its row counts an insert and an update in performance_schema",
    "innodb_rows_written": "whether Innodb_rows_* count only the workload's rows in a transaction phase",
}


def _version(text):
    m = re.match(r"\s*(\d+)\.(\d+)", str(text or ""))
    return (int(m.group(1)), int(m.group(2))) if m else None


def _label(server):
    """MySQL 9.7.4-2 (Debian): VERSION() and @@version_comment, as the server says them."""
    comment = str(server.get("version_comment") or "").strip()
    text = f"MySQL {server.get('version')}" + (f" {comment}" if comment.startswith("(") else f" ({comment})" if comment else "")
    return text + (" (stand-in)" if server.get("stand_in") else "")


def counter_semantics(server):
    """(table, None) for a server whose counters are known here, else (None, reason). The table:
    label; innodb_rows (Innodb_rows_* exist); status_rows_counted (the reading's SHOW GLOBAL STATUS
    counts in Handler_write/_read_key); table_open (the reads of the first phase opening the table
    after init, TOLERANCE["table_open_reads"]); unmeasured ({check: why it is null})."""
    product, version = server.get("product"), server.get("version")
    v = _version(version)
    if product == "MariaDB":
        if v is None or v[:2] != MARIADB_CHECKED:
            return None, (f"no counter semantics recorded for MariaDB {version}: measured on "
                          f"{'.'.join(map(str, MARIADB_CHECKED))} only (databases/mysql/analysis.py)")
        return {"label": f"MariaDB {version} (MySQL stand-in)", "innodb_rows": False, "status_rows_counted": False,
                "table_open": TOLERANCE["table_open_reads"]["MariaDB 10.11"], "unmeasured": {}}, None
    if product == "MySQL":
        if v is not None and v[:2] == MYSQL_MEASURED:
            return {"label": _label(server), "innodb_rows": True, "status_rows_counted": True,
                    "table_open": TOLERANCE["table_open_reads"]["MySQL 9.7"],
                    "table_open_per_column": TABLE_OPEN_READS_PER_COLUMN["MySQL 9.7"], "unmeasured": {}}, None
        if v is not None and v[:2] == MYSQL_MANUAL_ONLY:
            return {"label": _label(server), "innodb_rows": True, "status_rows_counted": None,
                    "table_open": {"keyed_reads": 0, "rows_read_next": 0},
                    "unmeasured": {k: NOT_MEASURED.format(version=version, what=w) for k, w in WHY_NOT_MEASURED.items()}}, None
        return None, (f"no counter semantics recorded for MySQL {version}: the table holds "
                      f"{'.'.join(map(str, MYSQL_MEASURED))} (measured) and {'.'.join(map(str, MYSQL_MANUAL_ONLY))} "
                      "(the manual only) (databases/mysql/analysis.py)")
    return None, f"server-stats names product {product!r} for mysql: neither MySQL nor MariaDB"


# --- reconciliation (analysis/figures/reconcile.py asks `reconcile`) ------------------------------------

# What one reading runs (mysql-stats.js READING: SELECT VERSION(), @@version_comment; SHOW GLOBAL
# STATUS; SELECT UNIX_TIMESTAMP(NOW(6)); SELECT @@log_bin, ...; SHOW BINARY LOGS): the start
# reading's statements after its SHOW GLOBAL STATUS and the end reading's before it fall between the
# two status reads.
START_READING_SELECTS_AFTER_STATUS = 2  # SELECT UNIX_TIMESTAMP(...), SELECT @@log_bin, ...
END_READING_SELECTS_BEFORE_STATUS = 1   # SELECT VERSION(), @@version_comment
# Between the two readings the lab runs nothing else against the server (lab/driver/phase.py: wait-ready,
# init and settle come before the quiet period; count, explain and settle after the end reading):
# the connections in the bracket are the clients' (one per client, again per reconnect) and the end
# reading's; COM_QUITs are the clients' and the start reading's.
TOLERANCE = {
    # the reads of opening the table, when a phase is the first to open it after init (measured:
    # MariaDB 10.11 reads its persistent statistics; MySQL 9.7 its data dictionary and statistics)
    "table_open_reads": {"MariaDB 10.11": {"keyed_reads": 4, "rows_read_next": 0},
                         "MySQL 9.7": {"keyed_reads": 12, "rows_read_next": 9}},
    "threads_at_edges": 0,  # only the reading's own connection
}

# The reads of opening a table per column beyond the json form's two (id, data), measured on MySQL 9.7
# (module docstring); not measured on MariaDB 10.11 (its table-open reads stay the two-column table's).
TABLE_OPEN_READS_PER_COLUMN = {"MySQL 9.7": {"keyed_reads": 1, "rows_read_next": 2}}
JSON_FORM_COLUMNS = 2


def _table_columns(w):
    """The document table's columns in the phase (mysql-schema.js): the relational form's id and one
    per field, else id and data (the clients' `form` and `fields`; absent before the forms: json)."""
    form = w.get("form") or {}
    if form.get("form") == "relational" and form.get("fields"):
        return 1 + int(form["fields"])
    return JSON_FORM_COLUMNS


def _table_open(sem, w):
    """({keyed_reads, rows_read_next} allowed for opening the table, and the words saying why)."""
    opening = dict(sem["table_open"])
    per = sem.get("table_open_per_column")
    extra = _table_columns(w) - JSON_FORM_COLUMNS
    if not per or extra <= 0:
        return opening, {k: "" for k in opening}
    why = {}
    for k in opening:
        why[k] = (f"; {opening[k]} for the two-column table, {per[k]} per further column: "
                  f"{opening[k] + per[k] * extra} for {JSON_FORM_COLUMNS + extra} columns")
        opening[k] += per[k] * extra
    return opening, why


def _status_rows(sem, end):
    """(rows, names) of a reading's SHOW GLOBAL STATUS that count in Handler_write and
    Handler_read_key: (0, 0) where they do not count (MariaDB) or are not known (8.4: unmeasured)."""
    if not sem["status_rows_counted"]:
        return 0, 0
    rows = len(((end or {}).get("raw") or {}).get("status") or {})
    return rows, int(((end or {}).get("reading") or {}).get("status_names", rows))


def reconcile(checks, w, start, end, seconds, sem, r):
    """Adds the mysql checks to `checks`. w: reconcile.lab_work; r: analysis/figures/reconcile.py (its
    `check`, `delta`, `n`, `total` helpers)."""
    if w.get("txn") is not None:
        _reconcile_txn(checks, w, start, end, sem, r)
        return
    ops = w.get("ops") or {}
    n, delta, check = r.n, r.delta, r.check
    unmeasured = sem["unmeasured"]
    sent = sum(o["ok"] + o["errors"] for o in ops.values())
    # a query phase's executions (stage query): one text-protocol SELECT each (COM_QUERY, not a
    # prepared statement's execution: databases/mysql/client/mysql-queries.js), refused ones included
    queries = w.get("queries") or {"ok": 0, "errors": 0}
    lab_queries = queries["ok"] + queries["errors"]
    # what a query reads (index dives, rows, the rows of its GROUP BY's internal temporary table,
    # written and read back through the handler) depends on its plan: not counted here
    querying = (f"the phase's own {lab_queries} queries read rows and write their GROUP BY's internal temporary "
                "tables through the handler: these counters cannot tell that from foreign work" if lab_queries else None)
    errors = w["errors"]
    reads, rmw, scans = n(ops, "read"), n(ops, "rmw"), n(ops, "scan")
    updates = n(ops, "update") + rmw
    session_statements = w["client_sessions"] * w["statements_per_session"]
    source = f"({sem['label']})"

    # one COM_STMT_EXECUTE per operation, two per read-modify-write (get, then update)
    check(checks, "statements_executed", sent - lab_queries + n(ops, "rmw", "errors") + rmw, delta(start, end, "com_stmt_execute"), 0,
          f"Com_stmt_execute {source}: one per operation sent (a read-modify-write: two), failed ones included "
          "(the manual: counted even if an error occurred)" + ("; a query is a text-protocol statement, not counted here"
                                                               if lab_queries else ""), low_too=True)
    check(checks, "inserts", w["docs_ok"], delta(start, end, "com_insert"), n(ops, "insert", "errors"),
          f"Com_insert {source}: one per acknowledged document (a prepared INSERT's execution counts here too, "
          "measured on MariaDB 10.11; tolerance: failed inserts)", low_too=True)
    selects = reads + rmw + scans + lab_queries
    check(checks, "selects",
          selects + session_statements + START_READING_SELECTS_AFTER_STATUS + END_READING_SELECTS_BEFORE_STATUS,
          delta(start, end, "com_select"),
          n(ops, "read", "errors") + n(ops, "rmw", "errors") + n(ops, "scan", "errors") + queries["errors"],
          f"Com_select {source}: one per read, scan, read-modify-write and query execution, each client session's set-up SELECTs "
          f"({w['statements_per_session']}), the readings' SELECTs between the status reads "
          f"({START_READING_SELECTS_AFTER_STATUS} + {END_READING_SELECTS_BEFORE_STATUS}) (tolerance: failed reads and queries)",
          low_too=True)
    check(checks, "updates", updates, r.total(delta(start, end, "com_update"), delta(start, end, "com_delete")),
          n(ops, "update", "errors") + n(ops, "rmw", "errors"),
          f"Com_update + Com_delete {source}: one per update and read-modify-write; the lab deletes nothing"
          if updates else f"Com_update + Com_delete {source}: the lab only inserts and reads", low_too=bool(updates))
    quits = w["clients"] + 1  # every client's and the start reading's COM_QUIT
    check(checks, "questions",
          sent + rmw + session_statements + w["statements_per_reading"] + quits,
          None if "questions" in unmeasured else delta(start, end, "questions"),
          errors + (w["client_sessions"] - w["clients"]),
          f"Questions {source}: every execution, each client session's set-up statements, the readings' "
          f"statements between the status reads ({w['statements_per_reading']}), a COM_QUIT per client and the "
          "start reading (measured: COM_QUIT counts, COM_STMT_PREPARE does not; tolerance: failed operations, "
          "sessions lost without a COM_QUIT)", unmeasured.get("questions"), low_too=True)
    # MySQL 9.7: the reading's SHOW GLOBAL STATUS writes its rows into a temporary table (one
    # Handler_write per row found) and looks each name up (one Handler_read_key per name asked)
    status_rows, status_names = _status_rows(sem, end)
    check(checks, "rows_written", w["docs_ok"] + status_rows,
          None if querying or "rows_written" in unmeasured else delta(start, end, "handler_write"), n(ops, "insert", "errors"),
          f"Handler_write {source}: one per acknowledged document"
          + (f", and one per row of a reading's SHOW GLOBAL STATUS ({status_rows}, its temporary table)" if sem["status_rows_counted"]
             else "; the readings write no row") + " (tolerance: failed inserts)",
          querying or unmeasured.get("rows_written"), low_too=True)
    # Handler_update counts rows an UPDATE changed: a JSON_SET writing the value the field already
    # holds (YCSB's values are seeded per key and field: a key updated twice gets the same value)
    # changes no row and is not counted (measured: 76 of 200 in a YCSB-F run after a YCSB-A run).
    # So fewer is not a short reading: only more is checked.
    check(checks, "rows_changed", updates, None if querying or "rows_changed" in unmeasured else delta(start, end, "handler_update"),
          n(ops, "update", "errors") + n(ops, "rmw", "errors"),
          f"Handler_update {source}: at most one per update and read-modify-write (an update that writes the value "
          "already there changes no row and is not counted)" if updates else
          f"Handler_update {source}: the lab changes no row", querying or unmeasured.get("rows_changed"))
    # a keyed read, the update's row lookup, a scan's first index dive: one read by key each
    keyed = reads + 2 * rmw + n(ops, "update") + scans
    opening, opening_why = _table_open(sem, w)
    check(checks, "keyed_reads", keyed + status_names,
          None if querying or "keyed_reads" in unmeasured else delta(start, end, "handler_read_key"),
          opening["keyed_reads"] + errors,
          f"Handler_read_key {source}: one per read, update and scan, two per read-modify-write"
          + (f", one per name a reading's SHOW GLOBAL STATUS asks ({status_names})" if sem["status_rows_counted"] else "")
          + f" (tolerance: the reads of opening the table when the phase is the first to open it after init "
          f"({opening['keyed_reads']}{opening_why['keyed_reads']}), failed operations)",
          querying or unmeasured.get("keyed_reads"), low_too=bool(keyed + status_names))
    scan_why = (f"the phase's {scans} scans read a number of rows the clients do not report" if scans else querying)
    check(checks, "rows_read_next", 0,
          None if scan_why or "rows_read_next" in unmeasured else delta(start, end, "handler_read_next"),
          opening["rows_read_next"],
          f"Handler_read_next {source}: only a scan reads the next row; keyed reads and inserts read none "
          f"(tolerance: the reads of opening the table after init ({opening['rows_read_next']}{opening_why['rows_read_next']}))",
          scan_why or unmeasured.get("rows_read_next"))
    def no_rows(key):
        return None if sem["innodb_rows"] else (
            (end.get("unavailable") or {}).get(key) or f"{sem['label']} has no Innodb_rows_* status variables")
    check(checks, "innodb_rows_inserted", w["docs_ok"],
          None if no_rows("innodb_rows_inserted") else delta(start, end, "innodb_rows_inserted"),
          n(ops, "insert", "errors"), f"Innodb_rows_inserted {source}: one per acknowledged document",
          no_rows("innodb_rows_inserted"), low_too=True)
    # as Handler_update: a row whose new value equals the old is not updated (measured on MySQL 9.7: 76 of 200)
    check(checks, "innodb_rows_updated", updates,
          None if no_rows("innodb_rows_updated") else delta(start, end, "innodb_rows_updated"),
          n(ops, "update", "errors") + n(ops, "rmw", "errors"),
          f"Innodb_rows_updated {source}: at most one per update and read-modify-write", no_rows("innodb_rows_updated"))
    check(checks, "connections", w["client_sessions"] + 1, delta(start, end, "connections"), errors,
          f"Connections {source}: one per client session (a reconnect opens another) and the end reading; the lab "
          "opens no other connection between the readings (tolerance: failed connection attempts)", low_too=True)
    for edge, reading in (("start", start), ("end", end)):
        check(checks, f"threads_connected_at_{edge}", 1, (reading.get("counters") or {}).get("threads_connected"),
              TOLERANCE["threads_at_edges"], f"Threads_connected at the {edge} reading {source}: only the reading's own")


# --- transactions (WORKLOAD=booking, oltp: databases/mysql/client/mysql-txn.js) -------------------
# An attempt sends START TRANSACTION (Com_begin), its steps as prepared statements (Com_stmt_execute,
# "counted even if an error occurred"), then COMMIT (Com_commit) or, after a failed step, ROLLBACK
# (Com_rollback; none after a lost connection). The workload's tables are read one by one from
# performance_schema.table_io_waits_summary_by_table (mysql-stats.js readTables: InnoDB keeps no
# per-table row counters, Innodb_rows_* are server-wide), COUNT_INSERT / COUNT_UPDATE / COUNT_DELETE:
# the storage-engine row operations the server asked for, a rolled-back transaction's included.
# Measured on MySQL 9.7.4 (databases/mysql/client/test/txn-mysql.test.js, contended bookings at each
# isolation level and OLTP 50/50): every check below was exact there.
BOOKING_WRITTEN = ("seat", "payment", "audit")
BOOKING_READ_ONLY = ("aircraft", "schedule")
OLTP_TABLE = "sbtest"
TABLE_OPS = ("insert", "update", "delete")


def _table_why(start, end, keys):
    for k in keys:
        if (start.get("counters") or {}).get(k) is None or (end.get("counters") or {}).get(k) is None:
            return ((end.get("unavailable") or {}).get(k) or (start.get("unavailable") or {}).get(k)
                    or f"the readings have no per-table counter {k} (a client before per-table readings)")
    return None


def _reconcile_txn(checks, w, start, end, sem, r):
    """The transaction workloads' checks: the transaction statements, the executions, the rows of each
    table the workload writes and of those it does not, and the connections."""
    n, delta, check = r.n, r.delta, r.check
    txn, ops, source = w["txn"], w.get("ops") or {}, f"({sem['label']})"
    attempts, committed, aborted = txn["attempts"], txn["committed"], txn["aborted"]
    lost, doubt = txn["aborted_on_errors"], txn["in_doubt"]
    check(checks, "transactions_begun", attempts, delta(start, end, "com_begin"), lost,
          f"Com_begin {source}: one START TRANSACTION per attempt (tolerance: attempts ended by a non-retryable "
          "error, which may not have reached the server)", low_too=True)
    check(checks, "transactions_committed", committed, delta(start, end, "com_commit"), doubt,
          f"Com_commit {source}: one COMMIT per committed transaction (tolerance: in-doubt commits)", low_too=True)
    check(checks, "transactions_rolled_back", aborted, delta(start, end, "com_rollback"), lost,
          f"Com_rollback {source}: one ROLLBACK per aborted attempt (deadlock, lock wait timeout, error) "
          "(tolerance: attempts ended by a lost connection send none)", low_too=True)
    booking = txn["workload"] == "booking"
    writes = txn.get("writes") or {}
    if booking:
        sent = sum(int(x.get("ok", 0)) + int(x.get("failed", 0)) for x in writes.values())
        check(checks, "statements_executed", attempts + sent, delta(start, end, "com_stmt_execute"), lost,
              f"Com_stmt_execute {source}: each attempt's flight lookup and every write statement the clients "
              "sent (transactions.writes, answered or failed) (tolerance: attempts ended by a non-retryable error)",
              low_too=True)
        _booking_tables(checks, w, start, end, sem, source, r)
    else:
        di = n(ops, "delete-insert")
        check(checks, "statements_executed", attempts + di, delta(start, end, "com_stmt_execute"), aborted,
              f"Com_stmt_execute {source}: one statement per attempt, two per committed delete+insert (tolerance: "
              "an aborted attempt's second statement)", low_too=True)
        _oltp_table(checks, w, start, end, sem, source, r)
    check(checks, "connections", w["client_sessions"] + 1, delta(start, end, "connections"), w["errors"],
          f"Connections {source}: one per client session (SESSIONS per client, again per reconnect) and the end "
          "reading (tolerance: failed connection attempts)", low_too=True)
    for edge, reading in (("start", start), ("end", end)):
        check(checks, f"threads_connected_at_{edge}", 1, (reading.get("counters") or {}).get("threads_connected"),
              TOLERANCE["threads_at_edges"], f"Threads_connected at the {edge} reading {source}: only the reading's own")


def _booking_tables(checks, w, start, end, sem, source, r):
    """seat and payment: one row insert per insert the server answered; audit: the upserts; aircraft
    and schedule: no write."""
    txn, delta, check = w["txn"], r.delta, r.check
    writes, lost = txn.get("writes"), txn["aborted_on_errors"]
    keys = [f"table_{t}_count_{op}" for t in BOOKING_WRITTEN + BOOKING_READ_ONLY for op in TABLE_OPS]
    why = ("the client results have no transactions.writes (per-table write counts)"
           if writes is None or any(t not in writes for t in BOOKING_WRITTEN) else _table_why(start, end, keys))

    def d(table, op):
        return None if why else delta(start, end, f"table_{table}_count_{op}")
    ok = {t: int(((writes or {}).get(t) or {}).get("ok", 0)) for t in BOOKING_WRITTEN}
    failed = {t: int(((writes or {}).get(t) or {}).get("failed", 0)) for t in BOOKING_WRITTEN}
    for table in ("seat", "payment"):
        check(checks, f"{table}_rows", ok[table], None if why else d(table, "insert") + d(table, "update") + d(table, "delete"),
              failed[table] + lost,
              f"performance_schema table_io_waits_summary_by_table {table} {source}: COUNT_INSERT + COUNT_UPDATE + "
              f"COUNT_DELETE = one insert per {table} insert the server answered, in any attempt (tolerance: failed "
              "inserts, attempts ended by a non-retryable error)", why, low_too=True)
    # INSERT ... ON DUPLICATE KEY UPDATE asks the engine to insert the row (COUNT_INSERT, measured:
    # every upsert, the duplicate ones included) and, when its key is there, to update it (COUNT_UPDATE)
    unmeasured = sem["unmeasured"]
    check(checks, "audit_upserts", ok["audit"],
          None if why or "audit_upserts" in unmeasured else d("audit", "insert") + d("audit", "delete"),
          failed["audit"] + lost,
          f"performance_schema audit {source}: COUNT_INSERT + COUNT_DELETE = one insert per audit upsert the server "
          "answered, in any attempt (an upsert that finds its row counts an insert and an update; tolerance: "
          "failed upserts, attempts ended by a non-retryable error)", why or unmeasured.get("audit_upserts"), low_too=True)
    booked = txn.get("booked")
    booked_why = why or unmeasured.get("audit_rows_created") or (
        None if booked else "count's nothing-lost check did not derive the bookings' (flight, day) "
                            "(no booking_check with audit_rows_booked: no count, or no TXN_OUTCOMES)")
    rolled_back_ok = max(0, ok["audit"] - (booked or {}).get("landed", 0))
    check(checks, "audit_rows_created", (booked or {}).get("rows", 0),
          None if booked_why else d("audit", "insert") - d("audit", "update"), rolled_back_ok + lost,
          f"performance_schema audit {source}: COUNT_INSERT - COUNT_UPDATE = the audit rows the bookings in the "
          "database created (booking_check.audit_rows_booked; tolerance: an answered upsert of no booking in the "
          "database, rolled back, may have created a row; attempts ended by a non-retryable error)", booked_why,
          low_too=True)
    # server-wide: InnoDB's own row counters hold every write of every table and schema, so a foreign
    # write anywhere in the server shows here (measured: a seat or payment insert is one row inserted,
    # an upsert one row inserted or one updated; the lab's readings and InnoDB's own statistics
    # tables write none)
    innodb = r.total(*(delta(start, end, f"innodb_rows_{k}") for k in ("inserted", "updated", "deleted")))
    no_rows = (None if sem["innodb_rows"] else f"{sem['label']} has no Innodb_rows_* status variables") or unmeasured.get("innodb_rows_written")
    check(checks, "innodb_rows_written", sum(ok.values()), None if no_rows or writes is None else innodb,
          sum(failed.values()) + lost,
          f"Innodb_rows_inserted + _updated + _deleted {source} (server-wide): one row per seat, payment and audit "
          "write the server answered (an upsert inserts or updates one row; tolerance: failed writes, attempts "
          "ended by a non-retryable error)", no_rows or ("the client results have no transactions.writes" if writes is None else None),
          low_too=True)
    elsewhere = None if why else sum(d(t, op) for t in BOOKING_READ_ONLY for op in TABLE_OPS)
    check(checks, "rows_written_elsewhere", 0, elsewhere, 0,
          f"performance_schema COUNT_INSERT + COUNT_UPDATE + COUNT_DELETE of aircraft and schedule {source}: "
          "bookings write nothing there", why)


def _oltp_table(checks, w, start, end, sem, source, r):
    """sbtest: one insert and one delete per committed delete+insert, one update per committed index
    and non-index update."""
    txn, ops, n, delta, check = w["txn"], w.get("ops") or {}, r.n, r.delta, r.check
    keys = [f"table_{OLTP_TABLE}_count_{op}" for op in TABLE_OPS]
    why = _table_why(start, end, keys)
    aborted = txn["aborted"]
    di = n(ops, "delete-insert")
    for op, expected, what in (("insert", di, "one per committed delete+insert"),
                               ("delete", di, "one per committed delete+insert"),
                               ("update", n(ops, "index-update") + n(ops, "non-index-update"),
                                "one per committed index and non-index update")):
        check(checks, {"insert": "rows_inserted", "delete": "rows_deleted", "update": "rows_updated"}[op], expected,
              None if why else delta(start, end, f"table_{OLTP_TABLE}_count_{op}"), aborted,
              f"performance_schema table_io_waits_summary_by_table {OLTP_TABLE} COUNT_{op.upper()} {source}: {what} "
              "(tolerance: an aborted attempt's row)", why, low_too=True)
    # server-wide, as for bookings: a foreign write anywhere in the server shows here
    innodb = r.total(*(delta(start, end, f"innodb_rows_{k}") for k in ("inserted", "updated", "deleted")))
    no_rows = (None if sem["innodb_rows"] else f"{sem['label']} has no Innodb_rows_* status variables") or sem["unmeasured"].get("innodb_rows_written")
    check(checks, "innodb_rows_written", 2 * di + n(ops, "index-update") + n(ops, "non-index-update"),
          None if no_rows else innodb, 2 * aborted,
          f"Innodb_rows_inserted + _updated + _deleted {source} (server-wide): two rows per committed delete+insert, "
          "one per committed index and non-index update (measured: a non-index update's new c always differs; "
          "tolerance: an aborted attempt's rows)", no_rows, low_too=True)


# --- fairness (analysis/figures/fairness.py asks `fairness_cells` and `fairness_rows`) --------------------

def _option(cmd, name):
    """mysqld's `--name=value` (dashes and underscores are the same to mysqld)."""
    want = name.replace("_", "-")
    for i, a in enumerate(cmd or []):
        key, _, value = a.partition("=")
        if key.replace("_", "-") == f"--{want}":
            return value if _ else (cmd[i + 1] if i + 1 < len(cmd) else "")
    return None


def _cmd(settings):
    """The service's command line when it is mysqld's (compose.yaml's `mysqld --...`, which the
    stand-in's entrypoint maps to MariaDB's options), else None: nothing is read from another one."""
    cmd = (settings or {}).get("command")
    ok = isinstance(cmd, list) and cmd and str(cmd[0]).rsplit("/", 1)[-1] in ("mysqld", "mariadbd")
    return [str(a) for a in cmd] if ok else None


def _stand_in(settings):
    return ((settings or {}).get("labels") or {}).get("jsonbench.stand_in")


def _mariadb(stand_in):
    """The stand-in of earlier runs (MariaDB 10.11), told by its label: no binlog_row_value_options,
    its redo capacity given as innodb_log_file_size."""
    return "MariaDB" in (stand_in or "")


def _said(cmd, name, default):
    v = _option(cmd, name)
    return f"{name}={v}" if v is not None else f"{name}={default} (default)"


def fairness_cells(settings, run_env):
    """{what: cell} of mysql for the rows analysis/figures/fairness.py states for every database."""
    cmd, si = _cmd(settings), _stand_in(settings)
    if cmd is None:
        return {}
    # what stands in, as its label begins: "MySQL 9.7.4 (Debian package)"; earlier runs' "MariaDB 10.11"
    on = f" (stand-in: {'MariaDB 10.11' if _mariadb(si) else si.split(' standing in')[0]})" if si else ""
    return {**_transaction_cells(run_env or {}),
        "checkpoint interval": "none: InnoDB's page cleaner flushes continuously (CHECKPOINT_INTERVAL_S does not apply)",
        "settle between phases": "FLUSH TABLES jsonbench FOR EXPORT; UNLOCK TABLES; ANALYZE LOCAL TABLE after each load "
                                 "phase and before each storage read",
        "replication log": (f"binary log on (--log-bin={_option(cmd, 'log_bin')}), ROW format{on}"
                            if _option(cmd, "log_bin") is not None else "binary log as the server's default"),
        "compression at rest": "none (InnoDB ROW_FORMAT=DYNAMIC: documents over ~8 kB stored off-page, uncompressed)",
        "sort / hash memory": "sort_buffer_size / join_buffer_size defaults (not set by the lab)",
        "idle CPU": "InnoDB's page cleaner, purge and master threads",
    }


# the ISOLATION bench key's values as InnoDB names them (SET SESSION transaction_isolation), with what
# each does there (MySQL 8.4 manual, innodb-transaction-isolation-levels.html)
ISOLATION_NAMES = {
    "read-committed": "READ COMMITTED (a fresh snapshot per statement; record locks, no gap locks but for "
                      "duplicate-key checks)",
    "repeatable-read": "REPEATABLE READ (InnoDB's default: reads from the transaction's first snapshot; locking "
                       "reads and writes take next-key locks)",
    "serializable": "SERIALIZABLE (REPEATABLE READ with every plain SELECT a locking read, FOR SHARE)",
}


def transaction_isolation(iso):
    """The isolation a transaction ran at: the ISOLATION bench key's level, by InnoDB's name."""
    return ISOLATION_NAMES.get(iso, str(iso))


def _transaction_cells(run_env):
    """The transaction rows' mysql cells (WORKLOAD=booking/oltp), {} for other workloads."""
    if run_env.get("WORKLOAD") not in ("booking", "oltp"):
        return {}
    iso = run_env.get("ISOLATION") or "read-committed"
    return {
        "transaction isolation": f"{transaction_isolation(iso)} (ISOLATION={iso})",
        "retries": (f"1213 ER_LOCK_DEADLOCK and 1205 ER_LOCK_WAIT_TIMEOUT (innodb_lock_wait_timeout=50 s, default): "
                    f"the whole transaction; RETRY={run_env.get('RETRY')}, MAX_ATTEMPTS={run_env.get('MAX_ATTEMPTS')}"),
        "sessions per client": f"SESSIONS={run_env.get('SESSIONS')} connections",
    }


UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def size_bytes(text, unit=""):
    """'4G', '4GB', '256MB', '4' (with unit 'G'): bytes, binary multiples as mysqld, postgres and
    mongod (--wiredTigerCacheSizeGB: GiB) read them; None when not a size."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?)B?\s*", str(text or ""), re.I)
    return None if m is None else float(m.group(1)) * UNITS[(m.group(2) or unit).upper()]


def _partial_update_logging(cmd, si):
    """The cell: binlog_row_value_options and binlog_row_image as the command line states them (the
    server reports the same in each server-stats reading's raw.variables: the command line is the
    option source mysqld reads last)."""
    pjson, image = _option(cmd, "binlog_row_value_options"), _option(cmd, "binlog_row_image")
    if _mariadb(si) and pjson is not None:
        return ("absent on the stand-in: MariaDB has no binlog_row_value_options (its entrypoint drops "
                f"--binlog-row-value-options={pjson}): an update logs the whole row, before and after")
    row_image = f"binlog_row_image={image}" if image is not None else "binlog_row_image=FULL (default)"
    if (image or "FULL").upper() == "FULL":
        row_image += ": the before-image holds the whole document"
    pjson = f"binlog_row_value_options={pjson}" if pjson is not None else "binlog_row_value_options='' (default: whole documents)"
    return f"{pjson}, {row_image}"


def fairness_rows(settings, run_env, setting):
    """Rows only MySQL brings (its README's table): mysql's cell read from its command line
    (D.settings.json), the others' through `setting(db, name)` (analysis/figures/fairness.py: a database's
    command-line setting, "" when it ran without it, None when it did not run in this bench)."""
    cmd, si = _cmd(settings), _stand_in(settings)
    if cmd is None:
        return []

    def other(db, name, text, default):
        v = setting(db, name)
        return "not run in this bench" if v is None else text.format(v) if v else default
    durability = (run_env or {}).get("DURABILITY") or "strict"
    flush, sync = _option(cmd, "innodb_flush_log_at_trx_commit"), _option(cmd, "sync_binlog")
    pool, redo = _option(cmd, "innodb_buffer_pool_size"), _option(cmd, "innodb_redo_log_capacity")
    caches = [size_bytes(pool)] + [size_bytes(v, u) for v, u in ((setting("mongodb", "--wiredTigerCacheSizeGB"), "G"),
                                                                 (setting("postgres", "shared_buffers"), "")) if v]
    wal = setting("postgres", "max_wal_size")
    want = ("1", "1") if durability == "strict" else ("2", "0")
    return [
        {"what": "cache", "mysql": _said(cmd, "innodb_buffer_pool_size", "128M"),
         "mongodb": other("mongodb", "--wiredTigerCacheSizeGB", "WiredTiger cache {} GB", "WiredTiger's default cache"),
         "postgres": other("postgres", "shared_buffers", "shared_buffers={}", "shared_buffers=128MB (default)"),
         "aligned": None not in caches and len(set(caches)) == 1,
         "note": "the buffer pool = the others' cache (MYSQL_BUFFER_POOL_SIZE, MONGO_CACHE_GB, PG_SHARED_BUFFERS)"},
        {"what": "durability", "mysql": f"innodb_flush_log_at_trx_commit={flush}, sync_binlog={sync} (server-wide)",
         "mongodb": "{w:1, j:true}" if durability == "strict" else "{w:1, j:false}",
         "postgres": "synchronous_commit=on" if durability == "strict" else "synchronous_commit=off",
         "aligned": (flush, sync) == want,
         "note": f"DURABILITY={durability}: MySQL's strict is 1 and 1, relaxed 2 and 0 (the binding refuses a server "
                 "whose settings do not match); the others set it per session"},
        {"what": "torn pages", "mysql": _said(cmd, "innodb_doublewrite", "ON"),
         "mongodb": "copy-on-write checkpoints", "postgres": "full_page_writes=on (default)",
         "aligned": (_option(cmd, "innodb_doublewrite") or "ON").upper() in ("ON", "1"),
         "note": "each side's own protection against torn pages, all on"},
        {"what": "partial update logging",
         "mysql": _partial_update_logging(cmd, si),
         "mongodb": "n/a (no replication log on a standalone)", "postgres": "n/a (WAL only)", "aligned": False,
         "note": "MySQL's PARTIAL_JSON logs a JSON_SET's change in the after-image only: with binlog_row_image=FULL "
                 "the before-image holds the whole document, so an update's binary log is at least the document "
                 "(MINIMAL would log only the key before)"},
        {"what": "log before forced checkpoints",
         "mysql": (f"innodb_redo_log_capacity={redo}" + (" (stand-in: as innodb_log_file_size)" if _mariadb(si) else "")
                   if redo is not None else "innodb_redo_log_capacity=100M (default)"),
         "mongodb": "n/a (60 s checkpoints)",
         "postgres": other("postgres", "max_wal_size", "max_wal_size={}", "max_wal_size=1GB (default)"),
         "aligned": redo is not None and wal is not None and size_bytes(redo) == size_bytes(wal),
         "note": "how much log may build up before flushing is forced (MYSQL_REDO_LOG_CAPACITY = PG_MAX_WAL_SIZE)"},
    ]


# --- the cache (analysis/figures/memory.py asks `cache_asked` and `cache_expected`) ---------------------

def cache_asked(settings, read):
    """CACHE_MB unset: --innodb-buffer-pool-size on mysqld's command line (compose.yaml's, from .env's
    MYSQL_BUFFER_POOL_SIZE), in bytes; None without it."""
    value = _option(_cmd(settings), "innodb_buffer_pool_size")
    if value is None:
        return None
    b = size_bytes(value)
    return {"bytes": None if b is None else int(b),
            "from": f"innodb_buffer_pool_size={value} on mysqld's command line (.env MYSQL_BUFFER_POOL_SIZE)"}


def cache_expected(asked, read):
    """InnoDB allocates the pool in whole multiples of innodb_buffer_pool_chunk_size x
    innodb_buffer_pool_instances, rounding a size up to one (MySQL 8.4 manual, innodb-buffer-pool-resize.html:
    "automatically adjusted to a value that is equal to or a multiple of"; a chunk larger than the pool
    is cut to it first, which the chunk size read back already shows). Read back with the pool
    (mysql-stats.js CACHE_VARIABLES); without them nothing is rounded."""
    parts = (read or {}).get("parts") or {}
    chunk, instances = parts.get("innodb_buffer_pool_chunk_size"), parts.get("innodb_buffer_pool_instances") or 1
    if not chunk:
        return asked, None
    unit = int(chunk) * int(instances)
    expected = -(-asked // unit) * unit
    return expected, (f"InnoDB rounds the pool up to a multiple of innodb_buffer_pool_chunk_size x "
                      f"innodb_buffer_pool_instances = {int(chunk)} x {int(instances)} B")
