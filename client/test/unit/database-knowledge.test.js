'use strict';
// What only one database knows lives in its folder (docs/contracts.md §2a): the TOPOLOGY it offers
// and the topology its transactions need (manifest offers.topologies, offers.transaction_topologies),
// what its stand-in refuses (standin.refuses), and its binding's layoutNote, transactionIsolation,
// bookingKey and its query forms' paths. The shared code reads them generically: the shipped
// databases give the texts they gave before, and a database without them behaves as documented.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { manifests, offeredWorkloads, ROOT } = require('../../src/databases');
const { checkTopologyOffered, checkTransactionTopology } = require('../../src/topology-rules');
const { refuseStandinSettings, refuseOnStandIns } = require('../../src/stand-ins');
const { validateBenchText, InputError } = require('../../src/bench-schema');
const { querySet, withForms } = require('../../src/queries');
const { digestOptionsFor } = require('../../src/workloads/query');
const { BookingWorkload } = require('../../src/workloads/booking');
const { PostgresTarget } = require('../../../databases/postgres/client/postgres');
const { MongoTarget } = require('../../../databases/mongodb/client/mongodb');
const { MysqlTarget } = require('../../../databases/mysql/client/mysql');
const { TimescaledbTarget } = require('../../../databases/timescaledb/client/timescaledb');

// The shipped manifests, changed by `edit` (a deep copy: the registry's stay as they are).
function manifestsWith(edit) {
  const all = structuredClone(manifests());
  edit(all);
  return all;
}
const where = (key) => `b/bench.env:${key}`;
const given = (...keys) => (key) => keys.includes(key);

test('TOPOLOGY: a value only MongoDB offers is refused without it, from its manifest (offers.topologies)', () => {
  assert.deepEqual(manifests().mongodb.offers.topologies, ['standalone', 'replset']);
  const values = { TOPOLOGY: 'replset', DATABASES: ['postgres', 'mysql'] };
  assert.throws(() => checkTopologyOffered(values, where, given('TOPOLOGY'), 'standalone'), (err) => err instanceof InputError
    && err.message === 'b/bench.env:TOPOLOGY: TOPOLOGY=replset applies only to MongoDB and this file has DATABASES=postgres mysql: '
      + 'add mongodb to DATABASES or remove TOPOLOGY');
  // not given, or the default (every database's, a manifest without offers.topologies too): no refusal
  checkTopologyOffered(values, where, given(), 'standalone');
  checkTopologyOffered({ ...values, TOPOLOGY: 'standalone' }, where, given('TOPOLOGY'), 'standalone');
  checkTopologyOffered({ ...values, DATABASES: ['postgres', 'mongodb'] }, where, given('TOPOLOGY'), 'standalone');
});

test('TOPOLOGY: a second database offering it is named too; offered by none, only removing it is allowed', () => {
  const two = manifestsWith((all) => { all.postgres.offers.topologies = ['standalone', 'replset']; });
  checkTopologyOffered({ TOPOLOGY: 'replset', DATABASES: ['postgres'] }, where, given('TOPOLOGY'), 'standalone', two);
  assert.throws(() => checkTopologyOffered({ TOPOLOGY: 'replset', DATABASES: ['mysql'] }, where, given('TOPOLOGY'), 'standalone', two),
    /TOPOLOGY=replset applies only to MongoDB or PostgreSQL and this file has DATABASES=mysql: add mongodb or postgres to DATABASES or remove TOPOLOGY$/);
  const none = manifestsWith((all) => { delete all.mongodb.offers.topologies; });
  assert.throws(() => checkTopologyOffered({ TOPOLOGY: 'replset', DATABASES: ['mongodb'] }, where, given('TOPOLOGY'), 'standalone', none),
    /TOPOLOGY=replset is offered by no database of the lab \(databases\/<name>\/database\.json offers\.topologies\) and this file has DATABASES=mongodb: remove TOPOLOGY$/);
});

