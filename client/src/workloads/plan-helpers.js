'use strict';
// What a workload file's phases() and checkSize() share (workloads/*.workload.js, commands/plan.js).

// Back-to-back inserts (LOAD_RATE=0) are timed at this per insert for
// expected_s: an upper estimate for a healthy database (the lab may exceed it).
const UNPACED_S_PER_OP = 0.01;
// A query executed back to back (QUERY_RATE=0) is timed at this for expected_s (likewise an upper
// estimate for the small data sets the lab ships; a large DATASET may exceed it).
const UNPACED_S_PER_QUERY = 5;

const expected = (ops, rate, unpacedS = UNPACED_S_PER_OP) => Number((rate > 0 ? ops / rate : ops * unpacedS).toFixed(3));

// One measured phase of a database: `<db>` (stage run) or `<db>-load` (stage load).
function phase(database, stage, ops, rate, clients) {
  return { phase: stage === 'load' ? `${database}-load` : database, database, stage, ops, rate, expected_s: expected(ops, rate), clients };
}

module.exports = { UNPACED_S_PER_OP, UNPACED_S_PER_QUERY, expected, phase };
