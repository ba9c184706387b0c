'use strict';
// `plan FILE`: the phases of one repetition of a bench, one per line, in run
// order, as shell-readable words:
//   phase=<id> database=<db> stage=<load|run|query> ops=<per client> rate=<per client, 0 = unpaced>
//   expected_s=<s> clients=<n> query=<name, or - outside query phases>
// `plan --print-env FILE`: every bench key with its default filled in, as
// KEY='value' lines for bash (`eval`), so the lab never repeats a default.
// A key that does not apply to the file's workload prints as KEY='' (unset).
const fs = require('fs');
const { validateBenchText, InputError, BENCH_SPECS, formatMix } = require('../bench-schema');
const { loadedBy } = require('../workloads/ycsb');
const { eventCount } = require('../datasets/tsbs-event-keys');
const { hostsOfClient } = require('../datasets/tsbs-devops');

// Back-to-back inserts (LOAD_RATE=0) are timed at this per insert for
// expected_s: an upper estimate for a healthy database (the lab may exceed it).
const UNPACED_S_PER_OP = 0.01;
// A query executed back to back (QUERY_RATE=0) is timed at this for expected_s (likewise an upper
// estimate for the small data sets the lab ships; a large DATASET may exceed it).
const UNPACED_S_PER_QUERY = 5;

function readBench(file) {
  let text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new InputError(`${file}: cannot read: ${err.code || err.message}`);
  }
  return validateBenchText(text, file);
}

const expected = (ops, rate, unpacedS = UNPACED_S_PER_OP) => Number((rate > 0 ? ops / rate : ops * unpacedS).toFixed(3));

// Events client 1 ingests (it owns hosts 0, CLIENTS, 2*CLIENTS, ...: the most of any client).
function tsbsEventsOfClient1(v) {
  return eventCount({
    seed: v.SEED, hosts: v.HOSTS, start: v.START, intervalSeconds: v.INTERVAL_S, spanSeconds: v.SPAN_S,
    hostIds: hostsOfClient(v.HOSTS, v.CLIENTS, 0),
  });
}

// Events client 1 loads (event i goes to client i % CLIENTS + 1, as ycsb's records). A DATASET's
// lines are counted by datasets/dataset-file.js (relative paths from the bench folder).
function eventsOfClient1(v, benchDir) {
  if (!v.DATASET) return loadedBy(0, v.EVENTS, v.CLIENTS);
  const { countEvents } = require('../datasets/dataset-file');
  return loadedBy(0, countEvents(v.DATASET, benchDir), v.CLIENTS);
}

const line = (p) => ({ ...p, query: '-' });

// [{ phase, database, stage, ops, rate, expected_s, clients, query }] for parsed bench values.
// Per database, in run order: its load and/or run phase, then one query phase per query type
// (one client, QUERY_RUNS executions) on the data those left.
function phases(v, benchDir = '.') {
  const out = [];
  const c = v.CLIENTS;
  for (const database of v.DATABASES) {
    if (v.WORKLOAD === 'booking' || v.WORKLOAD === 'oltp') {
      // One run phase of OPS transactions per client (init loads the data outside the window).
      out.push(line({ phase: database, database, stage: 'run', ops: v.OPS, rate: v.RATE, expected_s: expected(v.OPS, v.RATE), clients: c }));
    } else if (v.WORKLOAD === 'ycsb') {
      // The client with the most records: client 1 (record r goes to client r % CLIENTS + 1).
      const loadOps = loadedBy(0, v.RECORDS, v.CLIENTS);
      out.push(line({ phase: `${database}-load`, database, stage: 'load', ops: loadOps, rate: v.LOAD_RATE, expected_s: expected(loadOps, v.LOAD_RATE), clients: c }));
      out.push(line({ phase: database, database, stage: 'run', ops: v.OPS, rate: v.RATE, expected_s: expected(v.OPS, v.RATE), clients: c }));
    } else if (v.WORKLOAD === 'tsbs') {
      // The ingest is the measured run stage (per-event costs); queries follow on its data.
      const ops = tsbsEventsOfClient1(v);
      out.push(line({ phase: database, database, stage: 'run', ops, rate: v.RATE, expected_s: expected(ops, v.RATE), clients: c }));
    } else if (v.WORKLOAD === 'events') {
      const ops = eventsOfClient1(v, benchDir);
      out.push(line({ phase: `${database}-load`, database, stage: 'load', ops, rate: v.LOAD_RATE, expected_s: expected(ops, v.LOAD_RATE), clients: c }));
    } else {
      out.push(line({ phase: database, database, stage: 'run', ops: v.DOCS, rate: v.RATE, expected_s: expected(v.DOCS, v.RATE), clients: c }));
    }
    for (const query of (v.WORKLOAD === 'tsbs' || v.WORKLOAD === 'events') ? v.QUERIES : []) {
      out.push({
        phase: `${database}-q-${query}`, database, stage: 'query', ops: v.QUERY_RUNS, rate: v.QUERY_RATE,
        expected_s: expected(v.QUERY_RUNS, v.QUERY_RATE, UNPACED_S_PER_QUERY), clients: 1, query,
      });
    }
  }
  return out;
}

const shellQuote = (s) => `'${String(s).replace(/'/g, "'\\''")}'`;

function envText(v) {
  return Object.keys(BENCH_SPECS).map((name) => {
    const value = v[name];
    let text;
    if (value === null || value === undefined) text = '';
    else if (name === 'QUERIES' && Array.isArray(value)) text = value.length ? value.join(' ') : 'none';
    else if (Array.isArray(value)) text = value.join(' ');
    else if (name === 'MIX') text = formatMix(value);
    else text = String(value);
    // Keys that do not apply print empty, so bash passes nothing the client would act on.
    const spec = BENCH_SPECS[name];
    if (spec.appliesIf && !spec.appliesIf(v)) text = '';
    return `${name}=${shellQuote(text)}`;
  }).join('\n');
}

function plan(args) {
  const printEnv = args[0] === '--print-env';
  const rest = printEnv ? args.slice(1) : args;
  if (rest.length !== 1) throw new InputError(`plan: expected [--print-env] FILE, got ${JSON.stringify(args)}`);
  const v = readBench(rest[0]);
  if (printEnv) {
    console.log(envText(v));
    return 0;
  }
  for (const p of phases(v, require('path').dirname(rest[0]))) {
    console.log(Object.entries(p).map(([k, x]) => `${k}=${x}`).join(' '));
  }
  return 0;
}

module.exports = { plan, phases, envText };
