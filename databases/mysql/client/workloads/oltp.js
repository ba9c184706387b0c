'use strict';
// WORKLOAD=oltp on MySQL: sysbench's OLTP table on InnoDB (client/src/workloads/oltp-data.js), as sysbench's own oltp_common.lua
// creates it for MySQL: id INTEGER AUTO_INCREMENT primary key (the clustered index), k INTEGER with
// a secondary index, c CHAR(120), pad CHAR(60), and its statements of oltp_read_write (point
// select, the four range queries over RANGE_SIZE ids, the indexed and the non-indexed update, the
// delete and the insert of one row), each one round trip through a statement prepared once per
// connection (sysbench prepares them too). The ids are always given (sysbench's delete+insert gives
// the deleted id back), so AUTO_INCREMENT only stands as sysbench declares it. Each operation is a
// transaction (the binding's transaction step kind, mysql-txn.js), as on PostgreSQL
// (databases/postgres/client/workloads/oltp.js).
const { TABLE, COLUMNS, INDEXES, loadRows, params } = require('../../../../client/src/sdk').workloadData('oltp');
const { tableSizes } = require('../table-sizes');

const DDL = `CREATE TABLE ${TABLE} (id INTEGER NOT NULL AUTO_INCREMENT, k INTEGER NOT NULL DEFAULT '0', `
  + "c CHAR(120) NOT NULL DEFAULT '', pad CHAR(60) NOT NULL DEFAULT '', PRIMARY KEY (id)) ENGINE=InnoDB";
const indexSql = (ix) => `CREATE ${ix.unique ? 'UNIQUE ' : ''}INDEX ${ix.name} ON ${ix.table} (${ix.fields.join(', ')})`;
const RANGE = 'WHERE id BETWEEN ? AND ?';
const SQL = {
  point: `SELECT c FROM ${TABLE} WHERE id = ?`,
  simple: `SELECT c FROM ${TABLE} ${RANGE}`,
  sum: `SELECT SUM(k) FROM ${TABLE} ${RANGE}`,
  order: `SELECT c FROM ${TABLE} ${RANGE} ORDER BY c`,
  distinct: `SELECT DISTINCT c FROM ${TABLE} ${RANGE} ORDER BY c`,
  indexUpdate: `UPDATE ${TABLE} SET k = k + 1 WHERE id = ?`,
  nonIndexUpdate: `UPDATE ${TABLE} SET c = ? WHERE id = ?`,
  delete: `DELETE FROM ${TABLE} WHERE id = ?`,
  insert: `INSERT INTO ${TABLE} (id, k, c, pad) VALUES (?, ?, ?, ?)`,
};

async function init(conn, { seed, tableRows }) {
  await conn.query(`DROP TABLE IF EXISTS ${TABLE}`);
  await conn.query(DDL);
  await loadRows(seed, tableRows, (batch) => conn.query(
    `INSERT INTO ${TABLE} (${COLUMNS.join(', ')}) VALUES ${batch.map(() => `(${COLUMNS.map(() => '?').join(', ')})`).join(', ')}`,
    params(batch)));
  const indexes = INDEXES.map(indexSql);
  for (const sql of indexes) await conn.query(sql);
  return { created: DDL, indexes };
}

// A SELECT resolves to its rows, a write to the rows it matched (mysql2 sets CLIENT_FOUND_ROWS:
// affectedRows counts the rows found, as PostgreSQL's rowCount).
const rowsOfResult = ([r]) => (Array.isArray(r) ? r.length : r.affectedRows);

function stepsOn(st) {
  const run = (name, values) => st[name].execute(values).then(rowsOfResult);
  return {
    pointSelect: (id) => run('point', [id]),
    simpleRange: (lo, hi) => run('simple', [lo, hi]),
    sumRange: (lo, hi) => run('sum', [lo, hi]),
    orderRange: (lo, hi) => run('order', [lo, hi]),
    distinctRange: (lo, hi) => run('distinct', [lo, hi]),
    indexUpdate: (id) => run('indexUpdate', [id]),
    nonIndexUpdate: (id, c) => run('nonIndexUpdate', [c, id]),
    deleteRow: (id) => run('delete', [id]),
    insertRow: (x) => run('insert', [x.id, x.k, x.c, x.pad]),
  };
}

async function count(conn) {
  await conn.query('SET SESSION information_schema_stats_expiry = 0');
  return tableSizes(conn, TABLE,
    'information_schema.TABLES DATA_LENGTH (clustered index: the rows) and INDEX_LENGTH (k_idx), after ANALYZE TABLE');
}

// What client/src/workloads/oltp*.js ask of this database; the session as a booking's, with these
// statements prepared on it.
module.exports = {
  init: (target, opts) => init(target.handle(), opts),
  prepare: require('./booking').prepareWith('oltp', SQL),
  stepsOn,
  // the binding's flush after the phase (count's readSettled) writes and analyzes this table:
  // client/src/workloads/oltp.workload.js `tables`
  count: (target) => count(target.handle()),
  runSession: require('./booking').runSessionOf(SQL),
  SQL,
  DDL,
};