test('transactions: MongoDB runs them only on a replica set (offers.transaction_topologies); without the field, on any', () => {
  assert.deepEqual(manifests().mongodb.offers.transaction_topologies, ['replset']);
  const values = { WORKLOAD: 'booking', TOPOLOGY: 'standalone', DATABASES: ['mongodb', 'postgres'] };
  assert.throws(() => checkTransactionTopology(values, where), (err) => err instanceof InputError
    && err.message === 'b/bench.env:TOPOLOGY: WORKLOAD=booking runs multi-document transactions, which MongoDB allows only on a replica set, '
      + 'and this file has TOPOLOGY=standalone; allowed with WORKLOAD=booking and mongodb in DATABASES: TOPOLOGY=replset (or DATABASES=mysql postgres)');
  checkTransactionTopology({ ...values, TOPOLOGY: 'replset' }, where);
  checkTransactionTopology({ ...values, DATABASES: ['postgres'] }, where);
  checkTransactionTopology(values, where, manifestsWith((all) => { delete all.mongodb.offers.transaction_topologies; }));
  // the alternatives are the lab's databases offering the workload that run it on this TOPOLOGY
  // (their workload files: a database without databases/<db>/client/workloads/booking.js is not one)
  const noMysql = (db) => (db === 'mysql' ? offeredWorkloads(db).filter((w) => w !== 'booking') : offeredWorkloads(db));
  assert.throws(() => checkTransactionTopology(values, where, manifests(), noMysql), /TOPOLOGY=replset \(or DATABASES=postgres\)$/);
  const alone = (db) => (db === 'mongodb' ? offeredWorkloads(db) : ['insert']);
  assert.throws(() => checkTransactionTopology(values, where, manifests(), alone), /and mongodb in DATABASES: TOPOLOGY=replset$/);
});

const TSBS_NATIVE = 'DESCRIPTION=t\nWORKLOAD=tsbs\nKEY=uuidv7\nLAYOUT=clustered\nCLIENTS=1\nRATE=5\nDATABASES=mongodb postgres\nMODEL=native\n';

test("the stand-ins: MODEL=native on MongoDB's is refused from its manifest (standin.refuses), the text as it was", () => {
  const values = validateBenchText(TSBS_NATIVE, 'b/bench.env');
  assert.throws(() => refuseOnStandIns(values, 'b/bench.env', TSBS_NATIVE, () => ''), (err) => err instanceof InputError
    && err.message === 'b/bench.env:8: MODEL=native cannot run on the stand-ins (JSONBENCH_STANDINS=1): '
      + 'SecantusDB 0.7.0b3, which stands in for MongoDB, has no time-series collections (createCollection with timeseries '
      + 'makes a plain collection of type "collection"), and a native model it does not have would be faked; allowed on the '
      + 'stand-ins: MODEL=event or MODEL=bucket, or MODEL=native with DATABASES=postgres timescaledb (real MongoDB has time-series '
      + 'collections: run with its image)');
  // the other models, and MODEL=native without mongodb, run on the stand-ins
  for (const model of ['event', 'bucket']) refuseStandinSettings({ ...values, MODEL: model }, 'b/bench.env', TSBS_NATIVE);
  refuseStandinSettings({ ...values, DATABASES: ['postgres'] }, 'b/bench.env', TSBS_NATIVE);
});

test('the stand-ins: without `refuses` nothing is refused; with no database left to run it, only the other values are allowed', () => {
  const values = validateBenchText(TSBS_NATIVE, 'b/bench.env');
  refuseStandinSettings(values, 'b/bench.env', TSBS_NATIVE, manifestsWith((all) => { delete all.mongodb.standin.refuses; }));
  const both = manifestsWith((all) => {
    for (const db of ['postgres', 'timescaledb']) all[db].standin.refuses = [{ when: { MODEL: 'native' }, key: 'MODEL', why: 'no' }];
  });
  assert.throws(() => refuseStandinSettings(values, 'b/bench.env', TSBS_NATIVE, both),
    /: MODEL=native cannot run on the stand-ins \(JSONBENCH_STANDINS=1\): SecantusDB .* allowed on the stand-ins: MODEL=event or MODEL=bucket \(real MongoDB has time-series collections: run with its image\)$/);
  const bad = manifestsWith((all) => { all.mongodb.standin.refuses[0].key = 'KEY'; });
  assert.throws(() => refuseStandinSettings(values, 'b/bench.env', TSBS_NATIVE, bad),
    /databases\/mongodb\/database\.json: standin\.refuses key KEY is not one of its when keys \(allowed: WORKLOAD, MODEL\)/);
});

const TSBS_COMPRESS = 'DESCRIPTION=t\nWORKLOAD=tsbs\nKEY=uuidv7\nLAYOUT=clustered\nCLIENTS=1\nRATE=5\nDATABASES=timescaledb\nMODEL=native\nCOMPRESS=after:12h\n';

