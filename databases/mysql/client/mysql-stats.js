'use strict';
// MySQL's own counters, read by `server-stats` at the lab's window edges; analysis takes the
// deltas. Every counter is server-wide (SHOW GLOBAL STATUS), so work in another schema or session
// shows up as work nobody in the lab asked for. Meanings from the MySQL 8.4 manual, "Server Status
// Variables" (dev.mysql.com/doc/refman/8.4/en/server-status-variables.html) unless said otherwise.
// A counter the server does not have is null with the reason (MariaDB, the stand-in of earlier runs,
// lacks some and names others differently; nothing is estimated or filled in from another counter).

// lab name -> { mysql: status variable on MySQL 8.4, mariadb: on MariaDB 10.11, about }.
const STATUS = {
  // Com_xxx: times each statement kind ran; a prepared statement's executions count here too
  // (its COM_STMT_EXECUTE also in Com_stmt_execute).
  com_insert: { mysql: 'Com_insert', mariadb: 'Com_insert' },
  com_select: { mysql: 'Com_select', mariadb: 'Com_select' },
  com_update: { mysql: 'Com_update', mariadb: 'Com_update' },
  com_delete: { mysql: 'Com_delete', mariadb: 'Com_delete' },
  com_stmt_prepare: { mysql: 'Com_stmt_prepare', mariadb: 'Com_stmt_prepare' },
  com_stmt_execute: { mysql: 'Com_stmt_execute', mariadb: 'Com_stmt_execute' },
  // Com_begin (START TRANSACTION, BEGIN), Com_commit, Com_rollback: the transaction statements
  // (an autocommit statement's implicit commit counts in none of them).
  com_begin: { mysql: 'Com_begin', mariadb: 'Com_begin' },
  com_commit: { mysql: 'Com_commit', mariadb: 'Com_commit' },
  com_rollback: { mysql: 'Com_rollback', mariadb: 'Com_rollback' },
  // Questions: statements sent by clients (COM_STMT_PREPARE/CLOSE and COM_PING are not counted).
  questions: { mysql: 'Questions', mariadb: 'Questions' },
  // Innodb_rows_*: rows InnoDB inserted, read, updated, deleted. MariaDB 10.11 has no such status
  // variables (SHOW GLOBAL STATUS LIKE 'Innodb_rows%' is empty there): null there.
  innodb_rows_inserted: { mysql: 'Innodb_rows_inserted', mariadb: null },
  innodb_rows_read: { mysql: 'Innodb_rows_read', mariadb: null },
  innodb_rows_updated: { mysql: 'Innodb_rows_updated', mariadb: null },
  innodb_rows_deleted: { mysql: 'Innodb_rows_deleted', mariadb: null },
  // Handler_*: storage-engine row requests (write = row inserts, update = row updates, read_key =
  // index lookups, read_next = next row in key order). Both servers have them.
  handler_write: { mysql: 'Handler_write', mariadb: 'Handler_write' },
  handler_update: { mysql: 'Handler_update', mariadb: 'Handler_update' },
  handler_delete: { mysql: 'Handler_delete', mariadb: 'Handler_delete' },
  // Handler_commit / Handler_rollback: commits and rollbacks the server asked its storage engines
  // for (internal ones included: the data dictionary's, the binary log's two-phase commit).
  handler_commit: { mysql: 'Handler_commit', mariadb: 'Handler_commit' },
  handler_rollback: { mysql: 'Handler_rollback', mariadb: 'Handler_rollback' },
  handler_read_key: { mysql: 'Handler_read_key', mariadb: 'Handler_read_key' },
  handler_read_next: { mysql: 'Handler_read_next', mariadb: 'Handler_read_next' },
  // Bytes the server received from / sent to all clients.
  bytes_received: { mysql: 'Bytes_received', mariadb: 'Bytes_received' },
  bytes_sent: { mysql: 'Bytes_sent', mariadb: 'Bytes_sent' },
  // Connections: connection attempts, successful or not; Threads_connected: open now.
  connections: { mysql: 'Connections', mariadb: 'Connections' },
  threads_connected: { mysql: 'Threads_connected', mariadb: 'Threads_connected' },
  // Redo log position (LSN) in bytes of redo generated since the log was created: MySQL 8.0.30+
  // Innodb_redo_log_current_lsn ("the last written LSN"); MariaDB Innodb_lsn_current. The delta
  // between two readings is the redo bytes of the window, as PostgreSQL's WAL LSN difference.
  redo_lsn: { mysql: 'Innodb_redo_log_current_lsn', mariadb: 'Innodb_lsn_current' },
  // Innodb_os_log_written: bytes written to the redo log files (with padding of partial blocks).
  redo_written_bytes: { mysql: 'Innodb_os_log_written', mariadb: 'Innodb_os_log_written' },
  // Pages written through the doublewrite buffer, and all data-file writes in bytes.
  doublewrite_pages: { mysql: 'Innodb_dblwr_pages_written', mariadb: 'Innodb_dblwr_pages_written' },
  data_written_bytes: { mysql: 'Innodb_data_written', mariadb: 'Innodb_data_written' },
};

