'use strict';
// WORKLOAD -> the workload of this client's stage, and the result fields that
// say what was run (docs/contracts.md §2).
const { InsertWorkload } = require('./insert');
const { createYcsb } = require('./ycsb');
const { TsbsIngest } = require('./tsbs');
const { hasQuerySet, requireForms } = require('../queries');

function createWorkload({ target, opts }) {
  // A workload with a query set (tsbs, events) runs on a database only with that set's forms.
  if (hasQuerySet(opts.workload)) requireForms(opts.workload, opts.database);
  if (opts.stage === 'query') return new (require('./query').QueryWorkload)({ target, opts });
  if (opts.workload === 'events') return require('./events').createEvents({ target, opts });
  if (opts.workload === 'ycsb') return createYcsb({ target, opts });
  if (opts.workload === 'tsbs') return new TsbsIngest({ target, opts });
  if (opts.workload === 'booking') return new (require('./booking').BookingWorkload)({ target, opts });
  if (opts.workload === 'oltp') return new (require('./oltp').OltpWorkload)({ target, opts });
  return new InsertWorkload({ target, opts, total: opts.docs, rate: opts.rate });
}

// workload, stage, phase (the lab's phase id: <db> or <db>-load) and, for ycsb,
// the run stage's parameters.
function describeWorkload(opts) {
  const out = {
    workload: opts.workload,
    stage: opts.stage,
    phase: opts.stage === 'load' ? `${opts.database}-load` : opts.stage === 'query' ? `${opts.database}-q-${opts.query}` : opts.database,
    shape: opts.shape,
  };
  // tsbs: which ingest model ran (the rest of its figures come at the end: workload.resultFields)
  if (opts.workload === 'tsbs') return { ...out, model: opts.model, shape: null };
  if (opts.workload === 'booking' || opts.workload === 'oltp') return { ...out, shape: null };
  if (opts.workload !== 'ycsb') return out;
  return {
    ...out,
    mix: opts.mix,
    dist: opts.dist,
    records: opts.records,
    scan_max: opts.mix.scan ? opts.scanMax : null,
  };
}

module.exports = { createWorkload, describeWorkload };
