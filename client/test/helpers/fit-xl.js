'use strict';
// The data-larger-than-memory pair (ycsb-c-fit/ and ycsb-c-xl/, issue 28) at CI scale against one real
// server: the shipped bench files' own keys, the cache and the records scaled down by the same
// factor (the cache is `cacheMb` instead of the files' CACHE_MB), loaded by the workload's own
// clients (`node client run`, STAGE=load, back to back) and read by its YCSB C run; the server's own
// read counter read by `server-stats` just before and after the run stage, as the lab brackets a
// window. Returns what runs[].read_io.server takes: the counter's bytes per acknowledged read.
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { runCli } = require('./run-cli');
const { validateBenchText } = require('../../src/bench-schema');

const ROOT = path.resolve(__dirname, '../../..');
const CLIENTS = 4;
const OPS = 500; // reads per client: 2,000 in all

const benchOf = (name) => validateBenchText(fs.readFileSync(path.join(ROOT, name, 'bench.env'), 'utf8'), `${name}/bench.env`);

async function stats(uri) {
  const r = await runCli(['server-stats', '--uri', uri], { timeoutMs: 60000 });
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

// Each client of a stage at once; their result files read back.
async function stage(env, name, extra) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jsonbench-fitxl-'));
  try {
    const runs = await Promise.all(Array.from({ length: CLIENTS }, (_, i) => runCli(['run'], {
      env: { ...env, STAGE: name, CLIENT_ID: String(i + 1), RESULT: path.join(dir, `${i + 1}.json`), ...extra }, timeoutMs: 240000,
    })));
    runs.forEach((r) => assert.equal(r.code, 0, r.stderr + r.stdout));
    return runs.map((_, i) => JSON.parse(fs.readFileSync(path.join(dir, `${i + 1}.json`), 'utf8')));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// bytes(counters before, after) -> the window's bytes of the server's read counter.
// beforeRun/afterRun: called just inside the server's readings (a kernel reading of the container);
// afterRun's object is merged into the answer.
async function readBytesPerOp({
  uri, bench, cacheMb, bytes, beforeRun = () => {}, afterRun = () => ({}),
}) {
  const v = benchOf(bench);
  const records = Math.round((v.RECORDS * cacheMb) / v.CACHE_MB);
  const env = {
    URI: uri, WORKLOAD: 'ycsb', MIX: 'C', DIST: v.DIST, KEY: v.KEY, LAYOUT: v.LAYOUT, FIELDS: String(v.FIELDS),
    FIELD_BYTES: String(v.FIELD_BYTES), KEY_FORMAT: v.KEY_FORMAT, SEED: String(v.SEED), DURABILITY: 'relaxed',
    CLIENTS: String(CLIENTS), RECORDS: String(records),
  };
  assert.equal((await runCli(['init'], { env })).code, 0);
  await stage(env, 'load', { LOAD_RATE: '0', RATE: '1000', OPS: String(OPS) });
  const a = await stats(uri);
  beforeRun();
  const results = await stage(env, 'run', { RATE: '1000', OPS: String(OPS) });
  const extra = afterRun();
  const b = await stats(uri);
  const reads = results.reduce((n, r) => n + r.operations.read.ok, 0);
  assert.equal(reads, CLIENTS * OPS);
  return {
    records, reads, bytes: bytes(a.counters, b.counters), perOp: bytes(a.counters, b.counters) / reads, ...extra,
  };
}

module.exports = { readBytesPerOp, benchOf };
