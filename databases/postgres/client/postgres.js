'use strict';
// PostgreSQL binding: table jsonbench(id, data jsonb), one connection; or, by its storage form
// (POSTGRES_FORM: postgres-forms.js), data json or one column per field.
// Step kinds: put (one single-row INSERT per document through a named
// prepared statement, pg-prepared-insert.js: build + send), get, patch
// (jsonb_set of one field, in the server) and scan (one SELECT ... ORDER BY
// id LIMIT n), each one round trip, through pg's named prepared statements.
const { clientRequire, keysetReadBack } = require('../../../client/src/sdk');
const { Client } = clientRequire('pg');
const { PreparedInsert } = require('./pg-prepared-insert');
const forms = require('./postgres-forms');
const { readPostgresStats } = require('./postgres-stats');

const TABLE = 'jsonbench';
const UUID_BYTES = 16;
// Prepared once per session (SQL PREPARE), bound by name for every insert.
const STATEMENT = 'jsonbench_insert';

// Rows come back as the server's text, unparsed: the client only counts them
// (parsing 10 kB of JSON per document would be client work MongoDB's raw
// reads do not do either).
const RAW_TEXT = { getTypeParser: () => (value) => value };
const GET = { name: 'jsonbench_get', text: `select data from ${TABLE} where id = $1`, rowMode: 'array', types: RAW_TEXT };
// One field, changed in the server: the client never sends the whole document.
const PATCH = { name: 'jsonbench_patch', text: forms.FORMS.jsonb.patchSql };
const SCAN = {
  name: 'jsonbench_scan', text: `select id, data from ${TABLE} where id >= $1 order by id limit $2`, rowMode: 'array', types: RAW_TEXT,
};

class NotFoundError extends Error {
  constructor(what, key) {
    super(`${what}: no document with id ${key.toString('hex')}`);
    this.code = 'JSONBENCH_NOT_FOUND';
  }
}
// DDL per key strategy and storage form (postgres-forms.js). PostgreSQL has no clustered layout
// that stays clustered under inserts, so `layout` does not change it: always a heap with a B-tree
// primary key.
const { ddl } = forms;

// Error codes meaning the session is gone (connection exceptions, admin
// shutdown, crash recovery), as opposed to a failed statement.
const LOST_CODES = /^(08|57P0[1-3])/;

class PostgresTarget {
  // workMem: the session's work_mem (WORK_MEM of a query phase), set in the start-up packet.
  // form: the document table's storage form (POSTGRES_FORM; postgres-forms.js), default jsonb.
  constructor(uri, { workMem, form } = {}) {
    this.uri = uri;
    this.workMem = workMem;
    this.form = form || 'jsonb';
    forms.form(this.form);
    this.database = 'postgres';
    this.client = null;
    this.broken = false;
  }

  async connect() {
    const client = new Client({
      connectionString: this.uri,
      connectionTimeoutMillis: 5000,
      ...(this.workMem ? { options: `-c work_mem=${this.workMem}` } : {}),
    });
    // An 'error' event without a listener would crash the process; the
    // runner notices `broken` and reconnects.
    client.on('error', () => { this.broken = true; });
    client.on('end', () => { this.broken = true; });
    await client.connect();
    this.client = client;
    this.broken = false;
    await this.prepareSession();
  }

  // Session state the inserts rely on, set again after every reconnect.
  async prepareSession() {
    if (this.transactions) {
      await this.client.query(`set synchronous_commit = ${this.transactions.durability === 'strict' ? 'on' : 'off'}`);
      return;
    }
    if (!this.durability) return;
    await this.client.query(`set synchronous_commit = ${this.durability === 'strict' ? 'on' : 'off'}`);
    await this.client.query(`prepare ${STATEMENT} (${this.paramTypes.join(', ')}) as ${this.insertSql}`);
  }

  // The connect step kind's handle: the session connect opened (pg's Client; null when not
  // connected), on which a workload file runs its own statements (its tables, checks and steps).
  handle() { return this.client; }

  async serverInfo() {
    const { rows } = await this.client.query('show server_version');
    return { product: 'PostgreSQL', version: rows[0].server_version, stand_in: false };
  }

  // Who this session is: the lab's readiness check (wait-ready) passes only on a query that ran
  // as the URI's user on the URI's database over the URI's (TCP) address.
  async authenticatedIdentity() {
    const { rows } = await this.client.query('select current_user as user, current_database() as database');
    return { user: rows[0].user, database: rows[0].database };
  }