// Read I/O (analysis/figures/read_io.py with databases/mysql/analysis.py READ_IO), the same
// SHOW GLOBAL STATUS: Innodb_buffer_pool_reads, "the number of logical reads that InnoDB could not
// satisfy from the buffer pool, and had to read directly from disk" (pages; with
// innodb_flush_method=O_DIRECT the data files bypass the OS page cache, so each is a storage read);
// Innodb_data_read, "the amount of data read since the server was started (in bytes)" (every
// InnoDB file: data, undo, doublewrite at recovery); Innodb_page_size, the page size in bytes.
const READ_IO_STATUS = {
  innodb_buffer_pool_reads: { mysql: 'Innodb_buffer_pool_reads', mariadb: 'Innodb_buffer_pool_reads' },
  innodb_data_read_bytes: { mysql: 'Innodb_data_read', mariadb: 'Innodb_data_read' },
  innodb_page_size_bytes: { mysql: 'Innodb_page_size', mariadb: 'Innodb_page_size' },
};
Object.assign(STATUS, READ_IO_STATUS);

// Statements the reading itself sends (analysis counts them as lab work): SELECT VERSION(),
// @@version_comment at connect, SHOW GLOBAL STATUS, the server's clock, the binary log's settings
// (SELECT @@log_bin, ...), SHOW BINARY LOGS (when the binary log is on).
const READING = {
  connections: 1,
  statements: 5,
  about: 'SELECT VERSION(), @@version_comment; SHOW GLOBAL STATUS; SELECT UNIX_TIMESTAMP(NOW(6)); SELECT @@log_bin, @@binlog_format, @@binlog_row_image, @@binlog_row_value_options; SHOW BINARY LOGS',
};

// The binary log's settings as the server runs them, read with @@log_bin in one statement and kept
// in raw.variables: what a row event holds (binlog_row_image FULL: the whole row before and after an
// update; binlog_row_value_options PARTIAL_JSON: a JSON_SET's after-image as the change only, the
// before-image still whole). MariaDB has no binlog_row_value_options (null there).
const BINLOG_VARIABLES = ['log_bin', 'binlog_format', 'binlog_row_image', 'binlog_row_value_options'];

// Only the server's own names are asked: MySQL materialises SHOW GLOBAL STATUS ... WHERE into a
// temporary table, which counts one Handler_read_key per name asked and one Handler_write per row
// it returns (measured on MySQL 9.7.4: 24 names asked, 23 found -> +24 and +23); analysis counts
// them as the reading's own (reading.status_names, raw.status).
function statusNames(flavour) {
  return [...new Set(Object.values(STATUS).map((s) => s[flavour]).filter(Boolean))];
}

const statusSql = (names) => `SHOW GLOBAL STATUS WHERE Variable_name IN (${names.map((n) => `'${n}'`).join(', ')})`;

// Binary log bytes: the sizes of every binary log file (SHOW BINARY LOGS, File_size; MySQL 8.4
// manual, show-binary-logs.html; needs REPLICATION CLIENT). With sync_binlog=1 each commit's
// events are on disk when it returns. A PURGE or expiry inside a window would shrink the sum: the
// file list is kept raw so analysis can tell.
async function readBinlog(conn, mariadb) {
  const select = BINLOG_VARIABLES.map((v) => (mariadb && v === 'binlog_row_value_options' ? 'NULL' : `@@${v}`));
  const [[row]] = await conn.query(`SELECT ${select.join(', ')}`);
  const variables = Object.fromEntries(BINLOG_VARIABLES.map((v, i) => [v, row[i] === null ? null : String(row[i])]));
  const logBin = variables.log_bin;
  if (Number(logBin) !== 1) return { bytes: null, reason: 'binary logging is off on this server (log_bin=0)', files: [], variables, statements: 1 };
  const [rows] = await conn.query('SHOW BINARY LOGS');
  const files = rows.map((r) => ({ name: r[0], bytes: Number(r[1]) }));
  return { bytes: files.reduce((a, f) => a + f.bytes, 0), reason: null, files, variables, statements: 2 };
}

// The workload's own tables, row operation by row operation: performance_schema's table I/O
// summary (MySQL 8.4 manual, performance-schema-table-wait-summary-tables.html:
// table_io_waits_summary_by_table, one row per table with COUNT_FETCH, COUNT_INSERT, COUNT_UPDATE,
// COUNT_DELETE: the storage-engine row operations of the wait/io/table/sql/handler instrument, on
// by default), as `table_<name>_count_<op>`. InnoDB itself keeps no per-table row counters
// (Innodb_rows_* are server-wide). Null with the reason when performance_schema is off or the table
// is not there (its row appears when the table is first opened).
const TABLE_OPS = ['fetch', 'insert', 'update', 'delete'];

