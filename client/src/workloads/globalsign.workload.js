'use strict';
// WORKLOAD=globalsign: GlobalSign's mixed workers (seed 001, the MPJBT tool): a load of RECORDS
// "person" documents (globalsign-data.js) then the run, whose operations MIX chooses among three:
// insert (a new person), update (set one loaded person's balance, by id) and range (every person with
// RANGE_MIN < age < RANGE_MAX, served by a partial index on age over that band). Each database's file
// (databases/<db>/client/workloads/globalsign.js) makes the table and the index at init, runs the
// operations, and proves after each phase (count, outside the window) that its plan of the range
// statement as sent uses the index (count's index_proof).
const shared = require('./shared-keys');
const { InputError } = require('../input-error');
const { phase } = require('./plan-helpers');
const { databaseWorkload } = require('../databases');

const own = (target) => databaseWorkload(target.database, 'globalsign');
// MongoDB's 16 MiB document limit, less room for the person's other fields (a few hundred bytes).
const MAX_PAD_BYTES = 16 * 1024 * 1024 - 64 * 1024;
const OPS = ['insert', 'update', 'range'];

module.exports = {
  name: 'globalsign',
  order: 7,
  documents: false,
  stages: ['load', 'run'],
  stagesWhy: 'a load of RECORDS people, then the mixed run',
  sequenceKeys: 'a person\'s id is derived from (client, index), so updates can choose loaded people by id on every database',
  contextKeys: ['MIX'],
  // the operations MIX may name with this workload
  mixOps: OPS,
  // MIX's value when the bench does not set it: the study's three streams of workers side by side,
  // one operation each, in equal shares (the shared key's default, YCSB's A, names read: not offered)
  mixDefault: 'insert=1,update=1,range=1',
  keys: {
    MIX: shared.MIX,
    RECORDS: shared.RECORDS,
    LOAD_RATE: shared.LOAD_RATE,
    RATE: shared.RATE,
    OPS: shared.OPS,
    DIGEST: shared.DIGEST,
    PAD_BYTES: {
      type: 'int', min: 0, max: MAX_PAD_BYTES, default: '0',
      about: 'bytes of random binary padding per person (0: the study\'s ~320 B people; 1048576: its 1 MB variant)',
    },
    AGE_MAX: {
      type: 'int', min: 1, max: 2147483647, default: '99',
      about: 'ages are uniform in 0..AGE_MAX (the share of people in the band is (RANGE_MAX - RANGE_MIN - 1) / (AGE_MAX + 1))',
    },
    RANGE_MIN: { type: 'int', min: 0, max: 2147483647, default: '45', about: 'range select: age > RANGE_MIN (the study\'s 45), the partial index\'s lower bound' },
    RANGE_MAX: { type: 'int', min: 0, max: 2147483647, default: '75', about: 'range select: age < RANGE_MAX (the study\'s 75), the partial index\'s upper bound' },
  },
  check(values, where) {
    const { RANGE_MIN: lo, RANGE_MAX: hi, AGE_MAX: top } = values;
    // the line of whichever of the keys the file sets (where() of a key left at its default is the file alone)
    const at = (...keys) => keys.map(where).find((w) => /:\d+$/.test(w)) || where(keys[0]);
    if (!(hi - lo >= 2)) {
      throw new InputError(`${at('RANGE_MAX', 'RANGE_MIN')}: RANGE_MIN=${lo} RANGE_MAX=${hi} leave no integer age strictly between them `
        + `(the band is RANGE_MIN < age < RANGE_MAX); allowed: RANGE_MAX >= RANGE_MIN + 2, e.g. RANGE_MIN=45 RANGE_MAX=75`);
    }
    if (lo >= top) {
      throw new InputError(`${at('AGE_MAX', 'RANGE_MIN')}: RANGE_MIN=${lo} is not below AGE_MAX=${top}: no person's age (0..AGE_MAX) is in the band; `
        + `allowed: RANGE_MIN < AGE_MAX`);
    }
  },
  phases(v, database) {
    const loadOps = require('./ycsb').loadedBy(0, v.RECORDS, v.CLIENTS);
    return [phase(database, 'load', loadOps, v.LOAD_RATE, v.CLIENTS), phase(database, 'run', v.OPS, v.RATE, v.CLIENTS)];
  },
  checkSize: (v, n) => [`OPS=${n}`],
  create: ({ target, opts }) => require('./globalsign').createGlobalsign({ target, opts }),
  // What a database's file of it exports: its table and partial index (init), the session (prepare),
  // the operations (stepsOn), the sizes, every person read back (readBack) and the index proof (proof).
  databaseNeeds: ['init', 'prepare', 'stepsOn', 'sizes', 'readBack', 'proof'],
  initData: (target, opts) => own(target).init(target, opts),
  // its table: settle vacuums (PostgreSQL) or analyzes (MySQL) it, count's flush writes it
  tables: () => [require('./globalsign-data').TABLE],
  // but server-stats reads no per-table counters of it: a phase that is not a transaction workload's
  // is reconciled with server-wide counters, and a per-table reading would only add its own
  // statements and reads to the window's bracket (registry.js statsTables)
  statsTables: () => [],
  // count: the sizes, DIGEST=documents' digest of every person read back, and the index proof: the
  // plan of the range statement as the run sends it, explained after 6 executions on one session
  async count({
    target, server, opts, readSettled, print,
  }) {
    const { personsDigest } = require('./globalsign-data');
    const sizes = await readSettled(target, () => own(target).sizes(target));
    let digest = {};
    if (opts.digest === 'documents') {
      const rows = [];
      for await (const doc of own(target).readBack(target)) rows.push(doc);
      digest = { digest: personsDigest(rows) };
    }
    const proof = await own(target).proof(target, { min: opts.rangeMin, max: opts.rangeMax });
    print({ database: opts.database, server, ...sizes, ...digest, index_proof: proof });
    return 0;
  },
  describe: (opts, out) => ({
    ...out, shape: null, mix: opts.mix, records: opts.records, pad_bytes: opts.padBytes, age_max: opts.ageMax, band: { min: opts.rangeMin, max: opts.rangeMax },
  }),
  okSummary(values) {
    const { formatMix } = require('../bench-schema');
    return `globalsign ${formatMix(values.MIX)}; ${values.RECORDS} people loaded, padding ${values.PAD_BYTES} B, ages 0..${values.AGE_MAX}, `
      + `band ${values.RANGE_MIN} < age < ${values.RANGE_MAX}; ${values.CLIENTS} client(s) x ${values.RATE} ops/s x ${values.OPS} ops`;
  },
  // The run mixes inserts with updates and range selects: per-document costs only in the load phase;
  // the count holds every person inserted (load and run).
  analysis: { insert_ops: ['insert'], ingest: false, transactions: false, count_expected: { basis: 'inserted' } },
};
