'use strict';
// Client groups (GROUPS, client/src/groups.js) against a real PostgreSQL, as the lab runs them: the
// bench planned into plan.json, every client started with `run --plan plan.json --phase ID --client I`,
// the run's groups side by side. Each group runs only its own MIX at its own rate, and the writers'
// inserts are exactly the writer client's own keys (which rows, not only how many).
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { startPostgres } = require('../helpers/postgres-server');
const { runCli, startCli } = require('../helpers/run-cli');
const { readResult } = require('./shared-cases');
const { keyGenerator } = require('../../src/keys');

const BENCH = `DESCRIPTION="client groups"
WORKLOAD=ycsb
DATABASES="postgres"
KEY=uuidv4
LAYOUT=clustered
FIELDS=5
FIELD_BYTES=20
SEED=7
RECORDS=30
CLIENTS=3
RATE=50
OPS=40
DURABILITY=relaxed
GROUPS="writers readers"
GROUP_CLIENTS="1 2"
GROUP_MIXES="insert=100 read=100"
GROUP_RATES="30 20"
GROUP_OPS="60 40"
`;

test('two groups in one phase: each runs its own MIX, rate and count; the writers insert exactly their own keys', async () => {
  const server = await startPostgres();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jsonbench-groups-'));
  try {
    fs.writeFileSync(path.join(dir, 'bench.env'), BENCH);
    const planned = await runCli(['plan', '--json', path.join(dir, 'bench.env')]);
    assert.equal(planned.code, 0, planned.stderr);
    const planFile = path.join(dir, 'plan.json');
    fs.writeFileSync(planFile, planned.stdout);
    fs.mkdirSync(path.join(dir, 'clients'));
    const plan = JSON.parse(planned.stdout);
    const runPhase = plan.phases.find((p) => p.id === 'postgres');
    assert.deepEqual(runPhase.groups, [
      { name: 'writers', clients: [1, 1], rate: 30, ops: 60, mix: 'insert=100' },
      { name: 'readers', clients: [2, 3], rate: 20, ops: 40, mix: 'read=100' },
    ]);
    assert.equal(runPhase.expected_s, 2); // the longest group: 60 / 30 = 40 / 20
    const env = { URI: server.uri };
    assert.equal((await runCli(['init', '--plan', planFile], { env })).code, 0);
    for (const c of ['1', '2', '3']) {
      const r = await runCli(['run', '--plan', planFile, '--phase', 'postgres-load', '--client', c], { env, timeoutMs: 60000 });
      assert.equal(r.code, 0, r.stderr + r.stdout);
    }
    // the run's clients side by side, as the lab starts them
    const runs = ['1', '2', '3'].map((c) => startCli(['run', '--plan', planFile, '--phase', 'postgres', '--client', c], { env, timeoutMs: 60000 }));
    for (const r of await Promise.all(runs.map((x) => x.done))) assert.equal(r.code, 0, r.stderr + r.stdout);
    const results = ['1', '2', '3'].map((c) => readResult(path.join(dir, 'clients', `postgres-client-${c}.json`)));
    assert.deepEqual(results.map((r) => r.group), ['writers', 'readers', 'readers']);
    assert.deepEqual(results.map((r) => r.target_rate), [30, 20, 20]);
    assert.deepEqual(results.map((r) => Object.keys(r.operations)), [['insert'], ['read'], ['read']]);
    assert.deepEqual(results.map((r) => r.docs_ok), [60, 40, 40]);
    for (const r of results) assert.equal(r.errors + r.dropped, 0, r.error_samples.join('; '));
    const loadResults = ['1', '2', '3'].map((c) => readResult(path.join(dir, 'clients', `postgres-load-client-${c}.json`)));
    for (const r of loadResults) assert.equal(r.group, undefined); // the load stage has no groups

    // which rows: the 30 loaded (record r by client r % 3 + 1 at index floor(r / 3)), then client 1's
    // own keys from its 11th index on (it loaded 10): 60 inserts; nobody else wrote
    const expected = new Set();
    for (let r = 0; r < 30; r++) expected.add(keyGenerator('uuidv4', { seed: 7, clientId: String((r % 3) + 1) }).buffer(Math.floor(r / 3)).toString('hex'));
    for (let i = 10; i < 70; i++) expected.add(keyGenerator('uuidv4', { seed: 7, clientId: '1' }).buffer(i).toString('hex'));
    const stored = (await server.query("select encode(uuid_send(id), 'hex') as id from jsonbench")).rows.map((x) => x.id);
    assert.equal(stored.length, 90);
    assert.deepEqual(new Set(stored), expected);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    await server.cleanup();
  }
});
