'use strict';
// MySQL binding (mysql2): table jsonbench(id, data JSON) on InnoDB (mysql-schema.js), one
// connection per client. Step kinds, each one round trip through a statement prepared once per
// connection (COM_STMT_PREPARE at prepareInserts, then only COM_STMT_EXECUTE): put (build + send:
// one single-row INSERT), get (SELECT by key), patch (UPDATE ... JSON_SET of one field, in the
// server: the client never sends the whole document), scan (one SELECT ... ORDER BY id LIMIT n).
// Also drives the MySQL stand-in (Debian's MySQL 9.7) and the one of earlier runs (MariaDB 10.11),
// which it tells by @@version_comment and VERSION() and labels as stand-ins.
// The transaction step kind is in mysql-txn.js (what each transaction workload runs in it, in its
// workload file: workloads/booking.js, oltp.js); the named query step kind and loading whole
// documents in mysql-queries.js. The workloads it runs are its workload files (workloads/): any other
// is refused by validation before anything starts.
const { tableSizes } = require('./table-sizes');
const { clientRequire, InputError, keysetReadBack } = require('../../../client/src/sdk');
const {
  TABLE, FORMS, columnNames, ddl, clusteredIndexOf, jsonPath,
} = require('./mysql-schema');
const { readMysqlStats, READING } = require('./mysql-stats');
const { ISOLATION_LEVELS } = require('./mysql-txn');

const mysql = clientRequire('mysql2/promise');

const DEFAULT_DB = 'jsonbench';
// Rows come back as the server's JSON text, unparsed (jsonStrings): the client only counts them,
// as the other bindings do.
const GET = `SELECT data FROM ${TABLE} WHERE id = ?`;
const PATCH = `UPDATE ${TABLE} SET data = JSON_SET(data, ?, ?) WHERE id = ?`;
const SCAN = `SELECT id, data FROM ${TABLE} WHERE id >= ? ORDER BY id LIMIT ?`;

// innodb_flush_log_at_trx_commit and sync_binlog are global in MySQL (no session scope, unlike
// PostgreSQL's synchronous_commit or MongoDB's write concern): DURABILITY is the server's setting,
// checked here, never changed by a client. MySQL 8.4 manual, innodb-parameters.html
// (innodb_flush_log_at_trx_commit: 1 = write and flush the redo log at each commit, 2 = write at
// commit, flush once a second) and replication-options-binary-log.html (sync_binlog: 1 = sync
// the binary log at each commit, 0 = leave it to the OS).
const DURABILITY = { strict: { flush: 1, sync: 1 }, relaxed: { flush: 2, sync: 0 } };

// @@version_comment of Oracle's MySQL Community Server, the build in the official mysql image; a
// MySQL of another build stands in for that image.
const OFFICIAL_BUILD = 'MySQL Community Server - GPL';
const STANDS_IN_FOR = 'MySQL\'s official image';

function notFound(what, key) {
  const err = new Error(`${what}: no document with id ${key.toString('hex')}`);
  err.code = 'JSONBENCH_NOT_FOUND';
  return err;
}

// The relational form (MYSQL_FORM=relational, mysql-schema.js): one column per field; its inserts send
// the values only, a patch sets the field's column (a statement per column, all prepared with the
// others), a read returns the columns.
const RELATIONAL_NOTE = 'relational: one column per field; an insert sends the values only, without the JSON text\'s key names and punctuation';

class MysqlTarget {
  // form: the document table's storage form (MYSQL_FORM: mysql-schema.js), default json.
  constructor(uri, { form } = {}) {
    this.uri = uri;
    this.form = form || 'json';
    if (!FORMS.includes(this.form)) throw new Error(`MySQL has no storage form ${JSON.stringify(this.form)} (allowed: ${FORMS.join(', ')})`);
    this.database = 'mysql';
    this.conn = null;
    this.broken = false;
    this.statements = null;
  }

