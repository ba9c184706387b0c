'use strict';
// WORKLOAD=globalsign against a real server, through the client's own commands as the lab runs them
// (init, run --stage load by 2 clients, run, count with DIGEST=documents): db = { name, start(),
// rangeIds(server, band) (the ids the range statement as the run sends it returns),
// dropIndex(server) }. Every expectation is computed from the generator (globalsign-data.js), not
// from any server's answer:
// - the people read back are the people generated (their digest, ids 0..RECORDS-1);
// - an update run changes exactly the balances of the ids it chose (the last value of each), nothing else;
// - the range statement returns exactly the ids whose generated age lies in the band;
// - an insert run adds exactly the client's next people;
// - settle takes the workload's table; server-stats reads no per-table counters of it;
// - the index proof (count's index_proof, checked against count.schema.json) says the plan uses the
//   partial index, and says it does not once the index is dropped.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { runCli } = require('../helpers/run-cli');
const { schemaProblem } = require('../../src/check-schema');
const {
  person, canonicalPerson, personsDigest, inBand, personId, INDEX,
} = require('../../src/workloads/globalsign-data');
const { GlobalsignWorkload } = require('../../src/workloads/globalsign');

const SEED = 7;
const RECORDS = 240;
const CLIENTS = 2;
// 100 bytes: base64 with "==" padding; ages 0..99, so about 29% of the people are in the band
const SHAPE = { padBytes: 100, ageMax: 99 };
const BAND = { min: 45, max: 75 };

function baseEnv(uri) {
  return {
    WORKLOAD: 'globalsign', KEY: 'uuidv7', LAYOUT: 'clustered', URI: uri, SEED: String(SEED), CLIENTS: String(CLIENTS),
    RECORDS: String(RECORDS), PAD_BYTES: String(SHAPE.padBytes), AGE_MAX: String(SHAPE.ageMax),
    RANGE_MIN: String(BAND.min), RANGE_MAX: String(BAND.max), RATE: '200', LOAD_RATE: '0', DURABILITY: 'strict',
  };
}

