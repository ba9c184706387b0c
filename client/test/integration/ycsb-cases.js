'use strict';
// The ycsb workload against each real server: `db` = { name, database, start(),
// readAll(server) -> [{ id: hex, doc: object }] in key order, target(server, opts) }.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const hdr = require('hdr-histogram-js');
const { runCli } = require('../helpers/run-cli');
const { tmpResult, readResult } = require('./shared-cases');
const { keyGenerator } = require('../../src/keys');
const { DocumentGenerator } = require('../../src/docgen');
const { fieldPaths } = require('../../src/shape');
const { createTarget } = require('../../src/targets');
const { databaseOf } = require('../../src/uri');

const NESTED = { name: 'nested', depth: 2, fanout: 2 };
const BASE = {
  WORKLOAD: 'ycsb', KEY: 'uuidv4', LAYOUT: 'clustered', FIELDS: '5', FIELD_BYTES: '20', CLIENTS: '2', RECORDS: '101', SEED: '7', RATE: '100', OPS: '100',
  SHAPE: 'nested', DEPTH: '2', FANOUT: '2', DURABILITY: 'relaxed',
};

// Record r: client r % 2 + 1, index floor(r / 2) (the contract).
function expectedRecords(records, clients, { key = 'uuidv4', seed = 7 } = {}) {
  const out = [];
  for (let r = 0; r < records; r++) {
    const client = String((r % clients) + 1);
    const index = Math.floor(r / clients);
    const gen = new DocumentGenerator({ seed, clientId: client, fields: 5, fieldBytes: 20, shape: NESTED });
    out.push({ id: keyGenerator(key, { seed, clientId: client }).buffer(index).toString('hex'), doc: gen.object(index) });
  }
  return out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

async function connectedTarget(server, { monitorCommands = false } = {}) {
  const database = databaseOf(server.uri, 'uri');
  const target = createTarget(database, server.uri, { monitorCommands });
  await target.connect();
  await target.prepareInserts({ key: 'uuidv4', durability: 'relaxed', keyFormat: 'binary' });
  return target;
}

function ycsbCases(db) {
  test.describe(`${db.name}: ycsb workload`, () => {
    let server;
    test.before(async () => { server = await db.start(); });
    test.after(async () => { if (server) await server.cleanup(); });

    const env = (extra = {}) => ({ ...BASE, URI: server.uri, ...extra });
    const load = async (extra = {}) => {
      assert.equal((await runCli(['init'], { env: env(extra) })).code, 0);
      const results = [];
      for (const c of ['1', '2']) {
        const out = tmpResult();
        const r = await runCli(['run'], { env: env({ STAGE: 'load', CLIENT_ID: c, RESULT: out.file, ...extra }), timeoutMs: 60000 });
        assert.equal(r.code, 0, r.stderr + r.stdout);
        results.push(readResult(out.file));
        out.cleanup();
      }
      return results;
    };

    test('load stage: RECORDS documents dealt out r % CLIENTS, keys and nested documents exactly the derived ones', async () => {
      const results = await load();
      assert.deepEqual(results.map((r) => [r.stage, r.phase, r.docs_ok, r.ops_target, r.target_rate]),
        [['load', `${db.database}-load`, 51, 51, 0], ['load', `${db.database}-load`, 50, 50, 0]]);
      assert.deepEqual(Object.keys(results[0].operations), ['insert']);
      assert.deepEqual(await db.readAll(server), expectedRecords(101, 2));
    });

    test('steps: get finds or fails, patch changes exactly one (nested) field, scan returns n documents in key order in one round trip', async () => {
      await load();
      const expected = expectedRecords(101, 2);
      const target = await connectedTarget(server, { monitorCommands: true });
      const commands = [];
      if (target.client && target.client.on) target.client.on('commandStarted', (e) => commands.push(e.commandName));
      try {
        const key = (i) => Buffer.from(expected[i].id, 'hex');
        assert.equal(await target.get(key(5)), 1);
        const missing = Buffer.alloc(16, 0xab);
        await assert.rejects(target.get(missing), (err) => err.code === 'JSONBENCH_NOT_FOUND' && /get: no document/.test(err.message));
        await assert.rejects(target.patch(missing, ['n1', 'n1', 'attr1'], 'x'), /patch: no document/);
        assert.equal(target.isConnectionLost(Object.assign(new Error('x'), { code: 'JSONBENCH_NOT_FOUND' })), false);

        const path = fieldPaths(5, NESTED)[3]; // leaves hold attr1 | attr2 | attr3 | attr4, attr5
        assert.deepEqual(path, ['n2', 'n2', 'attr4']);
        assert.equal(await target.patch(key(7), path, 'NEWVALUE'), 1);
        const after = await db.readAll(server);
        assert.equal(after.length, 101);
        const want = structuredClone(expected);
        want[7].doc.n2.n2.attr4 = 'NEWVALUE';
        assert.deepEqual(after, want, 'only that field of that document changed');

        commands.length = 0;
        assert.equal(await target.scan(key(0), 150), 101, 'from the first key: every document');
        assert.equal(await target.scan(key(10), 20), 20);
        assert.equal(await target.scan(key(100), 20), 1, 'from the last key: itself');
        if (db.database === 'mongodb') {
          assert.deepEqual(commands, ['find', 'find', 'find'], 'one round trip per scan, even past the driver\'s default first batch of 101');
        }
        // Key order: the documents a scan returns are the next n keys.
        const ids = await db.scanIds(server, key(10), 20);
        assert.deepEqual(ids, expected.slice(10, 30).map((x) => x.id));
      } finally {
        await target.close();
      }
    });

    test('run stage: every operation of a 5-op mix succeeds, counts add up, per-op histograms and timeline, inserts stored', async () => {
      await load();
      const mix = 'read=30,update=20,insert=10,scan=20,rmw=20';
      const results = [];
      for (const c of ['1', '2']) {
        const out = tmpResult();
        const r = await runCli(['run'], {
          env: env({ STAGE: 'run', CLIENT_ID: c, RESULT: out.file, MIX: mix, DIST: 'latest', OPS: '200', RATE: '400', SCAN_MAX: '10' }),
          timeoutMs: 60000,
        });
        assert.equal(r.code, 0, r.stderr + r.stdout);
        results.push(readResult(out.file));
        out.cleanup();
      }
      for (const res of results) {
        assert.equal(res.workload, 'ycsb');
        assert.equal(res.stage, 'run');
        assert.equal(res.phase, db.database);
        assert.deepEqual(res.mix, { read: 30, update: 20, insert: 10, scan: 20, rmw: 20 });
        assert.deepEqual(res.dist, { name: 'latest', theta: 0.99 });
        assert.deepEqual(res.shape, NESTED);
        assert.equal(res.records, 101);
        assert.equal(res.scan_max, 10);
        assert.equal(res.errors, 0, res.error_samples.join('; '));
        const ops = res.operations;
        assert.deepEqual(Object.keys(ops), ['read', 'update', 'insert', 'scan', 'rmw']);
        assert.equal(Object.values(ops).reduce((a, o) => a + o.ok + o.errors + o.dropped, 0), 200);
        // 200 operations = 2 whole blocks of 100: the mix is exact.
        assert.deepEqual(Object.values(ops).map((o) => o.ok + o.dropped), [60, 40, 20, 40, 40]);
        for (const [name, o] of Object.entries(ops)) {
          assert.equal(hdr.decodeFromCompressedBase64(o.histograms.latency_us).totalCount, o.ok, name);
          assert.equal(hdr.decodeFromCompressedBase64(o.histograms.service_us).totalCount, o.ok, name);
          for (const p of ['p50', 'p90', 'p99', 'p999', 'max', 'mean']) assert.equal(typeof o.latency_ms[p], o.ok ? 'number' : 'object', `${name}.${p}`);
          if (name !== 'scan') assert.equal(o.docs, o.ok, name);
        }
        assert.ok(ops.scan.docs >= ops.scan.ok && ops.scan.docs <= ops.scan.ok * 10, `scan docs ${ops.scan.docs}`);
        assert.equal(hdr.decodeFromCompressedBase64(res.histograms.latency_us).totalCount, res.docs_ok);
        // Timeline: per second, per op, the same counts as the totals.
        assert.equal(res.timeline.interval_s, 1);
        for (const [name, o] of Object.entries(ops)) {
          const secs = res.timeline.seconds.filter((s) => s.ops[name]);
          assert.equal(secs.reduce((a, s) => a + s.ops[name].ok, 0), o.ok, name);
          assert.equal(secs.reduce((a, s) => a + hdr.decodeFromCompressedBase64(s.ops[name].latency_us).totalCount, 0), o.ok, name);
        }
        const ts = res.timeline.seconds.map((s) => s.t);
        assert.deepEqual(ts, [...ts].sort((a, b) => a - b));
        assert.ok(ts[0] >= Math.floor(Date.parse(res.started_at) / 1000) && ts[ts.length - 1] <= Math.ceil(Date.parse(res.ended_at) / 1000));
      }
      const inserted = results.reduce((a, r) => a + r.operations.insert.ok, 0);
      const docs = await db.readAll(server);
      assert.equal(docs.length, 101 + inserted);
      // Run-stage inserts continue each client's indices after its loaded ones.
      const ids = new Set(docs.map((d) => d.id));
      assert.ok(ids.has(keyGenerator('uuidv4', { seed: 7, clientId: '1' }).buffer(51).toString('hex')));
      assert.ok(ids.has(keyGenerator('uuidv4', { seed: 7, clientId: '2' }).buffer(50).toString('hex')));
    });

    test('ycsb refuses sequence keys and a client id outside 1..CLIENTS, before connecting', async () => {
      let r = await runCli(['run'], { env: env({ KEY: 'sequence' }) });
      assert.equal(r.code, 2);
      assert.match(r.stderr, /KEY=sequence cannot be used with WORKLOAD=ycsb/);
      r = await runCli(['run'], { env: env({ CLIENT_ID: '3' }) });
      assert.equal(r.code, 2);
      assert.match(r.stderr, /--client-id "3": WORKLOAD=ycsb needs a client number; allowed: an integer from 1 to CLIENTS \(2\)/);
    });
  });
}

module.exports = { ycsbCases, expectedRecords, connectedTarget, BASE, NESTED };