  async connect() {
    const url = new URL(this.uri);
    const conn = await mysql.createConnection({
      host: url.hostname,
      port: Number(url.port || 3306),
      user: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
      database: url.pathname.length > 1 ? decodeURIComponent(url.pathname.slice(1)) : DEFAULT_DB,
      connectTimeout: 5000,
      jsonStrings: true,
      rowsAsArray: true,
      supportBigNumbers: true,
      bigNumberStrings: true,
    });
    // An 'error' event without a listener would crash the process; the runner sees `broken`.
    conn.connection.on('error', () => { this.broken = true; });
    conn.connection.on('end', () => { this.broken = true; });
    this.conn = conn;
    this.broken = false;
    const [[[version, comment]]] = await conn.query('SELECT VERSION(), @@version_comment');
    this.version = version;
    this.versionComment = comment;
    if (this.insertSql) await this.prepareStatements();
    if (this.txn) await this.prepareTxnSession();
  }

  // The connect step kind's handle: the connection connect opened (mysql2's; null when not
  // connected), on which a workload file runs its own statements (its tables, checks and sizes).
  handle() { return this.conn; }

  // What the server says it is: VERSION() and @@version_comment, its build's own description.
  // The official mysql image runs Oracle's community build, whose comment is OFFICIAL_BUILD; any
  // other build of MySQL (Debian's package, the lab's stand-in, says "(Debian)") is another build
  // behind another entrypoint: a stand-in for the official image, never passed off as it. MariaDB
  // (the stand-in of earlier runs) answers VERSION() as 10.11.x-MariaDB-...
  async serverInfo() {
    const info = { version: this.version, version_comment: this.versionComment };
    if (this.isMariadb) return { product: 'MariaDB', ...info, stand_in: true, stands_in_for: 'MySQL' };
    if (this.versionComment !== OFFICIAL_BUILD) return { product: 'MySQL', ...info, stand_in: true, stands_in_for: STANDS_IN_FOR };
    return { product: 'MySQL', ...info, stand_in: false };
  }

  get isMariadb() { return /mariadb/i.test(`${this.version} ${this.versionComment}`); }

  // The lab's readiness check passes only on a query run as the URI's user on the URI's database:
  // the image's temporary first-start server has no networking, so a TCP answer is the final one.
  async authenticatedIdentity() {
    const [[[user, database]]] = await this.conn.query('SELECT CURRENT_USER(), DATABASE()');
    return { user: String(user).replace(/@[^@]*$/, ''), database };
  }

  // shape {fields, fieldBytes}: the relational form's columns.
  async init(key, layout, shape = {}) {
    await this.conn.query(`DROP TABLE IF EXISTS ${TABLE}`);
    const sql = ddl(key, layout, this.form, shape);
    await this.conn.query(sql);
    const clustered = await this.clusteredIndex();
    const want = clusteredIndexOf(layout);
    if (clustered !== want) {
      throw new InputError(`LAYOUT=${layout}: InnoDB clusters ${TABLE} by ${clustered}, not ${want} (is sql_generate_invisible_primary_key ON? `
        + 'the lab needs it OFF for LAYOUT=heap); allowed: a server with sql_generate_invisible_primary_key=OFF');
    }
    return `${sql} (rows clustered by ${clustered}${this.form === 'relational' ? `; ${RELATIONAL_NOTE}` : ''})`;
  }

  // The name of the index InnoDB stores the rows in (DICT_CLUSTERED, bit 1 of TYPE). MySQL 8.0+:
  // information_schema.INNODB_INDEXES / INNODB_TABLES; MariaDB: INNODB_SYS_INDEXES / INNODB_SYS_TABLES.
  async clusteredIndex() {
    const sys = this.isMariadb ? 'SYS_' : '';
    const [rows] = await this.conn.query(
      `SELECT i.NAME FROM information_schema.INNODB_${sys}INDEXES i JOIN information_schema.INNODB_${sys}TABLES t ON t.TABLE_ID = i.TABLE_ID
        WHERE t.NAME = CONCAT(DATABASE(), '/${TABLE}') AND (i.TYPE & 1) = 1`,
    );
    return rows.length === 1 ? rows[0][0] : `(${rows.length} clustered indexes)`;
  }

