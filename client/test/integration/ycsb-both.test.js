'use strict';
// The same seed on both databases: the same operations on the same keys, and
// the same documents afterwards; only loaded or acknowledged keys are chosen;
// a mix's achieved proportions over 10,000 operations. Real PostgreSQL and
// SecantusDB (MongoDB stand-in: protocol behaviour, not MongoDB results).
const test = require('node:test');
const assert = require('node:assert/strict');
const { startPostgres } = require('../helpers/postgres-server');
const { startSecantus } = require('../helpers/secantus-server');
const { runCli } = require('../helpers/run-cli');
const { parseOptions } = require('../../src/options');
const { connectTarget } = require('../../src/commands/connect');
const { createWorkload, describeWorkload } = require('../../src/workloads');
const { Runner } = require('../../src/runner');
const { keyGenerator } = require('../../src/keys');
const { BASE, expectedRecords } = require('./ycsb-cases');

const pgAll = async (s) => (await s.query("select encode(uuid_send(id), 'hex') as id, data::text as data from jsonbench order by id"))
  .rows.map((r) => ({ id: r.id, doc: JSON.parse(r.data) }));
const fdAll = (s) => s.withDb(async (db) => (await db.collection('jsonbench').find({}).sort({ _id: 1 }).toArray())
  .map(({ _id, ...doc }) => ({ id: Buffer.from(_id.buffer).toString('hex'), doc })));

async function loadBoth(server, env) {
  assert.equal((await runCli(['init'], { env: { ...env, URI: server.uri } })).code, 0);
  for (const c of ['1', '2']) {
    const r = await runCli(['run'], { env: { ...env, URI: server.uri, STAGE: 'load', CLIENT_ID: c }, timeoutMs: 120000 });
    assert.equal(r.code, 0, r.stderr + r.stdout);
  }
}

// Runs client 1's run stage in this process, back-to-back (rate 0), logging
// every operation and checking each chosen key was loaded or acknowledged
// before it was chosen.
async function runLogged(server, env) {
  const opts = parseOptions('run', [], { ...env, URI: server.uri, STAGE: 'run', CLIENT_ID: '1' });
  const { target } = await connectTarget(opts);
  try {
    await target.prepareInserts(opts);
    const workload = createWorkload({ target, opts });
    workload.rate = 0;
    const known = new Set(expectedRecords(Number(env.RECORDS), 2).map((x) => x.id));
    const own = keyGenerator('uuidv4', { seed: 7, clientId: '1' });
    const log = [];
    let unknown = 0;
    const exec = workload.exec.bind(workload);
    workload.exec = (op) => {
      const entry = { op: op.name };
      if (op.name === 'insert') entry.key = own.buffer(op.index).toString('hex');
      else {
        entry.key = op.key.toString('hex');
        if (!known.has(entry.key)) unknown++;
        if (op.path) Object.assign(entry, { path: op.path.join('.'), value: op.value });
        if (op.name === 'scan') entry.n = op.n;
      }
      log.push(entry);
      return exec(op).then((r) => { if (op.name === 'insert') known.add(entry.key); return r; });
    };
    const runner = new Runner({ target, workload, opts, metrics: null, log: () => {}, label: 'test', describe: describeWorkload(opts) });
    await runner.run();
    return { log, unknown, result: runner.result({ server: {}, database: opts.database }) };
  } finally {
    await target.close();
  }
}

test.describe('ycsb on PostgreSQL and SecantusDB (MongoDB stand-in) with one seed', () => {
  let pg;
  let fd;
  test.before(async () => { [pg, fd] = await Promise.all([startPostgres(), startSecantus()]); });
  test.after(async () => { await Promise.all([pg && pg.cleanup(), fd && fd.cleanup()]); });

  for (const dist of ['latest', 'zipfian']) {
    test(`DIST=${dist}: same operations and keys on both, same documents after, only loaded or acknowledged keys chosen`, async () => {
      const env = { ...BASE, RECORDS: '200', OPS: '600', DIST: dist, MIX: 'read=30,update=25,insert=15,scan=10,rmw=20', SCAN_MAX: '5' };
      await Promise.all([loadBoth(pg, env), loadBoth(fd, env)]);
      const [a, b] = await Promise.all([runLogged(pg, env), runLogged(fd, env)]);
      for (const r of [a, b]) {
        assert.equal(r.result.errors, 0, r.result.error_samples.join('; '));
        assert.equal(r.result.docs_ok, 600);
        assert.equal(r.unknown, 0, 'a key neither loaded nor acknowledged was chosen');
      }
      assert.equal(a.log.length, 600);
      assert.deepEqual(a.log, b.log, 'the same operation sequence on both databases');
      assert.ok(new Set(a.log.map((x) => x.key)).size > 20, 'keys vary');
      if (dist === 'latest') {
        const ownInserts = new Set(a.log.filter((x) => x.op === 'insert').map((x) => x.key));
        assert.ok(a.log.some((x) => x.op !== 'insert' && ownInserts.has(x.key)), 'latest chooses acknowledged inserts too');
      }
      const [pa, fa] = await Promise.all([pgAll(pg), fdAll(fd)]);
      assert.equal(pa.length, 200 + 90);
      assert.deepEqual(pa, fa, 'byte-identical keys and documents after the same updates and inserts');
    });
  }

  test('a mix over 10,000 operations: each operation type within 1% of its weight (PostgreSQL)', async () => {
    const env = { ...BASE, RECORDS: '500', OPS: '10000', DIST: 'uniform', MIX: 'read=47,update=23,insert=11,scan=9,rmw=10', SCAN_MAX: '3' };
    await loadBoth(pg, env);
    const { result } = await runLogged(pg, env);
    assert.equal(result.errors, 0, result.error_samples.join('; '));
    const weights = { read: 47, update: 23, insert: 11, scan: 9, rmw: 10 };
    for (const [op, w] of Object.entries(weights)) {
      const share = result.operations[op].ok / 10000;
      assert.ok(Math.abs(share - w / 100) <= 0.01, `${op}: ${share} vs ${w / 100}`);
    }
  });
});
