'use strict';
// What a workload file's phases() and checkSize() share (workloads/*.workload.js, commands/plan.js),
// and the phase id (phaseId).

// Back-to-back inserts (LOAD_RATE=0) are timed at this per insert for
// expected_s: an upper estimate for a healthy database (the lab may exceed it).
const UNPACED_S_PER_OP = 0.01;
// A query executed back to back (QUERY_RATE=0) is timed at this for expected_s (likewise an upper
// estimate for the small data sets the lab ships; a large DATASET may exceed it).
const UNPACED_S_PER_QUERY = 5;

const expected = (ops, rate, unpacedS = UNPACED_S_PER_OP) => Number((rate > 0 ? ops / rate : ops * unpacedS).toFixed(3));

// The lab's phase id, the prefix of every file of the phase (docs/contracts.md §4): `<db>` (stage
// run), `<db>-load` (stage load), `<db>-q-<query>` (stage query). The client's one place for it:
// the plan's phases and the result file's `phase` (workloads/index.js) both take it from here.
function phaseId(database, stage, query) {
  if (stage === 'load') return `${database}-load`;
  if (stage === 'query') return `${database}-q-${query}`;
  return database;
}

// One measured phase of a database: `<db>` (stage run) or `<db>-load` (stage load).
function phase(database, stage, ops, rate, clients) {
  return { phase: phaseId(database, stage), database, stage, ops, rate, expected_s: expected(ops, rate), clients };
}

module.exports = { UNPACED_S_PER_OP, UNPACED_S_PER_QUERY, expected, phase, phaseId };