  // Called once before the operations: checks DURABILITY against the server and prepares the
  // statements (again after every reconnect: prepared statements belong to the connection).
  // fields: the relational form's columns (FIELDS).
  async prepareInserts({ key, durability, fields }) {
    await this.checkDurability(durability);
    this.durability = durability;
    this.withKey = key !== 'sequence';
    const cols = this.form === 'relational' ? this.relationalColumns(fields) : ['data'];
    const all = this.withKey ? ['id', ...cols] : cols;
    this.insertSql = `INSERT INTO ${TABLE} (${all.join(', ')}) VALUES (${all.map(() => '?').join(', ')})`;
    await this.prepareStatements();
  }

  relationalColumns(fields) {
    if (!(fields >= 1)) throw new Error('the relational form needs FIELDS (its columns) before its inserts and reads');
    this.columns = columnNames(fields);
    return this.columns;
  }

  // DURABILITY against the server's global settings (one SELECT): refused when they differ.
  async checkDurability(durability) {
    const [[[flush, sync, logBin]]] = await this.conn.query('SELECT @@innodb_flush_log_at_trx_commit, @@sync_binlog, @@log_bin');
    const want = DURABILITY[durability];
    if (want && (Number(flush) !== want.flush || (Number(logBin) === 1 && Number(sync) !== want.sync))) {
      throw new InputError(`DURABILITY=${durability} needs the MySQL server started with innodb_flush_log_at_trx_commit=${want.flush} and `
        + `sync_binlog=${want.sync}; it runs with ${flush} and ${sync} (both are global settings in MySQL: the lab sets them from DURABILITY, `
        + 'databases/mysql/lab.py; by hand: MYSQL_FLUSH_LOG_AT_TRX_COMMIT, MYSQL_SYNC_BINLOG for databases/mysql/compose.yaml)');
    }
  }

  // The transaction step kind's preparation: DURABILITY checked as for inserts (commit durability is
  // the server's, global), then the session (prepareTxnSession). sql: the workload's statements
  // ({name: SQL}, its workload file's), prepared on every connection (a statement on a table init
  // did not make fails here: its workload file says why: workloads/booking.js prepareWith).
  async prepareTransactions({ durability, isolation }, sql) {
    if (!ISOLATION_LEVELS[isolation]) {
      throw new InputError(`ISOLATION=${isolation}: no InnoDB level for it; allowed: ${Object.keys(ISOLATION_LEVELS).join(', ')}`);
    }
    await this.checkDurability(durability);
    this.durability = durability;
    this.txn = { isolation, sql };
    await this.prepareTxnSession();
  }

  // Set again after every reconnect: the session's isolation level (every later transaction of the
  // session runs at it: SET SESSION transaction_isolation, MySQL 8.4 manual set-transaction.html)
  // and the model's statements, prepared on this connection.
  async prepareTxnSession() {
    await this.conn.query(`SET SESSION transaction_isolation = '${ISOLATION_LEVELS[this.txn.isolation]}'`);
    const st = {};
    for (const [name, sql] of Object.entries(this.txn.sql)) st[name] = await this.conn.prepare(sql);
    this.txnStatements = st;
  }

  async prepareStatements() {
    if (this.form === 'relational') {
      const list = this.columns.join(', ');
      const insert = await this.conn.prepare(this.insertSql);
      const get = await this.conn.prepare(`SELECT ${list} FROM ${TABLE} WHERE id = ?`);
      const scan = await this.conn.prepare(`SELECT id, ${list} FROM ${TABLE} WHERE id >= ? ORDER BY id LIMIT ?`);
      const patch = {};
      for (const c of this.columns) patch[c] = await this.conn.prepare(`UPDATE ${TABLE} SET ${c} = ? WHERE id = ?`);
      this.statements = {
        insert, get, patch, scan,
      };
      return;
    }
    const [insert, get, patch, scan] = [
      await this.conn.prepare(this.insertSql),
      await this.conn.prepare(GET), await this.conn.prepare(PATCH), await this.conn.prepare(SCAN),
    ];
    this.statements = { insert, get, patch, scan };
  }

