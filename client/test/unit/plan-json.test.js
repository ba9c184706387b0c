'use strict';
// `node client plan --json`: the whole run as one document, checked against client/src/plan.schema.json
// where it is written (a small validator of the keywords that schema uses: the client has no JSON
// Schema library, and analysis checks the same file with jsonschema where it reads it).
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');
const { validateBenchText, BENCH_SPECS } = require('../../src/bench-schema');
const { phases, planDocument, envText } = require('../../src/commands/plan');

const ROOT = path.resolve(__dirname, '../../..');
const CLI = path.join(ROOT, 'client', 'src', 'cli.js');
const SCHEMA = JSON.parse(fs.readFileSync(path.join(ROOT, 'client', 'src', 'plan.schema.json'), 'utf8'));
const shipped = fs.readdirSync(ROOT).filter((d) => fs.existsSync(path.join(ROOT, d, 'bench.env'))).sort();

const typeOf = (x) => (x === null ? 'null' : Array.isArray(x) ? 'array' : Number.isInteger(x) ? 'integer' : typeof x);
const isType = (x, t) => typeOf(x) === t || (t === 'number' && typeOf(x) === 'integer');

// The errors of `doc` against `schema` ([] = valid): type, const, enum, pattern, minLength, minimum,
// minItems, uniqueItems, required, properties, additionalProperties, propertyNames, items, oneOf.
function errors(doc, schema, where = '$') {
  const out = [];
  const types = schema.type === undefined ? null : [].concat(schema.type);
  if (types && !types.some((t) => isType(doc, t))) return [`${where}: ${typeOf(doc)} is not ${types.join('|')}`];
  if ('const' in schema && doc !== schema.const) out.push(`${where}: not ${JSON.stringify(schema.const)}`);
  if (schema.enum && !schema.enum.includes(doc)) out.push(`${where}: ${JSON.stringify(doc)} not in ${schema.enum.join('|')}`);
  if (typeof doc === 'string') {
    if (schema.pattern && !new RegExp(schema.pattern, 'u').test(doc)) out.push(`${where}: ${doc} does not match ${schema.pattern}`);
    if (schema.minLength !== undefined && doc.length < schema.minLength) out.push(`${where}: too short`);
  }
  if (typeof doc === 'number' && schema.minimum !== undefined && doc < schema.minimum) out.push(`${where}: below ${schema.minimum}`);
  if (Array.isArray(doc)) {
    if (schema.minItems !== undefined && doc.length < schema.minItems) out.push(`${where}: fewer than ${schema.minItems} items`);
    if (schema.uniqueItems && new Set(doc.map((x) => JSON.stringify(x))).size !== doc.length) out.push(`${where}: items repeat`);
    if (schema.items) doc.forEach((x, i) => out.push(...errors(x, schema.items, `${where}[${i}]`)));
  }
  if (typeOf(doc) === 'object') {
    for (const k of schema.required || []) if (!(k in doc)) out.push(`${where}: ${k} missing`);
    for (const [k, x] of Object.entries(doc)) {
      if (schema.propertyNames) out.push(...errors(k, schema.propertyNames, `${where} key ${k}`));
      if (schema.properties && k in schema.properties) out.push(...errors(x, schema.properties[k], `${where}.${k}`));
      else if (schema.additionalProperties === false) out.push(`${where}: ${k} not allowed`);
      else if (typeof schema.additionalProperties === 'object') out.push(...errors(x, schema.additionalProperties, `${where}.${k}`));
    }
  }
  if (schema.oneOf) {
    const fits = schema.oneOf.filter((s) => errors(doc, s, where).length === 0).length;
    if (fits !== 1) out.push(`${where}: fits ${fits} of oneOf's ${schema.oneOf.length}`);
  }
  return out;
}

const planOf = (name) => planDocument(
  validateBenchText(fs.readFileSync(path.join(ROOT, name, 'bench.env'), 'utf8'), `${name}/bench.env`), path.join(ROOT, name, 'bench.env'));

