'use strict';
// WORKLOAD=ycsb: YCSB's core workloads on generated documents: a load phase (`<db>-load`, RECORDS
// over the clients at LOAD_RATE) then the measured run (`<db>`, OPS per client at RATE in MIX).
const shared = require('./shared-keys');
const { InputError } = require('../input-error');
const { maxDocumentBytes, MONGODB_MAX_BSON_BYTES } = require('../doc-size');
const { phase } = require('./plan-helpers');

const DISTS = ['uniform', 'zipfian', 'latest', 'hotspot'];
const hotspot = (v) => v.DIST === 'hotspot';

module.exports = {
  name: 'ycsb',
  order: 2,
  documents: true,
  sequenceKeys: 'reads and updates need keys the client can regenerate, and sequence keys are made by the database',
  contextKeys: ['DIST', 'MIX', 'SHAPE'],
  // the operations MIX may name with this workload
  mixOps: ['read', 'update', 'insert', 'scan', 'rmw'],
  keys: {
    ...shared.DOCUMENT_KEYS,
    MIX: shared.MIX,
    RECORDS: shared.RECORDS,
    LOAD_RATE: shared.LOAD_RATE,
    OPS: shared.OPS,
    DIST: { type: 'enum', values: DISTS, default: 'zipfian', about: 'key choice' },
    THETA: {
      type: 'number', gt: 0, lt: 1, default: '0.99', when: (v) => v.DIST === 'zipfian' || v.DIST === 'latest',
      whenAbout: 'with DIST=zipfian or latest', about: 'zipfian constant',
    },
    HOT_SET_FRACTION: {
      type: 'number', gt: 0, lt: 1, default: '0.2', when: hotspot, whenAbout: 'with DIST=hotspot', about: 'hotspot: fraction of the keys that are hot',
    },
    HOT_OPS_FRACTION: {
      type: 'number', gt: 0, lt: 1, default: '0.8', when: hotspot, whenAbout: 'with DIST=hotspot', about: 'hotspot: fraction of the operations on hot keys',
    },
    SCAN_MAX: {
      type: 'int', min: 1, default: '100', when: (v) => Boolean(v.MIX.scan), whenAbout: 'with scan in MIX', about: 'scan length is uniform in 1..SCAN_MAX',
    },
  },
  check(values, where) {
    if (!values.MIX.scan) return;
    // A scan's documents must fit MongoDB's first batch (16 MiB) for it to be one round trip.
    const { shapeOf } = require('../bench-schema');
    const docBytes = maxDocumentBytes(values.FIELDS, values.FIELD_BYTES, values.KEY_FORMAT, shapeOf(values));
    if (docBytes * values.SCAN_MAX > MONGODB_MAX_BSON_BYTES - 16 * 1024) {
      throw new InputError(`${where('SCAN_MAX')}: SCAN_MAX=${values.SCAN_MAX} documents of ${docBytes} bytes do not fit in one MongoDB `
        + `batch (16 MiB), so a scan could not be one round trip; allowed: SCAN_MAX <= ${Math.floor((MONGODB_MAX_BSON_BYTES - 16 * 1024) / docBytes)}`);
    }
  },
  phases(v, database) {
    // The client with the most records: client 1 (record r goes to client r % CLIENTS + 1).
    const loadOps = require('./ycsb').loadedBy(0, v.RECORDS, v.CLIENTS);
    return [phase(database, 'load', loadOps, v.LOAD_RATE, v.CLIENTS), phase(database, 'run', v.OPS, v.RATE, v.CLIENTS)];
  },
  // OPS is per client, RATE per client (the load stays RECORDS: the run needs them).
  checkSize: (v, n) => [`OPS=${n}`],
  create: ({ target, opts }) => require('./ycsb').createYcsb({ target, opts }),
  describe: (opts, out) => ({ ...out, mix: opts.mix, dist: opts.dist, records: opts.records, scan_max: opts.mix.scan ? opts.scanMax : null }),
  okSummary(values) {
    const { formatMix } = require('../bench-schema');
    return `${values.KEY}/${values.LAYOUT}; ${values.FIELDS} x ${values.FIELD_BYTES} B`
      + `${values.SHAPE === 'nested' ? ` nested ${values.DEPTH} deep x ${values.FANOUT}` : ''}`
      + `; ycsb ${formatMix(values.MIX)}, ${values.DIST}, ${values.RECORDS} records loaded ${values.LOAD_RATE ? `at ${values.LOAD_RATE}/s per client` : 'back-to-back'}, `
      + `${values.CLIENTS} client(s) x ${values.RATE} ops/s x ${values.OPS} ops`;
  },
  // The run mixes reads, updates, scans with inserts: per-document costs only in the load phase.
  analysis: { insert_ops: ['insert'], ingest: false, transactions: false, count_expected: { basis: 'inserted' } },
};
