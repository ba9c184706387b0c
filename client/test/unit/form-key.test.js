'use strict';
// The storage form a database's folder offers (its manifest's offers.forms), chosen by its own bench
// key <NAME>_FORM (client/src/forms.js): the values are the manifest's, the default its default (the
// form every run stored before), a form it does not offer is refused naming the file, the key, the
// database and the allowed values, the key applies only with the database in DATABASES and a
// workload of generated documents, and a relational form refuses nested documents, all before
// anything starts; the client commands pass the URI's database's form to its binding.
const test = require('node:test');
const assert = require('node:assert/strict');
const { validateBenchText, InputError, BENCH_SPECS } = require('../../src/bench-schema');
const { manifests } = require('../../src/databases');
const { parseOptions } = require('../../src/options');
const { envValues } = require('../../src/commands/plan');

const BENCH = 'DESCRIPTION="t"\nKEY=uuidv7\nLAYOUT=clustered\nCLIENTS=1\nFIELDS=10\nFIELD_BYTES=100\nDOCS=10\nRATE=10\n';
const refused = (fn, re) => assert.throws(fn, (e) => e instanceof InputError && re.test(e.message), re.source);

test('each database folder offers its forms: PostgreSQL and TimescaleDB jsonb, json, relational; MySQL json, relational; MongoDB bson', () => {
  const offered = (db) => [manifests()[db].offers.forms.default, Object.keys(manifests()[db].offers.forms.offered)];
  assert.deepEqual(offered('postgres'), ['jsonb', ['jsonb', 'json', 'relational']]);
  assert.deepEqual(offered('timescaledb'), ['jsonb', ['jsonb', 'json', 'relational']]);
  assert.deepEqual(offered('mysql'), ['json', ['json', 'relational']]);
  assert.deepEqual(offered('mongodb'), ['bson', ['bson']]);
  for (const db of ['postgres', 'mysql', 'mongodb', 'timescaledb']) {
    const key = `${db.toUpperCase()}_FORM`;
    assert.deepEqual(BENCH_SPECS[key].values, Object.keys(manifests()[db].offers.forms.offered), key);
    assert.equal(BENCH_SPECS[key].default, manifests()[db].offers.forms.default, key);
  }
});

test('unset, every database stores the form it stored before the key (the defaults reach the clients\' environment)', () => {
  const v = validateBenchText(`${BENCH}DATABASES="mongodb postgres mysql"\n`, 'b/bench.env');
  assert.deepEqual([v.POSTGRES_FORM, v.MYSQL_FORM, v.MONGODB_FORM], ['jsonb', 'json', 'bson']);
  const env = envValues(v);
  assert.deepEqual([env.POSTGRES_FORM, env.MYSQL_FORM, env.MONGODB_FORM, env.TIMESCALEDB_FORM], ['jsonb', 'json', 'bson', '']);
});

