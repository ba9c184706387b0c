'use strict';
// PostgreSQL's transaction step kind: BEGIN at ISOLATION, the workload's steps, COMMIT; retried
// (txn-retry.js) on 40001 serialization_failure and 40P01 deadlock_detected (the study's client
// retried on serialization failures only). stepsOn(client): the model's steps on this session.
const { withRetries } = require('../../../client/src/sdk');

const ISOLATION_SQL = {
  'read-committed': 'begin isolation level read committed',
  'repeatable-read': 'begin isolation level repeatable read',
  serializable: 'begin isolation level serializable',
};
// SQLSTATEs worth another attempt (PostgreSQL manual, Appendix A; "Serialization Failure Handling").
const RETRYABLE = { 40001: 'serialization_failure', '40P01': 'deadlock_detected' };

// One transaction, retried: body(stepsOn(client)) runs between BEGIN (at ISOLATION) and COMMIT.
// lost(err): the session is gone (no ROLLBACK to send; a COMMIT in flight is in doubt).
function transaction(target, i, body, {
  isolation, policy, stats, stepsOn,
}) {
  const attempt = async () => {
    const { client } = target;
    if (!client) throw new Error('not connected');
    await client.query(ISOLATION_SQL[isolation]);
    let committing = false;
    try {
      const out = await body(stepsOn(client));
      committing = true;
      await client.query('commit');
      return out;
    } catch (err) {
      if (target.isConnectionLost(err)) {
        if (committing) stats.doubt(i);
      } else {
        await client.query('rollback').catch(() => {});
      }
      throw err;
    }
  };
  return withRetries(i, attempt, { policy, stats, classify: (err) => RETRYABLE[err.code] || null });
}

// The binding's transaction step kind (postgres.js): a transaction runs at the ISOLATION it is
// given (BEGIN ISOLATION LEVEL above), reported as the result's transactions.isolation; the
// session is prepared once (its commit durability, DURABILITY, set again after every reconnect by
// prepareSession). Named prepared statements (pg's query config `name`: parsed once per session)
// on every path: through PgBouncer in transaction mode too, whose max_prepared_statements prepares
// each one once on each server connection a client's transaction lands on
// (pgbouncer/pgbouncer-entrypoint.sh).
const methods = {
  transactionIsolation(isolation) { return isolation; },
  prepareTransactions({ durability }) {
    this.transactions = { durability };
    this.statements = 'named';
    return this.prepareSession();
  },
  // stepsOn (options): the workload's steps on this session (its databases/postgres/client/workloads file).
  transaction(i, body, options) { return transaction(this, i, body, options); },
};

module.exports = {
  transaction, ISOLATION_SQL, RETRYABLE, methods,
};
