'use strict';
// WORKLOAD=globalsign on MySQL (client/src/workloads/globalsign*.js): the people as one JSON document
// each, table globalsign(id BIGINT primary key, data JSON), the same JSON text as PostgreSQL's (dob ISO
// 8601 text, padding base64 text), so the two JSON databases store and return the same document.
//
// MySQL has no partial index (no CREATE INDEX ... WHERE, MySQL 8.4/9.x manual create-index.html). Its
// nearest equivalent: a B-tree on a virtual generated column holding the age (InnoDB stores the
// column's values in the secondary index only), which the range statement names, so the same band
// is an index range scan. What it cannot do is leave the other rows out: the index holds every
// person's age, not just the band's (a NULL outside the band is still an index entry in InnoDB), so
// it is larger than PostgreSQL's and MongoDB's, and every insert and every age change maintains it.
// (A functional index, CREATE INDEX ((CAST(data->>'$.age' AS SIGNED))), is the same hidden virtual
// column, matched only by that exact expression.)
const { workloadData, InputError } = require('../../../../client/src/sdk');
const { tableSizes } = require('../table-sizes');
const { DURABILITY } = require('../mysql');

const { TABLE, INDEX, bandBounds, personJson } = workloadData('globalsign');

const DDL = `CREATE TABLE ${TABLE} (id BIGINT NOT NULL PRIMARY KEY, data JSON NOT NULL, `
  + "age INT GENERATED ALWAYS AS (CAST(data->>'$.age' AS SIGNED)) VIRTUAL) ENGINE=InnoDB";
const INDEX_SQL = `CREATE INDEX ${INDEX} ON ${TABLE} (age)`;
const bandSql = (band) => { const { min, max } = bandBounds(band); return `age > ${min} AND age < ${max}`; };
const SQL = {
  insert: `INSERT INTO ${TABLE} (id, data) VALUES (?, ?)`,
  // the new balance as a JSON number (the double as given)
  update: `UPDATE ${TABLE} SET data = JSON_SET(data, '$.balance', CAST(? AS JSON)) WHERE id = ?`,
};
// The band's bounds as constants in the text, as on PostgreSQL (the same statement every time).
const rangeSql = (band) => `SELECT data FROM ${TABLE} WHERE ${bandSql(band)}`;

async function init(conn) {
  await conn.query(`DROP TABLE IF EXISTS ${TABLE}`);
  await conn.query(DDL);
  await conn.query(INDEX_SQL);
  return { created: DDL, indexes: [INDEX_SQL] };
}

// Each statement prepared once per connection (mysql2's execute: COM_STMT_PREPARE on first use, kept
// in the connection's statement cache, then COM_STMT_EXECUTE only), as the binding's.
function stepsOn(target, { rangeMin, rangeMax }) {
  const range = rangeSql({ min: rangeMin, max: rangeMax });
  const one = (what, id) => ([r]) => {
    if (r.affectedRows !== 1) throw Object.assign(new Error(`${what}: no person with id ${id}`), { code: 'JSONBENCH_NOT_FOUND' });
    return 1;
  };
  return {
    insert: (doc) => target.handle().execute(SQL.insert, [doc.id, doc.json]).then(one('insert', doc.id)),
    update: (id, balance) => target.handle().execute(SQL.update, [JSON.stringify(balance), id]).then(one('update', id)),
    range: () => target.handle().execute(range).then(([rows]) => rows.length),
  };
}

async function sizes(conn) {
  await conn.query('SET SESSION information_schema_stats_expiry = 0');
  return tableSizes(conn, TABLE, `information_schema.TABLES DATA_LENGTH (clustered index: the rows) and INDEX_LENGTH (${INDEX}), after ANALYZE TABLE`);
}

// Every person, 1,000 rows a round trip in id order (mysql2 parses the JSON column).
async function* readBack(conn) {
  let after = -1;
  for (;;) {
    const [rows] = await conn.execute(`SELECT id, data FROM ${TABLE} WHERE id > ? ORDER BY id LIMIT 1000`, [after]);
    for (const [, data] of rows) yield typeof data === 'string' ? JSON.parse(data) : data;
    if (rows.length < 1000) return;
    after = String(rows[rows.length - 1][0]);
  }
}

