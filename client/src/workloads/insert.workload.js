'use strict';
// WORKLOAD=insert (the default, the original study): each client inserts DOCS generated documents
// of FIELDS x FIELD_BYTES at RATE documents/s, one measured run phase per database (`<db>`).
const shared = require('./shared-keys');
const { phase } = require('./plan-helpers');

module.exports = {
  name: 'insert',
  order: 1,
  documents: true,
  stages: ['run'],
  contextKeys: ['SHAPE'],
  keys: {
    FIELDS: shared.FIELDS,
    FIELD_BYTES: shared.FIELD_BYTES,
    RATE: shared.RATE,
    DOCS: {
      type: 'int', min: 1, requiredWhereApplies: true,
      appliesAbout: 'WORKLOAD=insert (ycsb uses OPS and RECORDS, tsbs HOSTS/INTERVAL_S/SPAN_S, events EVENTS or DATASET)',
      about: 'documents per client (insert workload)',
    },
    ...shared.DOCUMENT_KEYS,
  },
  phases: (v, database) => [phase(database, 'run', v.DOCS, v.RATE, v.CLIENTS)],
  // DOCS is per client, RATE per client: n documents are CHECK_SECONDS at the bench's own rate.
  checkSize: (v, n) => [`DOCS=${n}`],
  create: ({ target, opts }) => new (require('./insert').InsertWorkload)({ target, opts, total: opts.docs, rate: opts.rate }),
  describe: (opts, out) => out,
  // Every operation an insert: per-document costs hold, and the count holds what was inserted.
  analysis: { insert_ops: ['insert'], ingest: false, transactions: false, count_expected: { basis: 'inserted' } },
};