test('the validator refuses what the schema refuses (it can fail)', () => {
  const doc = planOf('bench1');
  assert.deepEqual(errors(doc, SCHEMA), []);
  assert.match(errors({ ...doc, schema_version: 2 }, SCHEMA).join(), /schema_version: not 1/);
  assert.match(errors({ ...doc, extra: 1 }, SCHEMA).join(), /extra not allowed/);
  assert.match(errors({ ...doc, phases: [{ ...doc.phases[0], stage: 'warmup' }] }, SCHEMA).join(), /stage.*not in load\|run\|query/);
  assert.match(errors({ ...doc, phases: [{ ...doc.phases[0], ops: '5' }] }, SCHEMA).join(), /ops: string is not integer/);
  assert.match(errors({ ...doc, databases: [{ ...doc.databases[0], standin: { label: 'x' } }] }, SCHEMA).join(), /fits 0 of oneOf/);
});

test('every shipped bench plans a document the schema accepts, with the line form\'s phases and --print-env\'s environment', () => {
  for (const name of shipped) {
    const file = path.join(ROOT, name, 'bench.env');
    const v = validateBenchText(fs.readFileSync(file, 'utf8'), file);
    const doc = planDocument(v, file);
    assert.deepEqual(errors(doc, SCHEMA), [], name);
    assert.deepEqual(doc.phases.map((p) => [p.id, p.database, p.stage, p.ops, p.rate, p.expected_s, p.clients, p.query ?? '-']),
      phases(v, path.dirname(file)).map((p) => [p.phase, p.database, p.stage, p.ops, p.rate, p.expected_s, p.clients, p.query]), name);
    assert.deepEqual(Object.keys(doc.settings.values), Object.keys(BENCH_SPECS), name);
    assert.equal(Object.entries(doc.settings.environment).map(([k, x]) => `${k}='${x.replace(/'/g, "'\\''")}'`).join('\n'), envText(v), name);
    assert.deepEqual(doc.databases.map((d) => d.name), v.DATABASES, name);
    assert.equal(doc.repetitions, v.REPEAT, name);
  }
});

test('settings are typed, defaults filled in, and the keys that do not apply are listed and empty in the environment', () => {
  const ycsb = planOf('ycsb-a');
  assert.deepEqual([typeOf(ycsb.settings.values.RECORDS), typeOf(ycsb.settings.values.CLIENTS)], ['integer', 'integer']);
  assert.deepEqual(ycsb.settings.values.DATABASES, ['mongodb', 'postgres']);
  assert.equal(typeOf(ycsb.settings.values.MIX), 'object');
  assert.equal(ycsb.settings.values.THETA, 0.99);
  assert.ok(ycsb.settings.not_applicable.includes('DOCS') && !ycsb.settings.not_applicable.includes('MIX'));
  assert.equal(ycsb.settings.environment.DOCS, '');
  assert.deepEqual(ycsb.phases.map((p) => p.environment), [{ STAGE: 'load' }, { STAGE: 'run' }, { STAGE: 'load' }, { STAGE: 'run' }]);
  const q = planOf('tsbs-queries');
  assert.ok(q.settings.values.QUERIES.length > 1);
  const lastpoint = q.phases.find((p) => p.id === 'postgres-q-lastpoint');
  assert.deepEqual([lastpoint.query, lastpoint.clients, lastpoint.environment], ['lastpoint', 1, { STAGE: 'query', QUERY: 'lastpoint' }]);
  assert.deepEqual(planOf('bench1').settings.values.QUERIES, []);  // does not apply: no query names
});

