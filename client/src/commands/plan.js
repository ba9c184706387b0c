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
// `plan --check-size SECONDS FILE`: the KEY=VALUE words the smoke check (lab/driver/check.py) adds to the
// bench so that client 1 runs about SECONDS at the bench's own rate: ceil(RATE x SECONDS) operations
// sized by the workload's file (checkSize), and with a query set its first query type, 10 executions.
// Every workload's part is its file's (workloads/<name>.workload.js): this file names none.
const path = require('path');
const {
  validateBenchText, parseEnvText, InputError, BENCH_SPECS, formatMix, workloadOf,
} = require('../bench-schema');
const { expected, phaseId, UNPACED_S_PER_QUERY } = require('../workloads/plan-helpers');
const { checked } = require('../check-schema');
const { groupsOf } = require('../groups');
const { fileAndSets, benchText } = require('../bench-file');

// Executions of the one query type the smoke check runs: enough for the database's CPU to count.
const CHECK_QUERY_RUNS = 10;

function readBench(file, sets = []) {
  return validateBenchText(benchText(file, sets), file);
}

const line = (p) => ({ ...p, query: '-' });

// [{ phase, database, stage, ops, rate, expected_s, clients, query }] for parsed bench values.
// Per database, in run order: the workload's load and/or run phase, then one query phase per query
// type (one client, QUERY_RUNS executions) on the data those left.
function phases(v, benchDir = '.') {
  const workload = workloadOf(v);
  const out = [];
  const groups = groupsOf(v);
  for (const database of v.DATABASES) {
    out.push(...workload.phases(v, database, benchDir).map(line).map((p) => (groups && p.stage === 'run' ? grouped(p, groups) : p)));
    for (const query of workload.querySet ? v.QUERIES : []) {
      out.push({
        phase: phaseId(database, 'query', query), database, stage: 'query', ops: v.QUERY_RUNS, rate: v.QUERY_RATE,
        expected_s: expected(v.QUERY_RUNS, v.QUERY_RATE, UNPACED_S_PER_QUERY), clients: 1, query,
      });
    }
  }
  return out;
}

// A run phase of client groups (groups.js): its clients run each group's OPS at its RATE, so the phase
// is as long as its longest group (expected_s, the lab's wait); ops and rate are that group's.
function grouped(p, groups) {
  const longest = groups.reduce((a, g) => (expected(g.ops, g.rate) > expected(a.ops, a.rate) ? g : a));
  return {
    ...p, ops: longest.ops, rate: longest.rate, expected_s: expected(longest.ops, longest.rate),
    groups: groups.map((g) => ({ ...g, mix: formatMix(g.mix) })),
  };
}

// The smoke check's overrides for SECONDS of load per database: ["KEY=VALUE", ...].
function checkSizes(v, seconds) {
  const workload = workloadOf(v);
  // per client: RATE per client (a workload without RATE, events, sizes itself)
  const n = Math.ceil((v.RATE || 0) * seconds);
  const words = workload.checkSize(v, n);
  if (workload.querySet && v.QUERIES.length) words.push(`QUERIES=${v.QUERIES[0]}`, `QUERY_RUNS=${CHECK_QUERY_RUNS}`);
  return words;
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

// The keys of the planned file as written (bench.env plus the --set overrides), {KEY: text}: what
// results.json's `config.run` shows. A repeated key keeps its first place and takes its last value,
// as analysis reads an env file (analysis/common/fileio.py read_env_file), so config.run is what it was
// when analysis read run.env.
function givenOf(text, file) {
  const entries = parseEnvText(text, file);
  const out = {};
  for (const raw of text.split(/\r?\n/)) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(raw.trim());
    if (m && !(m[1] in out)) out[m[1]] = entries.get(m[1]).value;
  }
  return out;
}

// Seconds a client keeps /metrics up after its run for the last scrape. A query client may run for
// well under a second: a new target reaches Prometheus's scrape manager up to 5 s after DNS discovery
// (1 s; its discovery manager batches updates every 5 s), then waits up to one interval (2 s) for its
// first scrape: 8 s, so its series exist (Grafana, `check`); the window is that much longer.
const metricsLingerS = (stage) => (stage === 'query' ? 8 : 3);

// The whole run as data. Per phase, `environment` is what that phase's clients get beyond
// settings.environment; `node client <command> --plan FILE --phase ID --client I` reads them
// (plan-options.js), the container keeping only its URI and mounts in its environment.
function planDocument(v, file, sets = []) {
  const { manifests } = require('../databases');
  const all = manifests();
  const values = {};
  for (const name of Object.keys(BENCH_SPECS)) values[name] = v[name] === undefined ? null : v[name];
  // QUERIES is resolved to its names only where it applies; elsewhere it holds its default's word
  if (!Array.isArray(values.QUERIES)) values.QUERIES = values.QUERIES === 'none' || !values.QUERIES ? [] : values.QUERIES.split(' ');
  return {
    schema_version: PLAN_SCHEMA_VERSION,
    bench_file: path.resolve(file),
    // the bench folder's name: the clients' BENCH label (results and metrics)
    bench: path.basename(path.dirname(path.resolve(file))),
    settings: {
      given: givenOf(benchText(file, sets), file),
      values,
      not_applicable: Object.keys(BENCH_SPECS).filter((name) => !applies(name, v)),
      environment: envValues(v),
    },
    databases: v.DATABASES.map((name) => databaseOf(all[name])),
    phases: phases(v, path.dirname(file)).map((p) => ({
      id: p.phase, database: p.database, stage: p.stage, ops: p.ops, rate: p.rate, expected_s: p.expected_s,
      clients: p.clients, query: p.query === '-' ? null : p.query,
      ...(p.groups ? { groups: p.groups } : {}),
      environment: { STAGE: p.stage, ...(p.query === '-' ? {} : { QUERY: p.query }) },
      metrics_linger_s: metricsLingerS(p.stage),
    })),
    repetitions: v.REPEAT,
    // what analysis needs of the workload (its file's `analysis`): analysis compares no workload names
    workload: { name: v.WORKLOAD, ...workloadOf(v).analysis },
  };
}

function plan(args) {
  const mode = ['--print-env', '--json', '--check-size'].includes(args[0]) ? args[0] : null;
  const seconds = mode === '--check-size' ? args[1] : null;
  const rest = mode ? args.slice(mode === '--check-size' ? 2 : 1) : args;
  const { file, sets } = fileAndSets(rest, 'plan: expected [--print-env | --json | --check-size SECONDS] FILE [--set KEY=VALUE]...');
  if (mode === '--check-size' && !/^[0-9]+(\.[0-9]+)?$/.test(seconds)) {
    throw new InputError(`plan --check-size: invalid SECONDS ${JSON.stringify(seconds)}; allowed: a number >= 0 (the smoke check's seconds per database, CHECK_SECONDS)`);
  }
  const v = readBench(file, sets);
  if (mode === '--check-size') {
    console.log(checkSizes(v, Number(seconds)).join(' '));
    return 0;
  }
  if (mode === '--print-env') {
    console.log(envText(v));
    return 0;
  }
  if (mode === '--json') {
    console.log(JSON.stringify(checked(planDocument(v, file, sets), 'plan', 'plan --json'), null, 2));
    return 0;
  }
  for (const p of phases(v, path.dirname(file))) {
    console.log(Object.entries(p).filter(([k]) => k !== 'groups').map(([k, x]) => `${k}=${x}`).join(' '));
  }
  return 0;
}

module.exports = { plan, phases, checkSizes, envText, envValues, planDocument, PLAN_SCHEMA_VERSION };
