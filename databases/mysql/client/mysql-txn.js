'use strict';
// MySQL's transaction step kind: START TRANSACTION, the workload's steps, COMMIT, on a session
// whose isolation level was set once (prepareTxnSession: SET SESSION transaction_isolation, again
// after every reconnect), so a transaction costs the same round trips as PostgreSQL's (BEGIN
// ISOLATION LEVEL ..., steps, COMMIT). Retried (txn-retry.js: the same backoff as the others) on
// InnoDB's two lock conflicts (MySQL 8.4/9.7 manual, server-error-reference.html and
// innodb-deadlocks.html):
// - 1213 ER_LOCK_DEADLOCK: InnoDB chose this transaction as a deadlock victim and rolled it back;
// - 1205 ER_LOCK_WAIT_TIMEOUT: a lock wait outlasted innodb_lock_wait_timeout (50 s by default);
//   only the statement is rolled back (innodb_rollback_on_timeout=OFF, the default), so the
//   attempt's ROLLBACK below ends the transaction before the retry.
// A serialization failure as PostgreSQL's 40001 does not exist in InnoDB: SERIALIZABLE is
// REPEATABLE READ with every plain SELECT taken as SELECT ... FOR SHARE (innodb-transaction-
// isolation-levels.html), so its conflicts are lock waits and deadlocks too.
const { withRetries } = require('../../../client/src/sdk');

// The ISOLATION bench key -> InnoDB's level. REPEATABLE READ is InnoDB's default: consistent reads
// from the transaction's first snapshot, locking reads and writes with next-key locks (a record and
// the gap before it); READ COMMITTED: a fresh snapshot per statement, record locks only (gap locks
// only for foreign-key and duplicate-key checks); SERIALIZABLE: as REPEATABLE READ, plain SELECTs
// locking (shared next-key locks).
const ISOLATION_LEVELS = {
  'read-committed': 'READ-COMMITTED',
  'repeatable-read': 'REPEATABLE-READ',
  serializable: 'SERIALIZABLE',
};
// errno worth another attempt -> the reason the counts use
const RETRYABLE = { 1213: 'deadlock', 1205: 'lock_wait_timeout' };

// One transaction, retried: body(stepsOn(target)) runs between START TRANSACTION and COMMIT.
// A lost connection during COMMIT leaves the transaction in doubt (the server may have committed it).
function transaction(target, i, body, { policy, stats, stepsOn }) {
  const attempt = async () => {
    const { conn } = target;
    if (!conn || !target.txnStatements) throw new Error('not connected');
    await conn.query('START TRANSACTION');
    let committing = false;
    try {
      const out = await body(stepsOn(target.txnStatements));
      committing = true;
      await conn.query('COMMIT');
      return out;
    } catch (err) {
      if (target.isConnectionLost(err)) {
        if (committing) stats.doubt(i);
      } else {
        await conn.query('ROLLBACK').catch(() => {});
      }
      throw err;
    }
  };
  return withRetries(i, attempt, { policy, stats, classify: (err) => RETRYABLE[err.errno] || null });
}

const methods = {
  // What a transaction runs at: the ISOLATION it is given, as the session was set (prepareTxnSession).
  transactionIsolation(isolation) { return isolation; },
  // stepsOn (options): the workload's steps on the session's prepared statements (its
  // databases/mysql/client/workloads file).
  transaction(i, body, options) { return transaction(this, i, body, options); },
};

module.exports = {
  transaction, ISOLATION_LEVELS, RETRYABLE, methods,
};