test('databases carry their manifest\'s identity and stand-in; REPEAT is the repetitions', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plan-json-'));
  try {
    const file = path.join(dir, 'run.env');
    fs.writeFileSync(file, `${fs.readFileSync(path.join(ROOT, 'bench1', 'bench.env'), 'utf8')}\nREPEAT=3\nDATABASES="postgres mysql"\n`);
    const doc = JSON.parse(execFileSync(process.execPath, [CLI, 'plan', '--json', file], { encoding: 'utf8' }));
    assert.deepEqual(errors(doc, SCHEMA), []);
    assert.equal(doc.repetitions, 3);
    assert.equal(doc.bench_file, file);
    for (const d of doc.databases) {
      const m = JSON.parse(fs.readFileSync(path.join(ROOT, 'databases', d.name, 'database.json'), 'utf8'));
      assert.deepEqual([d.service, d.volume, d.label, d.standin.label], [m.service, m.volume, m.label, m.standin.label]);
    }
    assert.deepEqual(doc.phases.map((p) => p.id), ['postgres', 'mysql']);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the plan holds what run.env held (settings.given: results.json config.run), the folder\'s name and each phase\'s linger', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plan-json-'));
  try {
    const bench = path.join(dir, 'bench7');
    fs.mkdirSync(bench);
    const file = path.join(bench, 'bench.env');
    // a --set override of a key bench.env has keeps its first place and takes its last value
    const base = fs.readFileSync(path.join(ROOT, 'bench1', 'bench.env'), 'utf8');
    fs.writeFileSync(file, `${base}\n# a comment\nDATABASES='mongodb postgres'\nDOCS=100 # trailing\nDATABASES='postgres'\nSEED=7\n`);
    const written = {};
    for (const line of base.split('\n')) {
      const m = /^([A-Z_]+)=(.*)$/.exec(line.trim());
      if (m) written[m[1]] = m[2].replace(/^"(.*)"$/, '$1').replace(/^'(.*)'$/, '$1').replace(/\s+#.*$/, '').trim();
    }
    const doc = JSON.parse(execFileSync(process.execPath, [CLI, 'plan', '--json', file], { encoding: 'utf8' }));
    assert.deepEqual(errors(doc, SCHEMA), []);
    assert.equal(doc.bench, 'bench7');
    const expected = { ...written, DATABASES: 'postgres', DOCS: '100', SEED: '7' };
    assert.deepEqual(Object.keys(doc.settings.given), [...new Set([...Object.keys(written), 'DATABASES', 'DOCS', 'SEED'])]);
    assert.deepEqual(doc.settings.given, expected);
    assert.ok(planOf('tsbs-queries').phases.every((p) => p.metrics_linger_s === (p.stage === 'query' ? 8 : 3)));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('plan and validate-bench take the overrides as --set KEY=VALUE: read as lines appended to the file, a later one winning', () => {
  const file = path.join(ROOT, 'bench1', 'bench.env');
  const doc = JSON.parse(execFileSync(process.execPath, [CLI, 'plan', '--json', file, '--set', 'DOCS=5', '--set=DESCRIPTION=it\'s # not a comment', '--set', 'DOCS=6'], { encoding: 'utf8' }));
  assert.deepEqual(errors(doc, SCHEMA), []);
  assert.equal(doc.bench_file, file);
  assert.equal(doc.bench, 'bench1');
  assert.deepEqual([doc.settings.given.DOCS, doc.settings.given.DESCRIPTION, doc.settings.values.DOCS], ['6', 'it\'s # not a comment', 6]);
  assert.equal(Object.keys(doc.settings.given).indexOf('DOCS'), Object.keys(doc.settings.given).indexOf('SEED') - 1, 'DOCS keeps its place in bench.env');
  // the same words as a run.env file gave
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plan-json-'));
  try {
    fs.writeFileSync(path.join(dir, 'run.env'), `${fs.readFileSync(file, 'utf8')}DOCS='5'\nDESCRIPTION='it's # not a comment'\nDOCS='6'\n`);
    const viaFile = JSON.parse(execFileSync(process.execPath, [CLI, 'plan', '--json', path.join(dir, 'run.env')], { encoding: 'utf8' }));
    assert.deepEqual(viaFile.settings.values, doc.settings.values);
    assert.deepEqual(viaFile.settings.given, doc.settings.given);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const bad = (args) => {
    try { execFileSync(process.execPath, [CLI, ...args], { stdio: 'pipe' }); } catch (e) { return [e.status, e.stderr.toString()]; }
    return [0, ''];
  };
  assert.deepEqual(bad(['validate-bench', file, '--set', 'DOCS=0'])[0], 2);
  assert.match(bad(['validate-bench', file, '--set', 'DOCS=0'])[1], /DOCS/);
  assert.match(bad(['plan', '--json', file, '--set', 'nokey'])[1], /--set "nokey": expected KEY=VALUE/);
  assert.match(bad(['plan', '--check-size', '20', file, '--set', 'RATE=7']).concat(execFileSync(process.execPath, [CLI, 'plan', '--check-size', '20', file, '--set', 'RATE=7'], { encoding: 'utf8' })).join(), /DOCS=140/);
});
