'use strict';
// sysbench's OLTP table, generated from SEED the same on both databases: TABLE_ROWS rows (id 1..N,
// k an integer in 1..N with a secondary index, c 120 and pad 60 characters of digit groups, as
// sysbench's oltp_common.lua makes them), and the operation shapes of its oltp_read_write
// transaction in the study's two mixes of reads and writes.
const { Sfc32 } = require('../prng');

const ROW_SALT = 0x73627421; // "sbt!"
const TABLE = 'sbtest';
const COLUMNS = ['id', 'k', 'c', 'pad'];
const INDEXES = [{ table: TABLE, name: 'k_idx', fields: ['k'], unique: false }];
// sysbench's --range_size default: a range query spans 100 ids.
const RANGE_SIZE = 100;

const READS = ['point-select', 'simple-range', 'sum-range', 'order-range', 'distinct-range'];
const WRITES = ['index-update', 'non-index-update', 'delete-insert'];
// One oltp_read_write transaction of sysbench holds 10 point selects, one of each range query
// and one of each write: reads and writes keep those proportions among themselves, and OLTP_MIX
// sets the share of reads (95/5: the study's read-mostly mix; 50/50).
const READ_WEIGHTS = { 'point-select': 10, 'simple-range': 1, 'sum-range': 1, 'order-range': 1, 'distinct-range': 1 };
const MIXES = { '95/5': [95, 5], '50/50': [50, 50] };

// { op: integer weight } for a mix: reads r split 10:1:1:1:1, writes w split 1:1:1.
function mixWeights(name) {
  const [r, w] = MIXES[name];
  const readParts = Object.values(READ_WEIGHTS).reduce((a, b) => a + b, 0);
  const out = {};
  for (const op of READS) out[op] = r * READ_WEIGHTS[op] * WRITES.length;
  for (const op of WRITES) out[op] = w * readParts;
  return out;
}

const rng = new Sfc32(0, 0, 0, 0);
// `groups` groups of 11 digits joined by '-' (sysbench's c and pad templates).
function digits(r, groups) {
  const parts = [];
  for (let g = 0; g < groups; g++) {
    let s = '';
    for (let d = 0; d < 11; d++) s += String(r.next() % 10);
    parts.push(s);
  }
  return parts.join('-');
}

// Row `id` (version v: 0 = loaded, else the delete+insert of operation v that rewrote it).
function row(seed, id, rows, v = 0) {
  const r = rng.reseed((seed ^ ROW_SALT) >>> 0, id >>> 0, v >>> 0);
  return { id, k: 1 + (r.next() % rows), c: digits(r, 10).padEnd(120, ' ').slice(0, 120), pad: digits(r, 5).padEnd(60, ' ').slice(0, 60) };
}

function* rowsOf(seed, n) {
  for (let id = 1; id <= n; id++) yield row(seed, id, n);
}

// The table's n rows in multi-row INSERTs of 1,000 (every database's init sends the same batches):
// writeBatch(rows) sends one in its own dialect; params(rows) gives its values in COLUMNS order.
const LOAD_BATCH = 1000;
const params = (rows) => rows.flatMap((x) => COLUMNS.map((c) => x[c]));
async function loadRows(seed, n, writeBatch) {
  let batch = [];
  for (const x of rowsOf(seed, n)) {
    batch.push(x);
    if (batch.length === LOAD_BATCH) { await writeBatch(batch); batch = []; }
  }
  if (batch.length) await writeBatch(batch);
}

module.exports = {
  TABLE, COLUMNS, INDEXES, RANGE_SIZE, READS, WRITES, MIXES, mixWeights, row, rowsOf, digits, loadRows, params,
};
