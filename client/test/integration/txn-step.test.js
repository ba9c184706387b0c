'use strict';
// The transaction step kind's retry decisions. PostgreSQL (real server): two transactions that
// lock two rows in opposite orders deadlock; the one PostgreSQL aborts (40P01) is retried and both
// commit, counted. MongoDB: SecantusDB has no configureFailPoint, so nothing here can make a real
// server answer UnknownTransactionCommitResult; that path runs against a session stub built from
// the driver's own error class (the error's shape is the driver's), and is named as such.
const test = require('node:test');
const assert = require('node:assert/strict');
const { MongoServerError } = require('mongodb');
const { startPostgres } = require('../helpers/postgres-server');
const { PostgresTarget } = require('../../../databases/postgres/client/postgres');
const pgTxn = require('../../../databases/postgres/client/postgres-txn');
const mongoTxn = require('../../../databases/mongodb/client/mongodb-txn');
const { RetryPolicy, TxnStats } = require('../../src/targets/txn-retry');

test('PostgreSQL: a deadlock (40P01) is retried and both transactions commit', { timeout: 60000 }, async (t) => {
  const pg = await startPostgres();
  t.after(() => pg.cleanup());
  await pg.query('create table d (id int primary key, n int not null)');
  await pg.query('insert into d values (1, 0), (2, 0)');
  const targets = [new PostgresTarget(pg.uri), new PostgresTarget(pg.uri)];
  for (const x of targets) await x.connect();
  t.after(() => Promise.all(targets.map((x) => x.close())));
  const stats = new TxnStats();
  const policy = new RetryPolicy({ retry: 'backoff', maxAttempts: 5 });
  // Both take their first lock, then wait for each other's.
  let arrived = 0;
  let release;
  const bothLocked = new Promise((r) => { release = r; });
  const body = (first, second) => async (client) => {
    await client.query('update d set n = n + 1 where id = $1', [first]);
    if (++arrived === 2) release();
    await bothLocked;
    await client.query('update d set n = n + 1 where id = $1', [second]);
  };
  await Promise.all([
    pgTxn.transaction(targets[0], 0, body(1, 2), { isolation: 'read-committed', policy, stats, stepsOn: (c) => c }),
    pgTxn.transaction(targets[1], 1, body(2, 1), { isolation: 'read-committed', policy, stats, stepsOn: (c) => c }),
  ]);
  assert.deepEqual(stats.aborts, { deadlock_detected: 1 });
  assert.equal(stats.committed, 2);
  assert.equal(stats.attempts, 3);
  assert.deepEqual((await pg.query('select n from d order by id')).rows.map((r) => r.n), [2, 2]);
});

// A session stub whose commits fail `failures` times with the driver's error for `labels`.
function stubTarget(failures, labels) {
  let commits = 0;
  const session = {
    startTransaction() {},
    abortTransaction: async () => {},
    commitTransaction: async () => {
      commits++;
      if (commits <= failures) throw new MongoServerError({ message: 'commit reply lost', code: 91, errorLabels: labels });
    },
  };
  // a server's answer, not a lost connection (the lost reply itself: unknown-commit.test.js)
  return {
    target: {
      client: {}, db: {}, txnSession: () => session, isConnectionLost: () => false,
    },
    commits: () => commits,
  };
}

test('MongoDB (stub session): UnknownTransactionCommitResult retries the commit alone; past MAX_ATTEMPTS it is in doubt', async () => {
  const policy = new RetryPolicy({ retry: 'immediate', maxAttempts: 3 });
  let bodies = 0;
  const body = async () => { bodies++; return 7; };
  const ok = stubTarget(2, ['UnknownTransactionCommitResult']);
  const stats = new TxnStats();
  assert.equal(await mongoTxn.transaction(ok.target, 0, body, { policy, stats, stepsOn: () => null }), 7);
  assert.deepEqual({ bodies, commits: ok.commits(), commitRetries: stats.commitRetries, attempts: stats.attempts }, {
    bodies: 1, commits: 3, commitRetries: 2, attempts: 1,
  });
  const lost = stubTarget(99, ['UnknownTransactionCommitResult']);
  const s2 = new TxnStats();
  await assert.rejects(mongoTxn.transaction(lost.target, 1, body, { policy, stats: s2, stepsOn: () => null }), /commit reply lost/);
  assert.equal(s2.inDoubt, 1);
  assert.equal(lost.commits(), 3);
  // TransientTransactionError on the commit: the whole transaction again.
  const transient = stubTarget(1, ['TransientTransactionError']);
  const s3 = new TxnStats();
  bodies = 0;
  await mongoTxn.transaction(transient.target, 2, body, { policy, stats: s3, stepsOn: () => null });
  assert.deepEqual({ bodies, attempts: s3.attempts, aborts: s3.aborts }, { bodies: 2, attempts: 2, aborts: { 'TransientTransactionError:91': 1 } });
  assert.equal(s3.inDoubt, 0, 'a server that answered the first commit with an error did not commit');
});