  // The document's JSON text (generation is client work, kept out of service time); sent as a
  // string parameter: MySQL refuses JSON from a binary-charset value, so not a Buffer.
  build(gen, index, keys) {
    if (this.form === 'relational') {
      const values = gen.fieldStrings(index);
      return this.withKey ? [keys.buffer(index), ...values] : values;
    }
    const json = gen.json(index);
    return this.withKey ? [keys.buffer(index), json] : [json];
  }

  send(params) {
    if (!this.statements) return Promise.reject(new Error('not connected'));
    return this.statements.insert.execute(params);
  }

  refuseSequence(step) {
    return Promise.reject(new Error(`${step}: sequence keys (AUTO_INCREMENT) cannot be chosen by key (refused)`));
  }

  // key: 16-byte Buffer. Resolves to 1; a read that finds nothing is an error.
  get(key) {
    if (!this.withKey) return this.refuseSequence('get');
    return this.statements.get.execute([key]).then(([rows]) => {
      if (rows.length !== 1) throw notFound('get', key);
      return 1;
    });
  }

  // path: ['n1', 'attr3'] (shape.js) -> JSON_SET(data, '$.n1.attr3', value): one field, in the
  // server, a string of the same length as the old one, so MySQL 8.4 can update the stored binary
  // JSON in place (manual, json.html "Partial Updates of JSON Values"). affectedRows counts
  // matched rows (mysql2 sets CLIENT_FOUND_ROWS), so rewriting a field with its own value is found.
  patch(key, path, value) {
    if (!this.withKey) return this.refuseSequence('patch');
    let run;
    try {
      run = this.form === 'relational' ? this.relationalPatch(path).execute([value, key]) : this.statements.patch.execute([jsonPath(path), value, key]);
    } catch (err) {
      return Promise.reject(err);
    }
    return run.then(([r]) => {
      if (r.affectedRows !== 1) throw notFound('patch', key);
      return 1;
    });
  }

  relationalPatch(path) {
    const statement = path.length === 1 ? this.statements.patch[path[0]] : null;
    if (!statement) throw new Error(`patch: the relational form has columns ${this.columns.join(', ')}, not ${JSON.stringify(path.join('.'))}`);
    return statement;
  }

  // Up to n documents from `key` on, in key order (BINARY compares bytewise, as the others' 16-byte
  // keys), in one round trip. At least the key's own document.
  scan(key, n) {
    if (!this.withKey) return this.refuseSequence('scan');
    return this.statements.scan.execute([key, n]).then(([rows]) => {
      if (rows.length === 0) throw notFound('scan', key);
      return rows.length;
    });
  }

  // DIGEST=documents (client/src/document-digest.js): every document with its key as hex (null for
  // KEY=sequence: AUTO_INCREMENT values), 1000 rows a round trip in key order (keyset pagination).
  // The relational form's row is turned back into the document it stores ({attr1: v, ...}).
  readBack(key) {
    const hex = key === 'sequence' ? 'NULL' : 'LOWER(HEX(id))';
    const relational = this.form === 'relational';
    return keysetReadBack(async (after, n) => {
      const [rows, fields] = await this.conn.query(
        `SELECT id, ${hex}, ${relational ? 't.*' : 'data'} FROM ${TABLE}${relational ? ' t' : ''} ${after === null ? '' : 'WHERE id > ? '}ORDER BY id LIMIT ${Number(n)}`,
        after === null ? [] : [after],
      );
      if (!relational) return rows;
      const names = fields.map((f) => f.name);
      return rows.map((row) => {
        const doc = {};
        for (let i = 2; i < row.length; i++) if (names[i] !== 'id') doc[names[i]] = String(row[i]);
        return [row[0], row[1], doc];
      });
    }, relational ? (doc) => doc : undefined);
  }

  // mysql2 marks errors that end the connection as fatal (network, server gone).
  isConnectionLost(err) {
    if (err.code === 'JSONBENCH_NOT_FOUND') return false;
    return this.broken || Boolean(err.fatal);
  }

  async reconnect() {
    await this.close();
    await this.connect();
  }

