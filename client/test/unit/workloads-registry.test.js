'use strict';
// client/src/workloads/registry.js: a workload is one file, <name>.workload.js, that declares its
// keys, phases, smoke-check sizes, construction and what analysis needs; the registry loads every
// such file, so a new file is a new WORKLOAD value, with its keys, phases and sizes, and nothing
// else in client/ changed. A key two files define differently is refused.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const registry = require('../../src/workloads/registry');
const { WORKLOADS, BENCH_SPECS } = require('../../src/bench-schema');
const shared = require('../../src/workloads/shared-keys');

const SRC = path.resolve(__dirname, '..', '..', 'src');
const REPO = path.resolve(SRC, '..', '..');

const tmp = (prefix) => fs.mkdtempSync(path.join(os.tmpdir(), prefix));

// A workload file that needs nothing but itself: one run phase of TICKS operations per client.
const DEMO = `'use strict';
module.exports = {
  name: 'demo', order: 7, documents: false, contextKeys: [],
  keys: {
    RATE: require('./shared-keys').RATE,
    TICKS: { type: 'int', min: 1, default: '7', about: 'operations per client' },
  },
  phases: (v, database) => [{ phase: database, database, stage: 'run', ops: v.TICKS, rate: v.RATE, expected_s: v.TICKS / v.RATE, clients: v.CLIENTS }],
  checkSize: (v, n) => ['TICKS=' + Math.max(1, n)],
  create: () => { throw new Error('demo has no client workload'); },
  describe: (opts, out) => out,
  analysis: { insert_ops: ['insert'], ingest: false, transactions: false, count_expected: { basis: 'inserted' } },
};
`;

test('the shipped workloads are the files of client/src/workloads/, in their order, and WORKLOAD allows exactly them', () => {
  const files = fs.readdirSync(path.join(SRC, 'workloads')).filter((f) => f.endsWith('.workload.js')).map((f) => f.replace('.workload.js', ''));
  assert.deepEqual([...files].sort(), [...WORKLOADS].sort());
  assert.deepEqual(WORKLOADS, ['insert', 'ycsb', 'tsbs', 'events', 'booking', 'oltp', 'globalsign']);
  assert.deepEqual(BENCH_SPECS.WORKLOAD.values, WORKLOADS);
  // every key a workload declares is a bench key, applying exactly where its workloads are
  for (const name of WORKLOADS) {
    for (const key of Object.keys(registry.workload(name).keys)) {
      assert.ok(BENCH_SPECS[key], key);
      assert.match(BENCH_SPECS[key].appliesAbout, /\S/);
    }
  }
  // a key several workloads read is one spec, applying to each of them
  assert.equal(BENCH_SPECS.OPS.appliesAbout, 'WORKLOAD=ycsb, booking, oltp or globalsign');
  assert.equal(BENCH_SPECS.QUERIES.appliesAbout, 'WORKLOAD=tsbs or events');
  assert.equal(BENCH_SPECS.THETA.appliesAbout, 'WORKLOAD=ycsb with DIST=zipfian or latest');
  assert.equal(BENCH_SPECS.POOL_MODE.appliesAbout, 'POOL=pgbouncer');
});

test('every workload file declares its analysis facts in the shape plan.schema.json gives', () => {
  const schema = JSON.parse(fs.readFileSync(path.join(SRC, 'plan.schema.json'), 'utf8')).properties.workload;
  for (const name of WORKLOADS) {
    const facts = registry.workload(name).analysis;
    assert.deepEqual(Object.keys(facts).sort(), schema.required.filter((k) => k !== 'name').sort(), name);
  }
  assert.equal(registry.workload('tsbs').analysis.ingest, true);
  assert.deepEqual(registry.workload('tsbs').analysis.insert_ops, ['insert', 'bucket']);
  assert.deepEqual(WORKLOADS.filter((w) => registry.workload(w).analysis.transactions), ['booking', 'oltp']);
});

test('a key two workload files define differently is refused, naming the key and both files', () => {
  const dir = tmp('jsonbench-workloads-');
  fs.copyFileSync(path.join(SRC, 'workloads', 'shared-keys.js'), path.join(dir, 'shared-keys.js'));
  fs.writeFileSync(path.join(dir, 'demo.workload.js'), DEMO);
  const other = DEMO.replace("name: 'demo', order: 7", "name: 'other', order: 8");
  // the same key, spelled the same way in a second file: one spec, accepted
  fs.writeFileSync(path.join(dir, 'other.workload.js'), other);
  const { workloads, keys } = registry.load(dir);
  assert.deepEqual(workloads.map((w) => w.name), ['demo', 'other']);
  assert.equal(keys.TICKS.appliesAbout, 'WORKLOAD=demo or other');
  assert.equal(keys.RATE.appliesAbout, shared.RATE.appliesAbout);
  assert.ok(keys.TICKS.appliesIf({ WORKLOAD: 'other' }) && !keys.TICKS.appliesIf({ WORKLOAD: 'insert' }));
  // defined differently (another default): refused
  const dir2 = tmp('jsonbench-workloads-');
  fs.copyFileSync(path.join(SRC, 'workloads', 'shared-keys.js'), path.join(dir2, 'shared-keys.js'));
  fs.writeFileSync(path.join(dir2, 'demo.workload.js'), DEMO);
  fs.writeFileSync(path.join(dir2, 'other.workload.js'), other.replace("default: '7'", "default: '8'"));
  assert.throws(() => registry.load(dir2), (err) => /key TICKS is defined differently/.test(err.message)
    && err.message.includes('other.workload.js') && err.message.includes('demo.workload.js'));
  fs.rmSync(dir, { recursive: true });
  fs.rmSync(dir2, { recursive: true });
});