async function readTables(conn, tables) {
  const counters = {};
  const unavailable = {};
  if (!tables.length) return { counters, unavailable, raw: null, statements: 0 };
  const [[[on]]] = await conn.query('SELECT @@performance_schema');
  let found = {};
  if (Number(on) === 1) {
    const [rows] = await conn.query(`SELECT OBJECT_NAME, ${TABLE_OPS.map((o) => `COUNT_${o.toUpperCase()}`).join(', ')}
      FROM performance_schema.table_io_waits_summary_by_table WHERE OBJECT_SCHEMA = DATABASE() AND OBJECT_NAME IN (${tables.map(() => '?').join(', ')})`, tables);
    found = Object.fromEntries(rows.map(([name, ...counts]) => [name, counts.map(Number)]));
  }
  for (const t of tables) {
    TABLE_OPS.forEach((op, k) => {
      const key = `table_${t}_count_${op}`;
      counters[key] = found[t] ? found[t][k] : null;
      if (!found[t]) {
        unavailable[key] = Number(on) === 1 ? `performance_schema.table_io_waits_summary_by_table has no row for ${t}`
          : 'performance_schema is off on this server (performance_schema=0)';
      }
    });
  }
  return { counters, unavailable, raw: found, statements: Number(on) === 1 ? 2 : 1 };
}

// The buffer pool as the server holds it (the independent check of CACHE_MB / .env's
// MYSQL_BUFFER_POOL_SIZE, analysis/figures/memory.py): @@innodb_buffer_pool_size is the pool InnoDB
// allocated, which it rounds up to a multiple of innodb_buffer_pool_chunk_size x
// innodb_buffer_pool_instances (MySQL 8.4 manual, innodb-buffer-pool-resize.html; measured on 9.7.4:
// 300M ran as 384M, chunk 128M, 1 instance), so those two are read beside it for analysis to state
// the rounding. Read in the reading's clock SELECT: no statement of its own (READING is unchanged).
// MariaDB (the stand-in of earlier runs) has no innodb_buffer_pool_instances since 10.6: NULL there.
const CACHE_VARIABLES = ['innodb_buffer_pool_size', 'innodb_buffer_pool_chunk_size', 'innodb_buffer_pool_instances'];
const cacheSelect = (mariadb) => CACHE_VARIABLES.map((v) => (mariadb && v === 'innodb_buffer_pool_instances' ? 'NULL' : `@@${v}`)).join(', ');

function cacheOf(values, mariadb) {
  const parts = Object.fromEntries(CACHE_VARIABLES.map((v, i) => [v, values[i] === null || values[i] === undefined ? null : Number(values[i])]));
  const bytes = parts.innodb_buffer_pool_size;
  return {
    bytes,
    setting: 'innodb_buffer_pool_size',
    source: 'SELECT @@innodb_buffer_pool_size (the pool InnoDB allocated), with @@innodb_buffer_pool_chunk_size and '
      + '@@innodb_buffer_pool_instances, whose product it is a multiple of',
    reason: bytes === null ? `${mariadb ? 'MariaDB' : 'MySQL'} gave no @@innodb_buffer_pool_size` : null,
    parts,
  };
}

// conn: a mysql2/promise connection with rowsAsArray. mariadb, version: the server's flavour and
// VERSION(); server: the binding's serverInfo (product, stand_in, version_comment); tables: the
// workload's own tables (readTables), [] for jsonbench's workloads.
async function readMysqlStats(conn, {
  mariadb, version, server, tables = [],
}) {
  const flavour = mariadb ? 'mariadb' : 'mysql';
  const names = statusNames(flavour);
  const [rows] = await conn.query(statusSql(names));
  const status = Object.fromEntries(rows.map(([k, v]) => [k, v]));
  const [[[serverTime, ...cacheValues]]] = await conn.query(`SELECT UNIX_TIMESTAMP(NOW(6)), ${cacheSelect(mariadb)}`);
  const counters = {};
  const unavailable = {};
  for (const [name, spec] of Object.entries(STATUS)) {
    const variable = spec[flavour];
    if (!variable) {
      counters[name] = null;
      unavailable[name] = `${mariadb ? 'MariaDB' : 'MySQL'} ${version} has no ${spec.mysql} status variable`;
    } else if (status[variable] === undefined) {
      counters[name] = null;
      unavailable[name] = `SHOW GLOBAL STATUS has no ${variable} on ${version}`;
    } else {
      counters[name] = Number(status[variable]);
    }
  }
  const binlog = await readBinlog(conn, mariadb);
  counters.binlog_bytes = binlog.bytes;
  if (binlog.reason) unavailable.binlog_bytes = binlog.reason;
  const perTable = await readTables(conn, tables);
  Object.assign(counters, perTable.counters);
  Object.assign(unavailable, perTable.unavailable);
  return {
    server: {
      name: 'mysql', version, product: server.product, stand_in: server.stand_in, version_comment: server.version_comment,
    },
    counters,
    unavailable,
    server_time: Number(serverTime),
    raw: { status, binlog_files: binlog.files, variables: binlog.variables, ...(perTable.raw ? { tables: perTable.raw } : {}) },
    reading: { ...READING, statements: 3 + binlog.statements + perTable.statements, status_names: names.length },
    cache: cacheOf(cacheValues, mariadb),
  };
}

module.exports = { readMysqlStats, READING, STATUS, TABLE_OPS, CACHE_VARIABLES, READ_IO_STATUS };