test('the stand-ins: a {not: value} refusal matches every value but that one (TimescaleDB\'s COMPRESS), allowing only it', () => {
  const values = validateBenchText(TSBS_COMPRESS, 'b/bench.env');
  for (const compress of ['after:12h', 'after:30m', 'after:1d']) {
    assert.throws(() => refuseOnStandIns({ ...values, COMPRESS: compress }, 'b/bench.env', TSBS_COMPRESS, () => ''), (err) => err instanceof InputError
      && err.message.startsWith(`b/bench.env:9: COMPRESS=${compress} cannot run on the stand-ins (JSONBENCH_STANDINS=1): the stand-in's `
        + 'TimescaleDB 2.19.3 is Debian\'s Apache-2.0 edition, which has no compression')
      // no other database's stand-in is offered: none has compression (the workload's checks say so)
      && err.message.includes('; allowed on the stand-ins: COMPRESS=none (the official image timescale/timescaledb:2.28.3-pg17'), compress);
  }
  // the off value, and a workload without the key, are not refused
  refuseOnStandIns({ ...values, COMPRESS: 'none' }, 'b/bench.env', TSBS_COMPRESS, () => '');
  refuseStandinSettings({ WORKLOAD: 'tsbs', MODEL: 'native', DATABASES: ['timescaledb'] }, 'b/bench.env', TSBS_COMPRESS, manifests(), () => '');
  // an image of the user's own runs instead of the stand-in: its refusals do not apply
  const asked = [];
  refuseOnStandIns(values, 'b/bench.env', TSBS_COMPRESS, (name) => { asked.push(name); return 'me/timescaledb:tsl'; });
  assert.deepEqual([...new Set(asked)], ['TIMESCALEDB_IMAGE']);
});

test('the stand-ins: an exact `when` value matches that value only', () => {
  const values = validateBenchText(TSBS_COMPRESS, 'b/bench.env');
  const exact = manifestsWith((all) => { all.timescaledb.standin.refuses[0].when.COMPRESS = 'after:1d'; });
  refuseStandinSettings(values, 'b/bench.env', TSBS_COMPRESS, exact, () => '');
  assert.throws(() => refuseStandinSettings({ ...values, COMPRESS: 'after:1d' }, 'b/bench.env', TSBS_COMPRESS, exact, () => ''),
    /COMPRESS=after:1d cannot run on the stand-ins .*; allowed on the stand-ins: DATABASES without timescaledb/);
});

test("the bindings say init's layout note: PostgreSQL's on clustered, none from the others", () => {
  const pg = new PostgresTarget('postgres://u@127.0.0.1:1/x');
  assert.equal(pg.layoutNote('clustered'), 'PostgreSQL is always a heap; layout applies to MongoDB');
  assert.equal(pg.layoutNote('heap'), null);
  assert.equal(new TimescaledbTarget('timescaledb://u@127.0.0.1:1/x').layoutNote('clustered'), null);
  assert.equal(new MongoTarget('mongodb://127.0.0.1:1/x').layoutNote, undefined);
  assert.equal(new MysqlTarget('mysql://u@127.0.0.1:1/x').layoutNote, undefined);
});

const BOOKING = {
  key: 'uuidv7', seed: 1, clientId: 1, clients: 1, ops: 10, rate: 1, retry: 'backoff', maxAttempts: 3, sessions: 1,
  flights: 10, dayRange: 1, bookingSleepMs: 0, workload: 'booking',
};

test('transactions.isolation and the booking key are the bindings\' to say', () => {
  const pg = new BookingWorkload({ target: new PostgresTarget('postgres://u@127.0.0.1:1/x'), opts: { ...BOOKING, isolation: 'repeatable-read' } });
  assert.equal(pg.resultFields().transactions.isolation, 'repeatable-read');
  assert.equal(pg.build(3).id, '018cc251-f403-712f-aa41-5c91d7ddddea');
  const mongo = new BookingWorkload({ target: new MongoTarget('mongodb://127.0.0.1:1/x'), opts: { ...BOOKING, isolation: 'repeatable-read' } });
  assert.equal(mongo.resultFields().transactions.isolation, 'snapshot (read concern snapshot, write concern majority)');
  // without bookingKey: the key's 16 bytes
  assert.ok(Buffer.isBuffer(mongo.build(3).id));
  assert.equal(mongo.build(3).id.toString('hex'), '018cc251f403712faa415c91d7ddddea');
});

