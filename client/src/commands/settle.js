'use strict';
// `settle`: what a user does after a bulk load and before querying, outside any window, so that
// deferred work does not land in the next window: on PostgreSQL `VACUUM (ANALYZE) jsonbench`
// (planner statistics, visibility map, hint bits) then `CHECKPOINT`; on MongoDB `{fsync: 1}` (a
// WiredTiger checkpoint; no planner statistics to gather). Prints what it ran. The lab runs it after
// each load phase and before each query phase's quiet period (lab/driver/phase.py), and after `init` of a
// transaction workload, whose data init loads (booking: its five tables, oltp: sbtest; WORKLOAD).
const { connectTarget } = require('./connect');

// The tables PostgreSQL vacuums: the workload's own (its file's `tables`; undefined: jsonbench).
function tablesOf(workload) {
  const { tables } = require('../workloads/registry').workload(workload || 'insert');
  return tables ? tables() : undefined;
}

async function settle(opts) {
  const { target } = await connectTarget(opts, { patient: true });
  try {
    console.log(`settle: ${await target.settle(tablesOf(opts.workload))}`);
    return 0;
  } finally {
    await target.close();
  }
}

module.exports = { settle, tablesOf };