test('a form the database does not offer is refused naming the file and line, the key, the database and its forms', () => {
  refused(() => validateBenchText(`${BENCH}DATABASES="postgres mysql"\nMYSQL_FORM=jsonb\n`, 'b/bench.env'),
    /^b\/bench\.env:10: MYSQL_FORM: invalid value "jsonb"; allowed: one of json, relational \(the storage forms mysql offers: databases\/mysql\/database\.json offers\.forms\)$/);
  refused(() => validateBenchText(`${BENCH}DATABASES="postgres mongodb"\nMONGODB_FORM=relational\n`, 'b/bench.env'),
    /^b\/bench\.env:10: MONGODB_FORM: invalid value "relational"; allowed: one of bson \(the storage forms mongodb offers/);
  const v = validateBenchText(`${BENCH}DATABASES="postgres mysql"\nPOSTGRES_FORM=json\nMYSQL_FORM=relational\n`, 'b/bench.env');
  assert.deepEqual([v.POSTGRES_FORM, v.MYSQL_FORM], ['json', 'relational']);
});

test('a form key applies only with its database in DATABASES and a workload of generated documents', () => {
  refused(() => validateBenchText(`${BENCH}DATABASES="postgres mongodb"\nMYSQL_FORM=relational\n`, 'b/bench.env'),
    /^b\/bench\.env:10: MYSQL_FORM applies only with DATABASES including mysql and a workload of generated documents .*remove MYSQL_FORM$/);
  const booking = 'DESCRIPTION="t"\nWORKLOAD=booking\nKEY=uuidv7\nLAYOUT=clustered\nCLIENTS=1\nRATE=1\nDATABASES=postgres\nPOSTGRES_FORM=json\n';
  refused(() => validateBenchText(booking, 'b/bench.env'), /^b\/bench\.env:8: POSTGRES_FORM applies only with .*WORKLOAD=booking/);
});

test('a relational form refuses nested documents, with the reason, and the other forms take them', () => {
  const nested = `${BENCH}SHAPE=nested\nDEPTH=1\nFANOUT=2\nDATABASES="postgres mysql"\n`;
  refused(() => validateBenchText(`${nested}MYSQL_FORM=relational\n`, 'b/bench.env'),
    /^b\/bench\.env:13: MYSQL_FORM=relational cannot store SHAPE=nested documents on mysql: a relational table has one typed column per top-level field, .*sub-documents \(n1\.\.n2\).*allowed with SHAPE=nested: MYSQL_FORM=json, or SHAPE=flat$/);
  assert.equal(validateBenchText(`${nested}POSTGRES_FORM=json\n`, 'b/bench.env').POSTGRES_FORM, 'json');
});

test('the client commands give the URI\'s database its form (flag or environment), refusing relational with a nested shape', () => {
  const uri = 'postgres://u:p@db:5432/x';
  assert.equal(parseOptions('init', ['--uri', uri, '--key', 'uuidv7', '--layout', 'heap'], {}).form, 'jsonb');
  assert.equal(parseOptions('init', ['--uri', uri, '--key', 'uuidv7', '--layout', 'heap'], { POSTGRES_FORM: 'relational' }).form, 'relational');
  assert.equal(parseOptions('count', ['--uri', 'mysql://u:p@db:3306/x', '--mysql-form', 'relational'], {}).form, 'relational');
  assert.equal(parseOptions('count', ['--uri', 'mongodb://db:27017'], { POSTGRES_FORM: 'json' }).form, 'bson');
  const run = ['--uri', uri, '--key', 'uuidv7', '--layout', 'heap', '--fields', '4', '--field-bytes', '5', '--rate', '1', '--docs', '1'];
  assert.equal(parseOptions('run', [...run, '--postgres-form', 'json'], {}).form, 'json');
  refused(() => parseOptions('run', [...run, '--shape', 'nested', '--depth', '1', '--postgres-form', 'relational'], {}),
    /^--postgres-form: POSTGRES_FORM=relational cannot store SHAPE=nested documents on postgres/);
});

test('a relational patch of a path that is not a column is a rejected step, not a throw (the runner counts it as an error)', async () => {
  const { bindingOf } = require('../../src/databases');
  for (const db of ['postgres', 'mysql']) {
    const Target = bindingOf(db);
    const t = new Target(`${db}://u:p@127.0.0.1:1/x`, { form: 'relational' });
    t.withKey = true;
    t.columns = ['attr1', 'attr2'];
    t.statements = { patch: {} };
    let p;
    assert.doesNotThrow(() => { p = t.patch(Buffer.alloc(16), ['n1', 'attr1'], 'v'); }, db);
    await assert.rejects(p, /patch: the relational form has columns attr1\.\.attrN|patch: the relational form has columns attr1, attr2/, db);
  }
  assert.throws(() => new (bindingOf('mysql'))('mysql://u:p@h/x', { form: 'jsonb' }), /MySQL has no storage form "jsonb" \(allowed: json, relational\)/);
  assert.throws(() => new (bindingOf('postgres'))('postgres://u:p@h/x', { form: 'bson' }), /PostgreSQL has no storage form "bson" \(allowed: jsonb, json, relational\)/);
});