  // The document table for a key strategy in the target's form (shape {fields, fieldBytes}: the
  // relational columns); a workload with tables of its own makes them in its workload file
  // (workloads/<workload>.js). What a form does differently is said after the DDL.
  async init(key, layout, shape = {}) {
    await this.client.query(`drop table if exists ${TABLE}`);
    const sql = ddl(key, this.form, shape);
    await this.client.query(sql);
    const { note } = forms.form(this.form);
    return note ? `${sql} (${note})` : sql;
  }

  // What init says of LAYOUT (ddl above: always a heap, whatever the layout).
  layoutNote(layout) {
    return layout === 'clustered' ? 'PostgreSQL is always a heap; layout applies to MongoDB' : null;
  }

  // Called once before inserts: the statement and how keys are passed. statement (optional):
  // {sql, types} of another table's insert (a workload file's: tsbs's ingest models), prepared
  // under the same name, so the session sends as many statements as the document insert's.
  // fields: the relational form's columns (FIELDS).
  prepareInserts({
    key, durability, statement, fields,
  }) {
    this.durability = durability;
    this.withKey = key !== 'sequence';
    if (this.form === 'relational') this.relational(fields);
    const st = statement || forms.insertStatement(this.withKey, this.form, { fields });
    this.insertSql = st.sql;
    this.paramTypes = st.types;
    return this.prepareSession();
  }

  // Writes document `index` into the insert message (generation is client
  // work, kept out of service time); send() hands it to the connection.
  // keys: key generator (keys.js), or null for `sequence`.
  //
  // Both parameters are in PostgreSQL's binary format: uuid as its 16 bytes,
  // jsonb as version byte 1 followed by the JSON text, which the server
  // parses exactly like the text form. The JSON bytes are written straight
  // into the message, so no 10 kB JS string is built, UTF-8 encoded and
  // garbage-collected per document (profiled: about 30 us per 10 x 1000 B
  // document), and nothing is copied again on the way to the socket.
  // The json form's parameter is the text alone (json's binary format); the relational form's are
  // the FIELDS values, each its own varchar parameter, copied from the generator's characters.
  build(gen, index, keys) {
    if (!this.insert || this.insertGen !== gen) this.newInsertMessage(gen);
    if (this.withKey) keys.into(index, this.keyParam);
    if (this.valueParams) {
      const values = gen.fieldBuffers(index);
      for (let i = 0; i < values.length; i++) values[i].copy(this.valueParams[i]);
    } else {
      gen.jsonInto(index, this.jsonbParam, this.prefix.length);
    }
    return this.insert;
  }

  newInsertMessage(gen) {
    const keySizes = this.withKey ? [UUID_BYTES] : [];
    const relational = this.form === 'relational';
    // jsonb's binary format is a version byte before the text; json's, the text alone
    const prefix = relational ? null : forms.form(this.form).prefix;
    const sizes = relational ? [...keySizes, ...gen.names.map(() => gen.fieldBytes)] : [...keySizes, prefix.length + gen.jsonLength];
    this.insert = new PreparedInsert({ name: STATEMENT, sizes });
    this.insertGen = gen;
    this.keyParam = this.withKey ? this.insert.param(0) : null;
    if (relational) {
      this.valueParams = gen.names.map((_, i) => this.insert.param(keySizes.length + i));
      return;
    }
    this.prefix = prefix;
    this.jsonbParam = this.insert.param(sizes.length - 1);
    prefix.copy(this.jsonbParam, 0);
    gen.jsonTemplate.copy(this.jsonbParam, prefix.length);
  }

  // The relational form's statements of the steps, by its FIELDS columns.
  relational(fields) {
    if (!(fields >= 1)) throw new Error('the relational form needs FIELDS (its columns) before its inserts and reads');
    const columns = forms.names(fields).join(', ');
    this.formGet = { ...GET, text: `select ${columns} from ${TABLE} where id = $1` };
    this.formScan = { ...SCAN, text: `select id, ${columns} from ${TABLE} where id >= $1 order by id limit $2` };
  }

  send(insert) {
    if (!this.client) return Promise.reject(new Error('not connected'));
    return insert.send(this.client);
  }

  // key: 16-byte Buffer (sent as uuid's binary form). Resolves to 1 or
  // rejects: a read that finds nothing is an error, not a fast success.
  get(key) {
    if (!this.withKey) return Promise.reject(new Error('get: sequence keys cannot be read back by key (refused)'));
    return this.client.query({ ...(this.formGet || GET), values: [key] }).then((r) => {
      if (r.rows.length !== 1) throw new NotFoundError('get', key);
      return 1;
    });
  }