test('a workload file must be named after its workload and declare what the registry needs', () => {
  const dir = tmp('jsonbench-workloads-');
  fs.copyFileSync(path.join(SRC, 'workloads', 'shared-keys.js'), path.join(dir, 'shared-keys.js'));
  fs.writeFileSync(path.join(dir, 'wrong.workload.js'), DEMO);
  assert.throws(() => registry.load(dir), /wrong\.workload\.js: name is "demo"/);
  fs.rmSync(path.join(dir, 'wrong.workload.js'));
  fs.writeFileSync(path.join(dir, 'demo.workload.js'), DEMO.replace(/ {2}checkSize: .*\n/, ''));
  assert.throws(() => registry.load(dir), /demo\.workload\.js: 'checkSize' is missing/);
  fs.rmSync(dir, { recursive: true });
});

test('a new workload is its file and a file per database offering it: in a copy of the client, it is a WORKLOAD with its keys, phases and check sizes', () => {
  // a copy of client/src beside a copy of databases/ (databases.js reads ../../databases)
  const root = tmp('jsonbench-client-');
  fs.cpSync(SRC, path.join(root, 'client', 'src'), { recursive: true });
  fs.cpSync(path.join(REPO, 'databases'), path.join(root, 'databases'), { recursive: true });
  // and the client's dependencies (plan --json checks its output with Ajv)
  fs.symlinkSync(path.join(REPO, 'client', 'node_modules'), path.join(root, 'client', 'node_modules'));
  fs.writeFileSync(path.join(root, 'client', 'src', 'workloads', 'demo.workload.js'), DEMO);
  const bench = path.join(root, 'bench.env');
  fs.writeFileSync(bench, 'DESCRIPTION=demo\nKEY=uuidv7\nLAYOUT=heap\nCLIENTS=2\nRATE=2\nWORKLOAD=demo\nTICKS=10\nDATABASES=postgres\n');
  const cli = (args) => spawnSync(process.execPath, [path.join(root, 'client', 'src', 'cli.js'), ...args], { encoding: 'utf8' });
  // no database offers it yet (no databases/<db>/client/workloads/demo.js): refused, naming the
  // database, the workload and what the database offers
  let r = cli(['validate-bench', bench]);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /bench\.env:8: WORKLOAD=demo does not run on postgres: \(databases\/postgres\/client\/workloads\/ has no demo\.js; postgres offers WORKLOAD=booking, events, globalsign, insert, oltp, tsbs, ycsb\); no database of the lab offers WORKLOAD=demo/);
  // PostgreSQL's file of it: offered there (and nowhere else)
  fs.writeFileSync(path.join(root, 'databases', 'postgres', 'client', 'workloads', 'demo.js'), "'use strict';\nmodule.exports = {};\n");
  r = cli(['plan', bench]);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), 'phase=postgres database=postgres stage=run ops=10 rate=2 expected_s=5 clients=2 query=-');
  r = cli(['plan', '--check-size', '20', bench]);
  assert.equal(r.stdout.trim(), 'TICKS=40');
  r = cli(['plan', '--json', bench]);
  const doc = JSON.parse(r.stdout);
  assert.deepEqual(doc.workload, { name: 'demo', ...JSON.parse(JSON.stringify(registry.load(path.join(root, 'client', 'src', 'workloads')).workloads.find((w) => w.name === 'demo').analysis)) });
  assert.ok(doc.settings.not_applicable.includes('DOCS') && !doc.settings.not_applicable.includes('TICKS'));
  // its key elsewhere is refused, naming the workload that has it
  fs.writeFileSync(bench, 'DESCRIPTION=x\nKEY=uuidv7\nLAYOUT=heap\nCLIENTS=1\nRATE=1\nDOCS=1\nFIELDS=1\nFIELD_BYTES=1\nTICKS=3\n');
  r = cli(['validate-bench', bench]);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /TICKS applies only with WORKLOAD=demo/);
  fs.rmSync(root, { recursive: true });
});
