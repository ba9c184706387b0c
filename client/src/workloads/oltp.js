'use strict';
// sysbench-style OLTP operations (the OnGres study's OLTP part) on TABLE_ROWS rows
// (oltp-data.js): point selects, the four range queries (simple, sum, order, distinct over
// RANGE_SIZE ids), an indexed update (k), a non-indexed update (c) and a delete+insert of one row,
// in OLTP_MIX's proportions. Each operation is one transaction through the binding's transaction
// step kind (isolation, retries and counts as the bookings). Names no database. Operation i of a
// client is a function of (SEED, client, i): its shape (mix.js), row ids and new values.
const { Sfc32 } = require('../prng');
const { MixSchedule } = require('./mix');
const { TxnWorkload } = require('./txn-workload');
const {
  READS, WRITES, RANGE_SIZE, mixWeights, row, digits,
} = require('./oltp-data');

const OP_SALT = 0x6f6c7470; // "oltp"

// One operation's steps on a transaction's steps (databases/<db>/client/workloads/oltp.js stepsOn).
function runOp(tx, op) {
  switch (op.name) {
    case 'point-select': return tx.pointSelect(op.id);
    case 'simple-range': return tx.simpleRange(op.lo, op.hi);
    case 'sum-range': return tx.sumRange(op.lo, op.hi);
    case 'order-range': return tx.orderRange(op.lo, op.hi);
    case 'distinct-range': return tx.distinctRange(op.lo, op.hi);
    case 'index-update': return tx.indexUpdate(op.id);
    case 'non-index-update': return tx.nonIndexUpdate(op.id, op.c);
    case 'delete-insert': return tx.deleteRow(op.id).then((n) => tx.insertRow(op.row).then((m) => n + m));
    default: throw new Error(`unknown operation ${op.name}`);
  }
}

class OltpWorkload extends TxnWorkload {
  constructor({ target, opts }) {
    super({ target, opts, workload: 'oltp' });
    const weights = mixWeights(opts.oltpMix);
    this.opNames = [...READS, ...WRITES];
    this.mix = new MixSchedule(weights, this.opNames, { seed: opts.seed, clientHash: this.ownHash });
    this.rows = opts.tableRows;
    this.rng = new Sfc32(0, 0, 0, 0);
  }

  typeOf(i) { return this.mix.typeOf(i); }

  build(i) {
    const name = this.opNames[this.mix.typeOf(i)];
    const r = this.rng.reseed((this.seed ^ OP_SALT) >>> 0, this.ownHash, i >>> 0);
    const id = 1 + (r.next() % this.rows);
    const lo = 1 + (r.next() % Math.max(1, this.rows - RANGE_SIZE + 1));
    const op = { i, name, id, lo, hi: lo + RANGE_SIZE - 1 };
    if (name === 'non-index-update') op.c = digits(r, 10).padEnd(120, ' ');
    // The reinserted row: the generator's row `id`, version = this client's operation.
    if (name === 'delete-insert') op.row = row(this.seed, id, this.rows, ((this.ownHash ^ i) >>> 0) || 1);
    return op;
  }

  // Resolves to the rows the operation returned or wrote.
  exec(op, target = this.target) {
    return this.transaction(target, op.i, (tx) => runOp(tx, op));
  }

  resultFields() {
    return this.transactionFields({ oltp_mix: this.opts.oltpMix, table_rows: this.rows, range_size: RANGE_SIZE });
  }
}

module.exports = { OltpWorkload, runOp };
