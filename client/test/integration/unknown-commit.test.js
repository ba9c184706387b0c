'use strict';
// UnknownTransactionCommitResult against a real server: SecantusDB (the MongoDB stand-in, a
// one-member replica set) behind a proxy that swallows the server's replies to commitTransaction
// (test/helpers/drop-reply-proxy.js): the commit lands, the client loses its connection instead of
// the reply. What the booking client then does, by how many replies are lost in a row:
// 1: the driver retries the commit itself and the server answers the retry (no commit retry of ours);
// 2: the driver gives up with UnknownTransactionCommitResult and the client retries the commit alone;
// 2 x MAX_ATTEMPTS: the client stops and counts the booking in doubt, not committed.
// In every case the booking is in the database exactly once and the nothing-lost check holds.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { startSecantus } = require('../helpers/secantus-server');
const { startDropReplyProxy } = require('../helpers/drop-reply-proxy');
const { runCli } = require('../helpers/run-cli');
const { writeOutcomes } = require('../helpers/txn-outcomes');

const BASE = {
  WORKLOAD: 'booking', KEY: 'uuidv7', LAYOUT: 'heap', SEED: '5', FLIGHTS: '5', MAX_ATTEMPTS: '3',
};
const OPS = 10;

test('a lost commit reply on SecantusDB: retried by the driver, then by the client, then in doubt', { timeout: 300000 }, async (t) => {
  const sec = await startSecantus({ replset: true });
  const proxy = await startDropReplyProxy({ host: '127.0.0.1', port: sec.port });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'jsonbench-unknown-commit-'));
  t.after(async () => { await proxy.close(); await sec.cleanup(); fs.rmSync(tmp, { recursive: true, force: true }); });
  const viaProxy = `mongodb://127.0.0.1:${proxy.port}/jsonbench?directConnection=true`;

  for (const [lost, expect] of [
    [1, { committed: OPS, inDoubt: 0, commitRetries: 0 }],
    [2, { committed: OPS, inDoubt: 0, commitRetries: 1 }],
    [6, { committed: OPS - 1, inDoubt: 1, commitRetries: 2 }],
  ]) {
    await t.test(`${lost} commit repl${lost === 1 ? 'y' : 'ies'} lost in a row`, async () => {
      const init = await runCli(['init'], { env: { ...BASE, URI: sec.uri }, timeoutMs: 120000 });
      assert.equal(init.code, 0, init.stderr);
      const rule = proxy.drop('commitTransaction', lost);
      const result = path.join(tmp, `lost-${lost}.json`);
      // one session, so the lost replies are those of one transaction's commits
      const r = await runCli(['run'], {
        env: {
          ...BASE, URI: viaProxy, OPS: String(OPS), RATE: '10', SESSIONS: '1', RESULT: result, RECONNECT_TIMEOUT_S: '10',
        },
        timeoutMs: 120000,
      });
      assert.equal(rule.dropped, lost, 'the proxy did not see the commits');
      const res = JSON.parse(fs.readFileSync(result, 'utf8'));
      const tx = res.transactions;
      assert.equal(tx.committed, expect.committed, JSON.stringify(tx));
      assert.equal(tx.in_doubt, expect.inDoubt);
      assert.equal(tx.commit_retries, expect.commitRetries);
      assert.equal(r.code, expect.inDoubt ? 1 : 0, r.stderr);
      // read past the proxy: the booking whose replies were lost is there once, whatever the client knew
      const c = await runCli(['count'], {
        env: { WORKLOAD: 'booking', URI: sec.uri, TXN_OUTCOMES: writeOutcomes(tmp, [res]) },
        timeoutMs: 120000,
      });
      assert.equal(c.code, 0, c.stderr + c.stdout);
      const check = JSON.parse(c.stdout.trim().split('\n').pop()).booking_check;
      assert.equal(check.seats, OPS);
      // the booking in doubt is the one whose commit landed: found by its id
      assert.equal(check.in_doubt_landed, expect.inDoubt);
      assert.ok(check.ok, check.problems.join('; '));
      t.diagnostic(`${lost} lost: ${tx.committed} committed, ${tx.in_doubt} in doubt, ${tx.commit_retries} commit retries, ${check.seats} seats`);
    });
  }
});

// The re-commit path (mongodb-txn.js): the first commitTransaction never reaches SecantusDB, which
// meanwhile forgets the transaction (killAllSessions, as a restart would); the driver retries the
// commit by itself after the lost connection and the server answers NoSuchTransaction, labelled
// TransientTransactionError. The client counts the booking in doubt (the commit might have landed),
// runs the whole transaction again, and it commits: the booking is committed once and not in doubt,
// and the nothing-lost check finds exactly the committed bookings by id.
test('a re-commit answered NoSuchTransaction on SecantusDB: retried, committed, not in doubt', { timeout: 300000 }, async (t) => {
  const sec = await startSecantus({ replset: true });
  const proxy = await startDropReplyProxy({ host: '127.0.0.1', port: sec.port });
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'jsonbench-no-such-txn-'));
  t.after(async () => { await proxy.close(); await sec.cleanup(); fs.rmSync(tmp, { recursive: true, force: true }); });
  const init = await runCli(['init'], { env: { ...BASE, URI: sec.uri }, timeoutMs: 120000 });
  assert.equal(init.code, 0, init.stderr);
  const rule = proxy.swallow('commitTransaction', 1, () => sec.withDb((db) => db.admin().command({ killAllSessions: [] })));
  const result = path.join(tmp, 'no-such-transaction.json');
  const r = await runCli(['run'], {
    env: {
      ...BASE, URI: `mongodb://127.0.0.1:${proxy.port}/jsonbench?directConnection=true`, OPS: String(OPS), RATE: '10',
      SESSIONS: '1', RESULT: result, RECONNECT_TIMEOUT_S: '10',
    },
    timeoutMs: 120000,
  });
  assert.equal(rule.dropped, 1, 'the proxy saw no commit');
  const res = JSON.parse(fs.readFileSync(result, 'utf8'));
  const tx = res.transactions;
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(tx.aborts, { 'TransientTransactionError:NoSuchTransaction': 1 }, JSON.stringify(tx));
  assert.equal(tx.committed, OPS);
  assert.equal(tx.in_doubt, 0, 'a booking a later attempt committed is not in doubt');
  assert.deepEqual(tx.committed_indices, [[0, OPS - 1]]);
  assert.deepEqual(tx.in_doubt_indices, []);
  const c = await runCli(['count'], {
    env: { WORKLOAD: 'booking', URI: sec.uri, TXN_OUTCOMES: writeOutcomes(tmp, [res]) }, timeoutMs: 120000,
  });
  assert.equal(c.code, 0, c.stderr + c.stdout);
  const check = JSON.parse(c.stdout.trim().split('\n').pop()).booking_check;
  assert.deepEqual([check.seats, check.ids_checked, check.lost_count, check.unexpected_count], [OPS, OPS, 0, 0]);
  t.diagnostic(`NoSuchTransaction on the re-commit: ${tx.attempts} attempts, ${tx.committed} committed, ${tx.in_doubt} in doubt`);
});
