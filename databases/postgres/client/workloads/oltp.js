'use strict';
// WORKLOAD=oltp on PostgreSQL: sysbench's OLTP table (client/src/workloads/oltp-data.js), its k
// index, the generated rows, and the steps of one operation (run by the binding's transaction step
// kind, postgres-txn.js).
const { TABLE, COLUMNS, INDEXES, loadRows, params } = require('../../../../client/src/sdk').workloadData('oltp');
const { tableSizes } = require('../table-sizes');

const DDL = `create table ${TABLE} (id int primary key, k int not null, c text not null, pad text not null)`;
const indexSql = (ix) => `create ${ix.unique ? 'unique ' : ''}index ${ix.name} on ${ix.table} (${ix.fields.join(', ')})`;
const q = (name, text) => ({ name: `oltp_${name}`, text });
const RANGE = 'where id between $1 and $2';
const SQL = {
  point: q('point', `select c from ${TABLE} where id = $1`),
  simple: q('simple', `select c from ${TABLE} ${RANGE}`),
  sum: q('sum', `select sum(k) as s from ${TABLE} ${RANGE}`),
  order: q('order', `select c from ${TABLE} ${RANGE} order by c`),
  distinct: q('distinct', `select distinct c from ${TABLE} ${RANGE} order by c`),
  indexUpdate: q('index_update', `update ${TABLE} set k = k + 1 where id = $1`),
  nonIndexUpdate: q('non_index_update', `update ${TABLE} set c = $2 where id = $1`),
  delete: q('delete', `delete from ${TABLE} where id = $1`),
  insert: q('insert', `insert into ${TABLE} (id, k, c, pad) values ($1, $2, $3, $4)`),
};

async function init(client, { seed, tableRows }) {
  await client.query(`drop table if exists ${TABLE}`);
  await client.query(DDL);
  await loadRows(seed, tableRows, (batch) => client.query(
    `insert into ${TABLE} (${COLUMNS.join(', ')}) values ${batch.map((_, r) => `(${COLUMNS.map((__, c) => `$${r * COLUMNS.length + c + 1}`).join(', ')})`).join(', ')}`,
    params(batch)));
  const indexes = INDEXES.map(indexSql);
  for (const sql of indexes) await client.query(sql);
  return { created: DDL, indexes };
}

const rowsOfResult = (r) => r.rowCount ?? r.rows.length;

// Each step resolves to the rows it returned or wrote.
function stepsOn(client) {
  const run = (st, values) => client.query({ ...st, values }).then(rowsOfResult);
  return {
    pointSelect: (id) => run(SQL.point, [id]),
    simpleRange: (lo, hi) => run(SQL.simple, [lo, hi]),
    sumRange: (lo, hi) => run(SQL.sum, [lo, hi]),
    orderRange: (lo, hi) => run(SQL.order, [lo, hi]),
    distinctRange: (lo, hi) => run(SQL.distinct, [lo, hi]),
    indexUpdate: (id) => run(SQL.indexUpdate, [id]),
    nonIndexUpdate: (id, c) => run(SQL.nonIndexUpdate, [id, c]),
    deleteRow: (id) => run(SQL.delete, [id]),
    insertRow: (x) => run(SQL.insert, [x.id, x.k, x.c, x.pad]),
  };
}

const count = (client) => tableSizes(client, TABLE, 'table_bytes = pg_table_size');

// What client/src/workloads/oltp*.js ask of this database; the session as a booking's.
module.exports = {
  init: (target, opts) => init(target.handle(), opts),
  prepare: (target, opts) => target.prepareTransactions(opts),
  stepsOn,
  count: (target) => count(target.handle()),
  runSession: require('./booking').runSession,
};