test('a binding that prepares transactions but does not say its isolation is refused before the first one', async () => {
  const target = new PostgresTarget('postgres://u@127.0.0.1:1/x');
  Object.defineProperty(target, 'transactionIsolation', { value: undefined });
  target.prepareTransactions = async () => {}; // what a binding's own preparation may do: nothing
  const w = new BookingWorkload({ target, opts: { ...BOOKING, isolation: 'serializable' } });
  await assert.rejects(w.prepare({}), (err) => err instanceof InputError
    && /^the postgres binding has no transactionIsolation\(isolation\) .*: WORKLOAD=booking cannot run on it$/.test(err.message));
});

test("the query sets' digests: MongoDB's forms say where a group key comes back (paths), the others read the names", () => {
  const events = querySet('events').queries;
  assert.deepEqual(digestOptionsFor(events['olap-a'].digest, 'mongodb'), { columns: { repo: '_id', n: 'n' }, ordered: true });
  assert.deepEqual(digestOptionsFor(events['olap-a'].digest, 'postgres'), { columns: ['repo', 'n'], ordered: true });
  const tsbs = querySet('tsbs').queries;
  assert.deepEqual(digestOptionsFor(tsbs['double-groupby-1'].digest, 'mongodb').columns,
    { hour: '_id.hour', hostname: '_id.hostname', avg_usage_user: 'avg_usage_user' });
  assert.deepEqual(digestOptionsFor(tsbs.lastpoint.digest, 'timescaledb'), { columns: tsbs.lastpoint.digest.columns, ordered: true });
  // high-cpu reads its columns from the set's own paths on every database
  assert.equal(digestOptionsFor(tsbs['high-cpu-all'].digest, 'mongodb').columns.hostname, 'tags.hostname');
});

test("a forms file's paths: joined under its database; a path of no digest column or of no form is refused, naming the file", (t) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'jsonbench-databases-'));
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  for (const name of Object.keys(manifests())) {
    fs.mkdirSync(path.join(root, name));
    fs.copyFileSync(path.join(ROOT, name, 'database.json'), path.join(root, name, 'database.json'));
  }
  fs.mkdirSync(path.join(root, 'nulldb', 'client', 'queries'), { recursive: true });
  fs.writeFileSync(path.join(root, 'nulldb', 'database.json'), JSON.stringify({ name: 'nulldb' }));
  const set = require('../../src/queries/github-events-queries');
  const file = path.join(root, 'nulldb', 'client', 'queries', 'events.js');
  const write = (paths) => {
    delete require.cache[file];
    fs.writeFileSync(file, `module.exports = { forms: { 'olap-b': () => ({}) }, paths: ${JSON.stringify(paths)} };\n`);
  };
  write({ 'olap-b': { type: 'k.type' } });
  const joined = withForms(set, 'events', root).queries['olap-b'];
  assert.deepEqual(joined.digest.paths, { nulldb: { type: 'k.type' } });
  assert.deepEqual(digestOptionsFor(joined.digest, 'nulldb').columns, { type: 'k.type', n: 'n' });
  assert.deepEqual(digestOptionsFor(joined.digest, 'postgres').columns, ['type', 'n']);
  assert.equal(set.queries['olap-b'].digest.paths, undefined, "the set's own digest is left as it is");
  write({ 'olap-b': { kind: '_id' } });
  assert.throws(() => withForms(set, 'events', root), new RegExp(`^Error: ${file.replace(/[.]/g, '\\.')}: paths of olap-b name kind, not a column of its digest \\(allowed: type, n\\)$`));
  write({ 'olap-a': { repo: '_id' } });
  assert.throws(() => withForms(set, 'events', root), /events\.js: paths of olap-a, for which it has no form \(allowed: olap-b\)$/);
});

test("a stand-in is named with what it stands in for: its server's stands_in_for, else its database's manifest label", () => {
  const { displayName, standsInFor } = require('../../src/targets');
  const secantus = { product: 'SecantusDB', version: '0.7.0b3', stand_in: true };
  assert.equal(displayName(secantus, 'mongodb'), 'SecantusDB (MongoDB stand-in)');
  assert.equal(displayName({ ...secantus, stands_in_for: 'MySQL 8.4' }, 'mysql'), 'SecantusDB (MySQL 8.4 stand-in)');
  assert.equal(standsInFor(secantus, 'nodb'), 'another product');
  assert.equal(displayName({ product: 'PostgreSQL', stand_in: false }, 'postgres'), 'PostgreSQL');
});