async function cli(args, env) {
  const r = await runCli(args, { env, timeoutMs: 120000 });
  const result = args.includes('--result') ? args[args.indexOf('--result') + 1] : null;
  const samples = result && fs.existsSync(result) ? JSON.parse(fs.readFileSync(result, 'utf8')).error_samples : [];
  assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}${r.stdout.slice(-2000)} ${JSON.stringify(samples)}`);
  return r;
}

async function countOf(uri) {
  const r = await cli(['count'], { ...baseEnv(uri), DIGEST: 'documents' });
  const doc = JSON.parse(r.stdout.trim().split('\n').pop());
  assert.equal(schemaProblem(doc, 'count'), null, 'count output against count.schema.json');
  return doc;
}

// The people the generator makes for these ids, as canonical documents (balances replaced where given).
function expected(ids, balances = new Map()) {
  return ids.map((id) => {
    const doc = canonicalPerson(person(SEED, id, SHAPE));
    return balances.has(id) ? { ...doc, balance: balances.get(id) } : doc;
  });
}
const range = (n) => Array.from({ length: n }, (_, k) => k);

// What a client's run stage does, operation by operation (the workload's own build, no server).
function plannedOps(clientId, mix, ops) {
  const opts = {
    clientId: String(clientId), clients: CLIENTS, records: RECORDS, seed: SEED, stage: 'run', mix, ops, rate: 1,
    padBytes: SHAPE.padBytes, ageMax: SHAPE.ageMax, rangeMin: BAND.min, rangeMax: BAND.max,
  };
  const w = new GlobalsignWorkload({ target: { database: 'postgres' }, opts });
  return range(ops).map((i) => w.build(i));
}

function globalsignCases(db) {
  test.describe(`${db.name}: WORKLOAD=globalsign (people, updates, the band, the index proof)`, { timeout: 900000 }, () => {
    let server;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jsonbench-globalsign-'));
    test.before(async () => { server = await db.start(); });
    test.after(async () => {
      if (server) await server.cleanup();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    const balances = new Map();
    let ids = range(RECORDS);

    test('init makes the partial index; the load of 2 clients reads back as the generator\'s people; the proof says the index is used', async () => {
      const init = await cli(['init'], baseEnv(server.uri));
      assert.match(init.stdout, new RegExp(`^index: .*${INDEX}`, 'm'));
      for (const c of [1, 2]) {
        await cli(['run', '--stage', 'load', '--client-id', String(c), '--result', path.join(dir, `load-${c}.json`)], baseEnv(server.uri));
      }
      const count = await countOf(server.uri);
      assert.equal(count.documents, RECORDS);
      assert.equal(count.digest.documents, RECORDS);
      assert.equal(count.digest.sha256, personsDigest(expected(ids)).sha256, 'the people read back are the generator\'s, ids 0..RECORDS-1');
      // the settle between the load and the run (vacuum / analyze of the workload's table) succeeds, and
      // a server-stats reading of the workload reads no per-table counters (its statsTables: none)
      await cli(['settle'], baseEnv(server.uri));
      const stats = JSON.parse((await cli(['server-stats'], baseEnv(server.uri))).stdout.trim().split('\n').pop());
      assert.deepEqual(Object.keys(stats.counters || {}).filter((k) => k.includes('globalsign')), []);
      const proof = count.index_proof;
      assert.equal(proof.index, INDEX);
      assert.equal(proof.used, true, JSON.stringify(proof));
      assert.equal(proof.index_used, INDEX);
      assert.ok(proof.plan_node, 'the plan node that uses the index');
    });

    test('an update run changes exactly the balances of the ids it chose', async () => {
      const ops = plannedOps(1, { update: 100 }, 60);
      for (const op of ops) balances.set(op.id, op.balance); // the last update of an id is the one that stays
      assert.ok(balances.size > 40, `the run chose ${balances.size} distinct ids`);
      await cli(['run', '--client-id', '1', '--result', path.join(dir, 'update.json')], { ...baseEnv(server.uri), MIX: 'update=100', OPS: '60' });
      const result = JSON.parse(fs.readFileSync(path.join(dir, 'update.json'), 'utf8'));
      assert.equal(result.operations.update.ok, 60);
      const count = await countOf(server.uri);
      assert.equal(count.digest.sha256, personsDigest(expected(ids, balances)).sha256, 'only the chosen balances changed, to their last value');
      assert.notEqual(count.digest.sha256, personsDigest(expected(ids)).sha256);
    });

    test('the range statement as sent returns exactly the ids whose generated age is in the band; a range run succeeds', async () => {
      const want = ids.filter((id) => inBand(person(SEED, id, SHAPE).age, BAND)).sort((a, b) => a - b);
      assert.ok(want.length > 30 && want.length < ids.length, `${want.length} of ${ids.length} in the band`);
      assert.deepEqual((await db.rangeIds(server, BAND)).sort((a, b) => a - b), want);
      await cli(['run', '--client-id', '2', '--result', path.join(dir, 'range.json')], { ...baseEnv(server.uri), MIX: 'range=100', OPS: '5' });
      const result = JSON.parse(fs.readFileSync(path.join(dir, 'range.json'), 'utf8'));
      assert.equal(result.operations.range.ok, 5, JSON.stringify(result.error_samples));
      assert.equal(result.operations.range.docs, 5 * want.length, 'each range of the run returned the band\'s people');
    });

    test('an insert run adds exactly the client\'s next people', async () => {
      await cli(['run', '--client-id', '2', '--result', path.join(dir, 'insert.json')], { ...baseEnv(server.uri), MIX: 'insert=100', OPS: '20' });
      // client 2 loaded people 1, 3, ..., 239 (its inserts 0..119): its run inserts are 120..139
      const added = range(20).map((k) => personId(1, CLIENTS, RECORDS / CLIENTS + k));
      ids = [...ids, ...added];
      const count = await countOf(server.uri);
      assert.equal(count.documents, RECORDS + 20);
      assert.equal(count.digest.sha256, personsDigest(expected(ids, balances)).sha256);
    });

    test('without the index the proof says so: used false, with the plan', async () => {
      await db.dropIndex(server);
      const proof = (await countOf(server.uri)).index_proof;
      assert.equal(proof.used, false, JSON.stringify(proof));
      assert.notEqual(proof.index_used, INDEX);
      assert.ok(proof.plan_node && proof.plan_nodes.length > 0, 'the plan it took instead');
    });
  });
}

module.exports = { globalsignCases, BAND };