const EXECUTIONS = 6;
// The access nodes of an EXPLAIN FORMAT=JSON plan, depth first, in either of MySQL's formats:
// version 1 (query_block.table: access_type and key; 8.x's default) or version 2 (query_plan: nodes of
// operation, access_type, index_name, their inputs; the default of explain_json_format_version from
// 9.x, as the stand-in's MySQL 9.7 answers). {node, index, text} each.
function* accessNodes(v) {
  if (Array.isArray(v)) {
    for (const x of v) yield* accessNodes(x);
    return;
  }
  if (!v || typeof v !== 'object') return;
  if (typeof v.operation === 'string') { // version 2
    const { inputs, ...node } = v;
    yield { node, index: v.index_name || null, text: v.operation };
    yield* accessNodes(inputs);
    return;
  }
  if (typeof v.access_type === 'string' && typeof v.table_name === 'string') { // version 1
    yield { node: v, index: v.key || null, text: `${v.access_type} on ${v.table_name}${v.key ? ` using ${v.key}` : ''}` };
    return;
  }
  for (const x of Object.values(v)) yield* accessNodes(x);
}

// The index proof: the run's range statement executed 6 times as the run sends it (prepared, mysql2's
// execute), then EXPLAIN FORMAT=JSON of that statement, itself prepared. MySQL keeps no plan across
// executions of a prepared statement (each execution is optimized again), so this is the plan every
// execution of the run takes on this data; the 6 executions keep the proof's form the same on every
// database.
async function proof(conn, band) {
  const range = rangeSql(band);
  for (let k = 0; k < EXECUTIONS; k++) await conn.execute(range);
  const [[[text]]] = await conn.execute(`EXPLAIN FORMAT=JSON ${range}`);
  const plan = typeof text === 'string' ? JSON.parse(text) : text;
  const all = [...accessNodes(plan.query_plan || plan.query_block || plan)];
  const used = all.find((n) => n.index === INDEX);
  const any = all.find((n) => n.index);
  return {
    statement: range,
    index: INDEX,
    used: Boolean(used),
    index_used: any ? any.index : null,
    plan_node: (used || all[all.length - 1] || { node: plan }).node,
    plan_nodes: all.map((n) => n.text),
    executions_before: EXECUTIONS,
    plan_cache: null,
    method: `EXPLAIN FORMAT=JSON of the run's prepared SELECT after ${EXECUTIONS} executions (MySQL optimizes each execution again: no cached plan)`,
  };
}

// DURABILITY is the server's (global settings): the run refuses a server started otherwise, as the
// binding's inserts do (mysql.js checkDurability; the lab sets them from DURABILITY, lab.py).
async function checkDurability(conn, durability) {
  const [[[flush, sync, logBin]]] = await conn.query('SELECT @@innodb_flush_log_at_trx_commit, @@sync_binlog, @@log_bin');
  const want = DURABILITY[durability];
  if (want && (Number(flush) !== want.flush || (Number(logBin) === 1 && Number(sync) !== want.sync))) {
    throw new InputError(`DURABILITY=${durability} needs the MySQL server started with innodb_flush_log_at_trx_commit=${want.flush} and `
      + `sync_binlog=${want.sync}; it runs with ${flush} and ${sync} (databases/mysql/lab.py sets them from DURABILITY)`);
  }
}

// What client/src/workloads/globalsign*.js ask of this database.
module.exports = {
  init: (target) => init(target.handle()),
  prepare: (target, opts) => checkDurability(target.handle(), opts.durability),
  stepsOn,
  encode: (doc) => ({ id: doc.id, json: personJson(doc) }),
  sizes: (target) => sizes(target.handle()),
  readBack: (target) => readBack(target.handle()),
  proof: (target, band) => proof(target.handle(), band),
  runSession: {
    connections: 1, statements: 2, prepares: 3, about: 'SELECT VERSION(); SELECT @@innodb_flush_log_at_trx_commit, ...; 3 prepares',
  },
  rangeSql,
  INDEX_SQL,
};
