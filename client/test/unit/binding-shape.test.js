'use strict';
// One binding shape (docs/contracts.md §2a), checked for every folder of databases/ with a manifest,
// so a new database is checked by its folder alone: its binding offers every step kind, named by no
// workload; what a workload needs beyond them is its workload file (client/workloads/<workload>.js),
// whose presence is the offer, naming a workload of the client and exporting what that workload asks
// (its .workload.js `databaseNeeds`); its manifest lists no workloads. The same step kinds on the
// real servers: client/test/integration/binding-conformance.test.js.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const {
  manifests, bindingOf, offeredWorkloads, databaseWorkload, ROOT,
} = require('../../src/databases');
const registry = require('../../src/workloads/registry');
const { validateBenchText, InputError } = require('../../src/bench-schema');

// The step kinds: every workload's operations are made of these (and of its workload file's steps).
const STEP_KINDS = {
  connect: ['connect', 'close', 'reconnect', 'isConnectionLost', 'serverInfo', 'authenticatedIdentity'],
  init: ['init', 'createIndexes'],
  put: ['prepareInserts', 'build', 'send', 'putDocument'],
  get: ['get'],
  patch: ['patch'],
  scan: ['scan'],
  readBack: ['readBack'],
  transaction: ['prepareTransactions', 'transaction', 'transactionIsolation'],
  namedQuery: ['query', 'explain', 'isUnsupported'],
  stats: ['serverStats'],
  sizes: ['count', 'flush', 'settle'],
};

// Besides the step kinds, a binding may say what init does with LAYOUT (docs/contracts.md §2a).
const OPTIONAL = ['layoutNote'];

// The folders of databases/ holding a manifest (a new one is found here without a list).
const folders = () => fs.readdirSync(ROOT).filter((d) => fs.existsSync(path.join(ROOT, d, 'database.json'))).sort();

// Every method name of a class and its parents.
function methodsOf(Target) {
  const names = new Set();
  for (let p = Target.prototype; p && p !== Object.prototype; p = Object.getPrototypeOf(p)) {
    for (const n of Object.getOwnPropertyNames(p)) if (n !== 'constructor') names.add(n);
  }
  return names;
}

// The bindings' own code: the modules of every databases/<db>/client/ (a binding, its mixins and
// helpers, a parent binding's), not their workload files, query forms or commands. A step kind's
// own helper is called there (this.<name>, or target.<name> in a mixin's function).
const bindingCode = () => folders().map((d) => path.join(ROOT, d, 'client')).flatMap((dir) => fs.readdirSync(dir)
  .filter((f) => f.endsWith('.js')).map((f) => fs.readFileSync(path.join(dir, f), 'utf8'))).join('\n');

const WORKLOAD_WORD = new RegExp(`\\b(${registry.names().join('|')})\\b|workload`, 'i');

test('the folders checked are the manifests the client reads', () => {
  assert.deepEqual(folders(), Object.keys(manifests()));
  assert.ok(folders().length >= 4);
});

