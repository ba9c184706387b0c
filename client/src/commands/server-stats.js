'use strict';
// `server-stats`: the server's own operation counters as one JSON object on
// stdout. The lab reads them at both edges of a phase window and analysis
// reconciles their deltas with what the clients did (foreign work in the
// window shows up as work nobody in the lab asked for).
const { connectTarget } = require('./connect');
const { checked } = require('../check-schema');
const { workload } = require('../workloads/registry');
const { offeredWorkloads, databaseWorkload } = require('../databases');

async function serverStats(opts) {
  // the workload's own tables (booking's five, oltp's sbtest): their write counters are read one by
  // one, so reconciliation can hold each to what the lab wrote there
  const w = opts.workload ? workload(opts.workload) : null;
  // (a workload whose phases are reconciled by server-wide counters says which, if any: statsTables)
  let tables = w && w.tables ? w.tables() : [];
  if (w && w.statsTables) tables = w.statsTables();
  const { target, server } = await connectTarget(opts);
  try {
    const stats = await target.serverStats(server, tables);
    // what each `run` session sends besides its operations: the binding's step kinds', unless the
    // database's workload file says its sessions send something else (runSession)
    const own = opts.workload && offeredWorkloads(opts.database).includes(opts.workload) ? databaseWorkload(opts.database, opts.workload) : {};
    if (own.runSession) stats.run_session = own.runSession;
    // stats.server ({name, version, ...}: read with the counters) replaces the connect-time one.
    // one reading, as client/src/server-stats.schema.json has it (the lab pairs two of them)
    console.log(JSON.stringify(checked({
      database: opts.database, server, taken_at: Date.now() / 1000, ...stats,
    }, 'server-stats#/$defs/reading', 'server-stats reading')));
    return 0;
  } finally {
    await target.close();
  }
}

module.exports = { serverStats };
