'use strict';
// `settle`: what a user does after a bulk load and before querying, outside any window: on
// PostgreSQL `VACUUM (ANALYZE) jsonbench` (planner statistics and the visibility map, so the query
// plans do not change when autovacuum gets to the table in the middle of a query window); MongoDB
// keeps no planner statistics (its planner trial-runs candidate plans): nothing to do. Prints what
// it ran. The lab runs it before each query phase's quiet period.
const { connectTarget } = require('./connect');

async function settle(opts) {
  const { target } = await connectTarget(opts, { patient: true });
  try {
    console.log(`settle: ${await target.settle()}`);
    return 0;
  } finally {
    await target.close();
  }
}

module.exports = { settle };
