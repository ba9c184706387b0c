'use strict';
// `plan FILE`: the phases of one repetition of a bench, one per line, in run
// order, as shell-readable words:
//   phase=<id> database=<db> stage=<load|run|query> ops=<per client> rate=<per client, 0 = unpaced>
//   expected_s=<s> clients=<n> query=<name, or - outside query phases>
// `plan --print-env FILE`: every bench key with its default filled in, as
// KEY='value' lines for bash (`eval`), so the lab never repeats a default.
// A key that does not apply to the file's workload prints as KEY='' (unset).
// `plan --json FILE`: the whole run as one document (settings, databases, phases, repetitions),
// the lab's benchN/plan.json; its schema is client/src/plan.schema.json (docs/contracts.md §1).
const fs = require('fs');
const path = require('path');
const { validateBenchText, InputError, BENCH_SPECS, formatMix } = require('../bench-schema');
const { loadedBy } = require('../workloads/ycsb');
const { eventCount } = require('../datasets/tsbs-event-keys');
const { hostsOfClient } = require('../datasets/tsbs-devops');
const { checked } = require('../check-schema');

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

const applies = (name, v) => !BENCH_SPECS[name].appliesIf || BENCH_SPECS[name].appliesIf(v);

// {KEY: text} of every bench key as the clients get it in their environment (the bench file's
// words: lists space-separated, MIX as op=w,...). Keys that do not apply are empty, so bash passes
// nothing the client would act on.
function envValues(v) {
  const out = {};
  for (const name of Object.keys(BENCH_SPECS)) {
    const value = v[name];
    let text;
    if (value === null || value === undefined || !applies(name, v)) text = '';
    else if (name === 'QUERIES' && Array.isArray(value)) text = value.length ? value.join(' ') : 'none';
    else if (Array.isArray(value)) text = value.join(' ');
    else if (name === 'MIX') text = formatMix(value);
    else text = String(value);
    out[name] = text;
  }
  return out;
}

function envText(v) {
  return Object.entries(envValues(v)).map(([name, text]) => `${name}=${shellQuote(text)}`).join('\n');
}

// Bumped when a field changes meaning or goes away (a new field is not a new version).
const PLAN_SCHEMA_VERSION = 1;

// The manifest fields the lab and analysis use of each database of the run (databases/<name>/database.json).
function databaseOf(m) {
  return {
    name: m.name, label: m.label, service: m.service, volume: m.volume, processes: m.processes,
    server_stats_name: m.server_stats_name,
    standin: m.standin ? { label: m.standin.label, processes: m.standin.processes } : null,
  };
}

// The whole run as data. Per phase, `environment` is what that phase's clients get beyond
// settings.environment (the lab adds each client's CLIENT_ID, RESULT, URI and metrics port).
function planDocument(v, file) {
  const { manifests } = require('../databases');
  const all = manifests();
  const values = {};
  for (const name of Object.keys(BENCH_SPECS)) values[name] = v[name] === undefined ? null : v[name];
  // QUERIES is resolved to its names only where it applies; elsewhere it holds its default's word
  if (!Array.isArray(values.QUERIES)) values.QUERIES = values.QUERIES === 'none' || !values.QUERIES ? [] : values.QUERIES.split(' ');
  return {
    schema_version: PLAN_SCHEMA_VERSION,
    bench_file: path.resolve(file),
    settings: {
      values,
      not_applicable: Object.keys(BENCH_SPECS).filter((name) => !applies(name, v)),
      environment: envValues(v),
    },
    databases: v.DATABASES.map((name) => databaseOf(all[name])),
    phases: phases(v, path.dirname(file)).map((p) => ({
      id: p.phase, database: p.database, stage: p.stage, ops: p.ops, rate: p.rate, expected_s: p.expected_s,
      clients: p.clients, query: p.query === '-' ? null : p.query,
      environment: { STAGE: p.stage, ...(p.query === '-' ? {} : { QUERY: p.query }) },
    })),
    repetitions: v.REPEAT,
  };
}

function plan(args) {
  const mode = ['--print-env', '--json'].includes(args[0]) ? args[0] : null;
  const rest = mode ? args.slice(1) : args;
  if (rest.length !== 1) throw new InputError(`plan: expected [--print-env | --json] FILE, got ${JSON.stringify(args)}`);
  const v = readBench(rest[0]);
  if (mode === '--print-env') {
    console.log(envText(v));
    return 0;
  }
  if (mode === '--json') {
    console.log(JSON.stringify(checked(planDocument(v, rest[0]), 'plan', 'plan --json'), null, 2));
    return 0;
  }
  for (const p of phases(v, path.dirname(rest[0]))) {
    console.log(Object.entries(p).map(([k, x]) => `${k}=${x}`).join(' '));
  }
  return 0;
}

module.exports = { plan, phases, envText, envValues, planDocument, PLAN_SCHEMA_VERSION };
