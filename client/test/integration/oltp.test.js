'use strict';
// sysbench-style OLTP operations (WORKLOAD=oltp) on a real PostgreSQL and on SecantusDB as a
// single-node replica set (MongoDB stand-in: protocol behaviour, not MongoDB results): the same
// rows after init, every operation shape runs as a transaction on both, and the same seed leaves
// both tables identical; bad keys are refused naming the key.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { startPostgres } = require('../helpers/postgres-server');
const { startSecantus } = require('../helpers/secantus-server');
const { runCli } = require('../helpers/run-cli');

const BASE = {
  WORKLOAD: 'oltp', KEY: 'uuidv7', LAYOUT: 'heap', SEED: '9', TABLE_ROWS: '2000',
};
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'jsonbench-oltp-'));
// the refusal test below writes its bench.env here too: removed once every test is done
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

test('oltp on both databases', { timeout: 600000 }, async (t) => {
  const pg = await startPostgres();
  const sec = await startSecantus({ replset: true });
  t.after(async () => { await pg.cleanup(); await sec.cleanup(); });
  const pgRows = async () => (await pg.query('select id, k, c, pad from sbtest order by id')).rows;
  const mgRows = () => sec.withDb(async (db) => (await db.collection('sbtest').find({}).sort({ _id: 1 }).toArray())
    .map(({ _id, ...rest }) => ({ id: _id, ...rest })));

  await t.test('init: the same TABLE_ROWS rows and the k index on both', async () => {
    for (const s of [pg, sec]) {
      const r = await runCli(['init'], { env: { ...BASE, URI: s.uri }, timeoutMs: 120000 });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^index: .*k_idx/m);
    }
    const [a, b] = [await pgRows(), await mgRows()];
    assert.equal(a.length, 2000);
    assert.equal(JSON.stringify(a), JSON.stringify(b));
  });

  await t.test('50/50: every shape runs as a transaction, and the same seed leaves both tables equal', async () => {
    const results = {};
    for (const [name, s] of [['postgres', pg], ['mongodb', sec]]) {
      const file = path.join(tmp, `${name}.json`);
      const r = await runCli(['run'], {
        env: {
          ...BASE, URI: s.uri, OLTP_MIX: '50/50', OPS: '168', RATE: '40', SESSIONS: '1', RESULT: file,
        },
        timeoutMs: 120000,
      });
      assert.equal(r.code, 0, r.stderr + r.stdout);
      results[name] = JSON.parse(fs.readFileSync(file, 'utf8'));
    }
    for (const res of Object.values(results)) {
      assert.equal(res.docs_ok, 168);
      assert.equal(res.transactions.committed, 168);
      for (const op of ['point-select', 'simple-range', 'sum-range', 'order-range', 'distinct-range', 'index-update', 'non-index-update', 'delete-insert']) {
        assert.ok(res.operations[op].ok > 0, `${op} never ran`);
      }
      // A simple range returns RANGE_SIZE rows; a delete+insert writes 2.
      assert.equal(res.operations['simple-range'].docs, 100 * res.operations['simple-range'].ok);
      assert.equal(res.operations['delete-insert'].docs, 2 * res.operations['delete-insert'].ok);
    }
    assert.deepEqual(
      Object.fromEntries(Object.entries(results.postgres.operations).map(([k, v]) => [k, [v.ok, v.docs]])),
      Object.fromEntries(Object.entries(results.mongodb.operations).map(([k, v]) => [k, [v.ok, v.docs]])),
    );
    const [a, b] = [await pgRows(), await mgRows()];
    assert.equal(a.length, 2000);
    assert.equal(JSON.stringify(a), JSON.stringify(b));
    const c = await runCli(['count'], { env: { WORKLOAD: 'oltp', URI: pg.uri } });
    assert.equal(JSON.parse(c.stdout).documents, 2000);
  });
});

test('bad oltp keys are refused naming the key and the allowed values', async () => {
  const file = path.join(tmp, 'bench.env');
  const bench = (extra) => `DESCRIPTION=x\nKEY=uuidv7\nLAYOUT=heap\nCLIENTS=2\nRATE=10\nWORKLOAD=oltp\nTOPOLOGY=replset\n${extra}\n`;
  for (const [line, re] of [
    ['OLTP_MIX=90/10', /bench\.env:8: OLTP_MIX: invalid value "90\/10"; allowed: one of 95\/5, 50\/50/],
    ['TABLE_ROWS=10', /bench\.env:8: TABLE_ROWS: invalid value "10"; allowed: an integer >= 100/],
    ['FLIGHTS=10', /bench\.env:8: FLIGHTS applies only with WORKLOAD=booking/],
  ]) {
    fs.writeFileSync(file, bench(line));
    const r = await runCli(['validate-bench', file]);
    assert.equal(r.code, 2, line);
    assert.match(r.stderr, re);
  }
});