for (const db of folders()) {
  test(`${db}: its binding offers every step kind`, () => {
    const methods = methodsOf(bindingOf(db));
    const missing = Object.entries(STEP_KINDS).flatMap(([kind, names]) => names.filter((n) => !methods.has(n)).map((n) => `${kind}: ${n}`));
    assert.deepEqual(missing, [], `databases/${db}/client/${db}.js`);
  });

  test(`${db}: no method of its binding is a workload's, and its stats name none`, () => {
    const Target = bindingOf(db);
    const own = [...methodsOf(Target)].filter((n) => /booking|oltp|ycsb|events|tsbs/i.test(n));
    assert.deepEqual(own, []);
    assert.doesNotMatch(String(Target.prototype.serverStats), WORKLOAD_WORD);
  });

  // A method beyond the step kinds is the binding's own helper, which its step kinds call
  // (bindingCode): a step one workload's file calls (tsbs's ingest models: prepareModel,
  // insertDocument, upsertAppend, insertSeries, modelIndexes, compress) belongs in that file.
  test(`${db}: its methods are the step kinds and their own helpers, none a workload's step`, () => {
    const Target = bindingOf(db);
    const kinds = new Set([...Object.values(STEP_KINDS).flat(), ...OPTIONAL]);
    const source = bindingCode();
    const outside = [...methodsOf(Target)].filter((n) => !kinds.has(n) && !new RegExp(`\\b(this|target)\\.${n}\\b`).test(source)).sort();
    assert.deepEqual(outside, [], `databases/${db}/client/${db}.js: methods no step kind calls (a workload's: its workload file's)`);
    // the step kinds take no workload's storage: init(key, layout), count()
    assert.ok(Target.prototype.init.length <= 2, `init takes ${Target.prototype.init.length} arguments (allowed: key, layout)`);
    assert.equal(Target.prototype.count.length, 0, 'count takes no argument');
  });

  test(`${db}: its workload files name the client's workloads and export what each asks; its manifest lists none`, () => {
    const offered = offeredWorkloads(db);
    assert.ok(offered.length > 0, `databases/${db}/client/workloads/ offers nothing`);
    for (const w of offered) {
      assert.ok(registry.names().includes(w), `databases/${db}/client/workloads/${w}.js: no workload ${w} (allowed: ${registry.names().join(', ')})`);
      const file = databaseWorkload(db, w);
      const needs = registry.workload(w).databaseNeeds || [];
      assert.deepEqual(needs.filter((n) => file[n] === undefined), [], `databases/${db}/client/workloads/${w}.js`);
    }
    const m = manifests()[db];
    // tsbs: a step for each ingest model the manifest offers (offers.tsbs_models, default all),
    // and compress exactly where it offers compression
    if (offered.includes('tsbs')) {
      const file = databaseWorkload(db, 'tsbs');
      assert.deepEqual(Object.keys(file.models).sort(), [...(m.offers.tsbs_models || ['bucket', 'event', 'native'])].sort(), `databases/${db}/client/workloads/tsbs.js models`);
      assert.equal(typeof file.compress === 'function', Boolean(m.offers.compress), `databases/${db}/client/workloads/tsbs.js compress`);
    }
    assert.equal(m.offers.workloads, undefined, `databases/${db}/database.json offers.workloads`);
    // a workload the manifest says it refuses has no file
    for (const w of Object.keys(m.offers.refused_workloads || {})) assert.ok(!offered.includes(w), `${db}: refuses ${w} and has its file`);
  });
}

test('a workload a database has no file of is refused by validation, naming the database, the workload and what it offers', () => {
  const bench = 'DESCRIPTION=t\nWORKLOAD=ycsb\nKEY=uuidv7\nLAYOUT=clustered\nCLIENTS=1\nRATE=5\nFIELDS=10\nFIELD_BYTES=100\nDATABASES=postgres timescaledb\n';
  assert.throws(() => validateBenchText(bench, 'b/bench.env'), (err) => err instanceof InputError
    && err.message === 'b/bench.env:9: WORKLOAD=ycsb does not run on timescaledb: (databases/timescaledb/client/workloads/ has no '
      + 'ycsb.js; timescaledb offers WORKLOAD=tsbs); allowed with WORKLOAD=ycsb: DATABASES of mongodb, mysql, postgres');
  // the manifest's reason, when it gives one
  const tsbs = 'DESCRIPTION=t\nWORKLOAD=tsbs\nKEY=uuidv7\nLAYOUT=clustered\nCLIENTS=1\nRATE=5\nDATABASES=mysql\n';
  assert.throws(() => validateBenchText(tsbs, 'b/bench.env'), (err) => err instanceof InputError
    && err.message.startsWith('b/bench.env:7: WORKLOAD=tsbs does not run on mysql: TSBS has no MySQL target')
    && err.message.endsWith('(databases/mysql/client/workloads/ has no tsbs.js; mysql offers WORKLOAD=booking, events, insert, oltp, ycsb); '
      + 'allowed with WORKLOAD=tsbs: DATABASES of mongodb, postgres, timescaledb'));
  // the commands refuse it the same way with --uri (before connecting)
  assert.throws(() => databaseWorkload('timescaledb', 'booking'), (err) => err instanceof InputError
    && /^WORKLOAD=booking does not run on timescaledb: .*; allowed with WORKLOAD=booking: DATABASES of mongodb, mysql, postgres$/.test(err.message));
});
