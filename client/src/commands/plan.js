'use strict';
// `plan FILE`: the phases of one repetition of a bench, one per line, in run
// order, as shell-readable words:
//   phase=<id> database=<db> stage=<load|run> ops=<per client> rate=<per client, 0 = unpaced> expected_s=<s>
// `plan --print-env FILE`: every bench key with its default filled in, as
// KEY='value' lines for bash (`eval`), so the lab never repeats a default.
// A key that does not apply to the file's workload prints as KEY='' (unset).
const fs = require('fs');
const { validateBenchText, InputError, BENCH_SPECS, formatMix } = require('../bench-schema');
const { loadedBy } = require('../workloads/ycsb');

// Back-to-back inserts (LOAD_RATE=0) are timed at this per insert for
// expected_s: an upper estimate for a healthy database (the lab may exceed it).
const UNPACED_S_PER_OP = 0.01;

function readBench(file) {
  let text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new InputError(`${file}: cannot read: ${err.code || err.message}`);
  }
  return validateBenchText(text, file);
}

const expected = (ops, rate) => Number((rate > 0 ? ops / rate : ops * UNPACED_S_PER_OP).toFixed(3));

// [{ phase, database, stage, ops, rate, expected_s }] for parsed bench values.
function phases(v) {
  const out = [];
  for (const database of v.DATABASES) {
    if (v.WORKLOAD === 'ycsb') {
      // The client with the most records: client 1 (record r goes to client r % CLIENTS + 1).
      const loadOps = loadedBy(0, v.RECORDS, v.CLIENTS);
      out.push({ phase: `${database}-load`, database, stage: 'load', ops: loadOps, rate: v.LOAD_RATE, expected_s: expected(loadOps, v.LOAD_RATE) });
      out.push({ phase: database, database, stage: 'run', ops: v.OPS, rate: v.RATE, expected_s: expected(v.OPS, v.RATE) });
    } else {
      out.push({ phase: database, database, stage: 'run', ops: v.DOCS, rate: v.RATE, expected_s: expected(v.DOCS, v.RATE) });
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
  for (const p of phases(v)) {
    console.log(Object.entries(p).map(([k, x]) => `${k}=${x}`).join(' '));
  }
  return 0;
}

module.exports = { plan, phases, envText };
