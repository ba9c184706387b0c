'use strict';
// One binding shape (docs/contracts.md §2a), checked for every folder of databases/ with a manifest,
// so a new database is checked by its folder alone: its binding offers every step kind, named by no
// workload; what a workload needs beyond them is its workload file (client/workloads/<workload>.js),
// whose presence is the offer, naming a workload of the client and exporting what that workload asks
// (its .workload.js `databaseNeeds`); its manifest lists no workloads. The same step kinds on the
// real servers: client/test/integration/binding-conformance.test.js, which also runs each workload
// file on a binding that records what the file touches (a step kind only).
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const {
  manifests, bindingOf, offeredWorkloads, databaseWorkload, ROOT,
} = require('../../src/databases');
const registry = require('../../src/workloads/registry');
const { validateBenchText, InputError } = require('../../src/bench-schema');

// The step kinds, and what a workload file may take of a binding (client/test/helpers/step-kinds.js).
const { STEP_KINDS, OPTIONAL, WORKLOAD_FILE_MAY_USE } = require('../helpers/step-kinds');

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

// A file's code without its comments (strings, template literals and regular expression literals
// kept whole, so a '//' in a URI or a quote in a regular expression is not taken for a comment);
// quotes: false empties the '...' and "..." strings too.
function codeOf(text, { quotes = true } = {}) {
  let out = '';
  let i = 0;
  let last = ''; // the last character of code that is not white space (tells a regex from a division)
  while (i < text.length) {
    const c = text[i];
    const two = text.slice(i, i + 2);
    if (two === '//') { while (i < text.length && text[i] !== '\n') i++; continue; }
    if (two === '/*') { const end = text.indexOf('*/', i + 2); i = end < 0 ? text.length : end + 2; continue; }
    let end = i + 1;
    if (c === "'" || c === '"' || c === '`' || (c === '/' && (last === '' || /[(,=:[!&|?{};+\-*%<>~^]/.test(last)))) {
      let inClass = false;
      while (end < text.length && (text[end] !== c || inClass)) {
        if (text[end] === '\\') end++;
        else if (c === '/' && text[end] === '[') inClass = true;
        else if (c === '/' && text[end] === ']') inClass = false;
        end++;
      }
      end++;
    }
    out += !quotes && (c === "'" || c === '"') ? c + c : text.slice(i, end);
    if (!/\s/.test(text[end - 1])) last = text[end - 1];
    i = end;
  }
  return out;
}

// The workload names a binding's code (comments apart) uses, with their lines. `insert` is also
// the databases' own word (INSERT, the put statement, MongoDB's insert counter): caught only as a
// WORKLOAD value (WORKLOAD=insert, a comparison with 'insert'); the other names are no database's
// word and are caught anywhere in the code. So is the run's workload itself (`workload`, as
// opts.workload): a binding that reads it acts or speaks for a workload.
const VOCABULARY = ['insert'];
function workloadNamesIn(text) {
  const names = registry.names();
  const anywhere = new RegExp(`\\b(${names.filter((n) => !VOCABULARY.includes(n)).join('|')})\\b`, 'i');
  const asValue = new RegExp(`WORKLOAD=(${VOCABULARY.join('|')})\\b|[=!]==?\\s*['"\`](${VOCABULARY.join('|')})['"\`]|['"\`](${VOCABULARY.join('|')})['"\`]\\s*[=!]==?`);
  return codeOf(text).split('\n').map((line, i) => [i + 1, line]).filter(([, line]) => anywhere.test(line) || asValue.test(line) || /\bworkload\b/.test(line))
    .map(([n, line]) => `${n}: ${line.trim()}`);
}

// A workload file's code (the file and the modules of its folder workloads/<name>/): every use of
// the binding it is given (`target`) that is not a call of a step kind: another property read or
// set (target.conn, target.flushTables = ...), an index (target[...]), the binding taken apart
// (const { db } = target) or passed on under another name (const t = target).
function bindingUsesIn(text, allowed) {
  const code = codeOf(text, { quotes: false });
  const out = [];
  for (const m of code.matchAll(/\btarget\s*\.\s*([A-Za-z_$][\w$]*)/g)) if (!allowed.has(m[1])) out.push(`target.${m[1]}`);
  for (const m of code.matchAll(/\btarget\s*\[|(?:=|\bof|\bin)\s*target\b\s*(?![\w$.([])/g)) out.push(m[0].trim());
  return out;
}

// The files of a database's workload files and their folders (workloads/<name>/*.js).
function workloadCode(db) {
  const dir = path.join(ROOT, db, 'client', 'workloads');
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (e.isFile() && e.name.endsWith('.js')) return [path.join(dir, e.name)];
    if (!e.isDirectory()) return [];
    return fs.readdirSync(path.join(dir, e.name)).filter((f) => f.endsWith('.js')).map((f) => path.join(dir, e.name, f));
  });
}

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

  test(`${db}: its binding's code names no workload (comments apart)`, () => {
    const dir = path.join(ROOT, db, 'client');
    const found = fs.readdirSync(dir).filter((f) => f.endsWith('.js'))
      .flatMap((f) => workloadNamesIn(fs.readFileSync(path.join(dir, f), 'utf8')).map((l) => `databases/${db}/client/${f}:${l}`));
    assert.deepEqual(found, [], 'what a workload needs of this database is its workload file\'s (client/workloads/<workload>.js)');
  });

  test(`${db}: its workload files use the binding through its step kinds only`, () => {
    const files = workloadCode(db);
    assert.ok(files.length > 0);
    const found = files.flatMap((f) => bindingUsesIn(fs.readFileSync(f, 'utf8'), WORKLOAD_FILE_MAY_USE).map((u) => `${path.relative(ROOT, f)}: ${u}`));
    assert.deepEqual(found, [], 'a workload file keeps its own state and reaches the binding by its step kinds (handle(): the driver\'s session)');
  });

  test(`${db}: a folder of workloads/ holds the modules of a workload it offers, none of them taken for a workload`, () => {
    const dir = path.join(ROOT, db, 'client', 'workloads');
    const folders = fs.readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
    const offered = offeredWorkloads(db);
    assert.deepEqual(folders.filter((f) => !offered.includes(f)), [], `databases/${db}/client/workloads/: a folder of no workload file`);
    assert.deepEqual(offered.filter((w) => !fs.statSync(path.join(dir, `${w}.js`)).isFile()), []);
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
    && err.message.endsWith('(databases/mysql/client/workloads/ has no tsbs.js; mysql offers WORKLOAD=booking, events, globalsign, insert, oltp, ycsb); '
      + 'allowed with WORKLOAD=tsbs: DATABASES of mongodb, postgres, timescaledb'));
  // the commands refuse it the same way with --uri (before connecting)
  assert.throws(() => databaseWorkload('timescaledb', 'booking'), (err) => err instanceof InputError
    && /^WORKLOAD=booking does not run on timescaledb: .*; allowed with WORKLOAD=booking: DATABASES of mongodb, mysql, postgres$/.test(err.message));
});

// The checks above see what they are for (each line as a workload file or a binding could write it).
test('the workload-name and binding-use checks see each way round', () => {
  const allowed = new Set(['send', 'handle', 'prepareInserts']);
  assert.deepEqual(bindingUsesIn("const f = (target) => target.collection.updateOne({});\ntarget.flushTables = ['a'];", allowed),
    ['target.collection', 'target.flushTables']);
  assert.deepEqual(bindingUsesIn('const { db } = target;\nconst t = target;\nconst x = target[name];', allowed), ['= target', '= target', 'target[']);
  assert.deepEqual(bindingUsesIn("// target.conn in a comment\nconst db = target.handle(); target.send(doc); const u = 'target.uri';", allowed), []);
  assert.deepEqual(workloadNamesIn("async prepareTransactions({ workload }) { if (workload === 'booking') x(); }"), ["1: async prepareTransactions({ workload }) { if (workload === 'booking') x(); }"]);
  assert.deepEqual(workloadNamesIn("const s = `WORKLOAD=insert`;\nif (w !== 'insert') y();"), ['1: const s = `WORKLOAD=insert`;', "2: if (w !== 'insert') y();"]);
  assert.deepEqual(workloadNamesIn('prepareTransactions(opts) { return requireReplicaSet(this.client, opts.workload); }'),
    ['1: prepareTransactions(opts) { return requireReplicaSet(this.client, opts.workload); }']);
  assert.deepEqual(workloadNamesIn("// booking's tables, oltp's sbtest\nconst OPS = ['insert', 'query'];\nconst u = 'http://x'; /* tsbs */ const q = /\"/g; const sql = 'INSERT INTO t';"), []);
});

// A workload's own modules sit in a folder beside its file (workloads/<name>/): discovery takes
// the files of workloads/ only, so neither such a module nor a folder is offered as a workload,
// and a query set's forms are the file queries/<set>.js alone.
test('a workload file\'s folder of modules is neither a workload nor a query set', () => {
  const os = require('os');
  const { withForms } = require('../../src/queries');
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'jsonbench-databases-'));
  try {
    const client = path.join(root, 'demo', 'client');
    fs.mkdirSync(path.join(client, 'workloads', 'tsbs'), { recursive: true });
    fs.mkdirSync(path.join(client, 'workloads', 'helpers.js'));
    fs.mkdirSync(path.join(client, 'queries', 'tsbs'), { recursive: true });
    fs.writeFileSync(path.join(root, 'demo', 'database.json'), JSON.stringify({ name: 'demo', offers: {} }));
    fs.writeFileSync(path.join(client, 'workloads', 'tsbs.js'), 'module.exports = {};\n');
    fs.writeFileSync(path.join(client, 'workloads', 'tsbs', 'models.js'), 'module.exports = {};\n');
    fs.writeFileSync(path.join(client, 'workloads', 'tsbs', 'ycsb.js'), 'module.exports = {};\n');
    fs.writeFileSync(path.join(client, 'queries', 'tsbs', 'q1.js'), 'throw new Error("a helper loaded as forms");\n');
    assert.deepEqual(offeredWorkloads('demo', root), ['tsbs']);
    const set = { queries: { q1: { digest: { columns: [] } } } };
    assert.deepEqual(Object.keys(withForms(set, 'tsbs', root).queries.q1), ['digest']);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});