  // path: ['n1', 'attr3'] (shape.js); value: a string.
  patch(key, path, value) {
    if (!this.withKey) return Promise.reject(new Error('patch: sequence keys cannot be updated by key (refused)'));
    let q;
    try {
      q = this.form === 'relational' ? { ...forms.relationalPatch(path), values: [key, value] }
        : { ...PATCH, ...(this.form === 'json' ? { name: 'jsonbench_patch_json', text: forms.FORMS.json.patchSql } : {}), values: [key, path, `"${value}"`] };
    } catch (err) {
      return Promise.reject(err);
    }
    return this.client.query(q).then((r) => {
      if (r.rowCount !== 1) throw new NotFoundError('patch', key);
      return 1;
    });
  }

  // Up to n documents from `key` on, in key order (uuid order is bytewise,
  // as MongoDB's for 16-byte binary keys). At least the key's own document.
  scan(key, n) {
    if (!this.withKey) return Promise.reject(new Error('scan: sequence keys cannot be scanned from a key (refused)'));
    return this.client.query({ ...(this.formScan || SCAN), values: [key, n] }).then((r) => {
      if (r.rows.length === 0) throw new NotFoundError('scan', key);
      return r.rows.length;
    });
  }

  // DIGEST=documents (client/src/document-digest.js): every document with its key as hex (null for
  // KEY=sequence: identity values), 1000 rows a round trip in key order (keyset pagination).
  // The relational form's row is turned back into the document it stores ({attr1: v, ...}).
  readBack(key) {
    const relational = this.form === 'relational';
    return keysetReadBack(async (after, n) => {
      const r = await this.client.query({
        text: `select id, ${key === 'sequence' ? 'null' : "encode(uuid_send(id), 'hex')"} as hex, ${relational ? 't.*' : 'data::text as data'} from ${TABLE}${relational ? ' t' : ''}`
          + ` where $1::text is null or id > $1::${key === 'sequence' ? 'bigint' : 'uuid'} order by id limit $2`,
        values: [after, n],
        rowMode: 'array',
        types: RAW_TEXT,
      });
      if (!relational) return r.rows;
      const names = r.fields.map((f) => f.name);
      return r.rows.map((row) => [row[0], row[1], forms.rowDocument(names, row, 2)]);
    }, relational ? (doc) => doc : undefined);
  }

  isConnectionLost(err) {
    if (err.code === 'JSONBENCH_NOT_FOUND') return false;
    return this.broken || !err.code || LOST_CODES.test(err.code);
  }

  async reconnect() {
    await this.close();
    await this.connect();
  }

  async count() {
    const { rows } = await this.client.query(
      `select count(*)::bigint as documents,
              pg_table_size('${TABLE}') as table_bytes,
              pg_indexes_size('${TABLE}') as index_bytes,
              pg_total_relation_size('${TABLE}') as total_bytes
         from ${TABLE}`,
    );
    const r = rows[0];
    return {
      documents: Number(r.documents),
      table_bytes: Number(r.table_bytes),
      index_bytes: Number(r.index_bytes),
      total_bytes: Number(r.total_bytes),
      note: 'table_bytes = pg_table_size (heap + TOAST + free space and visibility maps)',
    };
  }

  // The server's own counters for this database (postgres-stats.js; tables: a workload's own, read
  // one by one), and what each `run` session of the step kinds sends besides its operations, for
  // analysis to count as the lab's own work: show server_version (connect.js), set
  // synchronous_commit, prepare; one transaction each. A workload whose sessions send something
  // else says so in its workload file (runSession: server-stats.js).
  async serverStats(server, tables = []) {
    const stats = await readPostgresStats(this.client, tables);
    return { ...stats, run_session: { connections: 1, statements: 3, about: 'show server_version; set synchronous_commit; prepare' } };
  }

  async close() {
    const c = this.client;
    this.client = null;
    if (c) await c.end().catch(() => {});
  }
}

// The query phase's steps and whole-document loads (postgres-queries.js).
Object.assign(PostgresTarget.prototype, require('./postgres-queries').methods);
// The transaction step kind (postgres-txn.js); what a workload runs in it is its workload file's
// (workloads/<workload>.js).
Object.assign(PostgresTarget.prototype, require('./postgres-txn').methods);

module.exports = { PostgresTarget, ddl, NotFoundError };
