'use strict';
// WORKLOAD=oltp: sysbench-style operations (client/src/workloads/oltp.js) on a table of TABLE_ROWS
// rows that init loads; OPS per client at RATE/s, each one transaction, in one run phase (`<db>`).
const shared = require('./shared-keys');
const { checkTransactionKeys } = require('./txn-rules');
const { phase } = require('./plan-helpers');
const { databaseWorkload } = require('../databases');

// This database's file of the workload (databases/<db>/client/workloads/oltp.js).
const own = (target) => databaseWorkload(target.database, 'oltp');

module.exports = {
  name: 'oltp',
  order: 6,
  documents: false,
  stages: ['run'],
  stagesWhy: 'init loads its data',
  contextKeys: [],
  keys: {
    RATE: shared.RATE,
    OPS: shared.OPS,
    ...shared.TRANSACTION_KEYS,
    // init loads TABLE_ROWS rows (ids 1..TABLE_ROWS; KEY is not used)
    TABLE_ROWS: { type: 'int', min: 100, max: 1000000000, default: '100000', about: 'rows of the sbtest table (sysbench\'s table_size): small enough for memory, or larger than the cache' },
    OLTP_MIX: { type: 'enum', values: ['95/5', '50/50'], default: '95/5', about: 'reads/writes (reads 10 point : 1 of each range query; writes index update, non-index update, delete+insert alike)' },
  },
  check: checkTransactionKeys,
  phases: (v, database) => [phase(database, 'run', v.OPS, v.RATE, v.CLIENTS)],
  checkSize: (v, n) => [`OPS=${n}`],
  create: ({ target, opts }) => new (require('./oltp').OltpWorkload)({ target, opts }),
  // What a database's file of it (databases/<db>/client/workloads/oltp.js) exports: its table and rows
  // (init), the session (prepare), an operation's steps (stepsOn), the rows and sizes (count).
  databaseNeeds: ['init', 'prepare', 'stepsOn', 'count'],
  // init's data (TABLE_ROWS rows) and the table settle vacuums on PostgreSQL
  initData: (target, opts) => own(target).init(target, opts),
  tables: () => [require('./oltp-data').TABLE],
  // count: the sbtest rows (always TABLE_ROWS: a delete+insert keeps its id) and their sizes
  async count({ target, server, opts, readSettled, print }) {
    print({ database: opts.database, server, ...await readSettled(target, () => own(target).count(target)) });
    return 0;
  },
  describe: (opts, out) => ({ ...out, shape: null }),
  // Each operation a transaction; a delete+insert keeps its id, so the count always holds TABLE_ROWS rows.
  analysis: { insert_ops: ['insert'], ingest: false, transactions: true, count_expected: { basis: 'setting', setting: 'TABLE_ROWS' } },
};