  // Documents and InnoDB's sizes of the table: DATA_LENGTH is the clustered index (the rows, with
  // their off-page JSON), INDEX_LENGTH the secondary indexes, both in allocated pages (MySQL 8.4
  // manual, information-schema-tables-table.html). MySQL 8.0+ caches these in the data dictionary
  // for information_schema_stats_expiry seconds (default 86400): 0 for this session reads them
  // from the storage engine. MariaDB has no such cache (and no such variable).
  async count() {
    if (!this.isMariadb) await this.conn.query('SET SESSION information_schema_stats_expiry = 0');
    return tableSizes(this.conn, TABLE, 'information_schema.TABLES DATA_LENGTH (clustered index: rows and their off-page JSON) '
      + 'and INDEX_LENGTH (secondary indexes), after ANALYZE TABLE');
  }

  // After a phase and before the storage read (commands/count.js), outside the windows: the
  // table's dirty pages are written (FLUSH TABLES ... FOR EXPORT, then UNLOCK TABLES: MySQL 8.4
  // manual, flush.html), and ANALYZE TABLE recounts the pages DATA_LENGTH/INDEX_LENGTH report
  // (analyze-table.html; InnoDB otherwise refreshes them only after 10% of the rows changed). LOCAL:
  // the lab's own statement is not written to the binary log (ANALYZE is, by default).
  // InnoDB has no user command for a full checkpoint: other tables' and the undo logs' dirty
  // pages are left to the page cleaner.
  // tables: the workload's own (its .workload.js `tables`: count.js readSettled passes them), else
  // the jsonbench table.
  async flush(tables) {
    const list = (tables || [TABLE]).join(', ');
    await this.conn.query(`FLUSH TABLES ${list} FOR EXPORT`);
    await this.conn.query('UNLOCK TABLES');
    await this.conn.query(`ANALYZE LOCAL TABLE ${list}`);
    return { command: `FLUSH TABLES ${list} FOR EXPORT; UNLOCK TABLES; ANALYZE LOCAL TABLE ${list}`, reason: null };
  }

  // After a load and before a query phase (lab/driver/phase.py `Phase.settle`), outside the windows, and
  // after a transaction workload's init (tables: its own, booking's five or oltp's sbtest):
  // ANALYZE TABLE recomputes InnoDB's persistent statistics (index cardinality, the functional
  // indexes' too) from the loaded rows now. Else the optimizer plans the first queries on the
  // statistics of the empty table, and InnoDB's automatic recalculation (innodb_stats_auto_recalc,
  // after 10% of the rows changed) runs in a background thread whenever it gets to it: in a query
  // window, and a plan could change between two executions of the same query.
  // The flush writes the load's dirty pages here rather than in the first window (flush's comment).
  async settle(tables) {
    return (await this.flush(tables)).command;
  }

  // What each `run` session of the step kinds sends besides its operations, for analysis to count as
  // the lab's own work: SELECT VERSION() at connect, the durability check, and 4 COM_STMT_PREPARE
  // (not counted in Questions: MySQL 8.4 manual, server-status-variables.html); a transaction
  // workload's session says its own in its workload file (runSession, server-stats.js). tables: the
  // workload's own (booking's five, oltp's sbtest), whose row operations are read one by one
  // (mysql-stats.js).
  async serverStats(server, tables = []) {
    const info = await this.serverInfo();
    const stats = await readMysqlStats(this.conn, {
      mariadb: this.isMariadb, version: this.version, server: info, tables,
    });
    // (MYSQL_FORM=relational prepares 3 and one patch per column: prepares are descriptive, analysis
    // counts `statements`, and this reading does not know the phase's form)
    return { ...stats, run_session: { connections: 1, statements: 2, prepares: 4, about: 'SELECT VERSION(); SELECT @@innodb_flush_log_at_trx_commit, ...; 4 prepares' } };
  }


  async close() {
    const c = this.conn;
    this.conn = null;
    this.statements = null;
    this.txnStatements = null;
    if (c) await c.end().catch(() => {});
  }
}

// The transaction step kind (mysql-txn.js); the named query step kind and loading whole documents
// (createIndexes, putDocument, query, explain: mysql-queries.js).
Object.assign(MysqlTarget.prototype, require('./mysql-txn').methods, require('./mysql-queries').methods);

module.exports = { MysqlTarget, READING, DURABILITY, OFFICIAL_BUILD };
