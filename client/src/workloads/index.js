'use strict';
// WORKLOAD -> the workload of this client's stage, and the result fields that
// say what was run (docs/contracts.md §2). Each workload's file (workloads/<name>.workload.js)
// constructs it and says what its result adds; a query phase is the same for every workload.
const { workload } = require('./registry');
const { phaseId } = require('./plan-helpers');
const { hasQuerySet, requireForms } = require('../queries');
const { databaseWorkload } = require('../databases');

function createWorkload({ target, opts }) {
  // A workload runs on a database only with its file there (databases/<db>/client/workloads/).
  databaseWorkload(opts.database, opts.workload || 'insert');
  // A workload with a query set runs on a database only with that set's forms.
  if (hasQuerySet(opts.workload)) requireForms(opts.workload, opts.database);
  if (opts.stage === 'query') return new (require('./query').QueryWorkload)({ target, opts });
  return workload(opts.workload || 'insert').create({ target, opts });
}

// workload, stage, phase (the lab's phase id: <db>, <db>-load or <db>-q-<query>), shape, and what
// the workload's file adds (ycsb: the run stage's parameters; tsbs: the ingest model).
function describeWorkload(opts) {
  const out = {
    workload: opts.workload,
    stage: opts.stage,
    phase: phaseId(opts.database, opts.stage, opts.query),
    shape: opts.shape,
  };
  const w = workload(opts.workload || 'insert');
  return w.describe ? w.describe(opts, out) : out;
}

module.exports = { createWorkload, describeWorkload };
