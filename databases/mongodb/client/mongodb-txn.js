'use strict';
// MongoDB's transaction step kind: a multi-document transaction (snapshot read concern, majority
// write concern) on the connection's session, retried as MongoDB's drivers specification says:
// the whole transaction on an error labelled TransientTransactionError, the commit alone on
// UnknownTransactionCommitResult. stepsOn(db, session): the model's steps in this transaction.
const { withRetries, InputError } = require('../../../client/src/sdk');

const TXN_OPTIONS = { readConcern: { level: 'snapshot' }, writeConcern: { w: 'majority' } };
const TRANSIENT = 'TransientTransactionError';
const UNKNOWN_COMMIT = 'UnknownTransactionCommitResult';
const NO_SUCH_TRANSACTION = 251; // error code NoSuchTransaction

// Transactions on a standalone server would fail on their first commit: said first. The refusal
// names what needs them no more than the binding does (`needs`: the workload file's prepare
// prefixes its WORKLOAD, workloads/booking.js prepareTransactionsOf).
class StandaloneRefused extends InputError {}
async function requireReplicaSet(client) {
  const hello = await client.db('admin').command({ hello: 1 });
  if (!hello.setName) {
    throw new StandaloneRefused('runs multi-document transactions, which MongoDB allows only on a replica set '
      + '(this server is standalone: hello has no setName); allowed: a server started as a replica set (the lab: TOPOLOGY=replset; '
      + 'a single-node set needs directConnection=true in the URI)');
  }
  return hello.setName;
}

const hasLabel = (err, label) => typeof err.hasErrorLabel === 'function' && err.hasErrorLabel(label);

// One transaction, retried: body(stepsOn(db, session)) between startTransaction and the commit.
// The commit is retried alone while it fails with UnknownTransactionCommitResult (up to
// MAX_ATTEMPTS commits); if it still fails, or the connection went during the commit, the
// transaction is in doubt (the server may have committed it).
function transaction(target, i, body, { policy, stats, stepsOn }) {
  const attempt = async () => {
    if (!target.client) throw new Error('not connected');
    const session = target.txnSession();
    session.startTransaction(TXN_OPTIONS);
    let out;
    try {
      out = await body(stepsOn(target.db, session));
    } catch (err) {
      await session.abortTransaction().catch(() => {});
      throw err;
    }
    for (let n = 1; ; n++) {
      try {
        await session.commitTransaction();
        return out;
      } catch (err) {
        if (!hasLabel(err, UNKNOWN_COMMIT) || hasLabel(err, TRANSIENT)) {
          // The commit may have landed with its reply lost: a connection lost during it, any failure
          // after a retried commit, or NoSuchTransaction (the driver retries a commit whose reply was
          // lost once by itself; SecantusDB forgets its transactions when it restarts and answers a
          // re-commit of one it committed before a kill NoSuchTransaction, TransientTransactionError).
          // A TransientTransactionError then runs the whole transaction again: if that attempt
          // commits, the booking is committed and no longer in doubt (TxnStats.commit); if the first
          // commit had landed, the retry fails on the seat's duplicate key and it stays in doubt.
          if (target.isConnectionLost(err) || n > 1 || err.code === NO_SUCH_TRANSACTION) stats.doubt(i);
          throw err;
        }
        if (n >= policy.maxAttempts) { stats.doubt(i); throw err; }
        stats.commitRetries++;
      }
    }
  };
  const classify = (err) => (hasLabel(err, TRANSIENT) ? `${TRANSIENT}:${err.codeName || err.code || err.name}` : null);
  return withRetries(i, attempt, { policy, stats, classify });
}

const methods = {
  // Every transaction runs with TXN_OPTIONS whatever ISOLATION says (MongoDB has no isolation level
  // to set): reported as the result's transactions.isolation.
  transactionIsolation() {
    return `snapshot (read concern ${TXN_OPTIONS.readConcern.level}, write concern ${TXN_OPTIONS.writeConcern.w})`;
  },
  // Before the first transaction of a connection: a standalone server is refused (requireReplicaSet).
  prepareTransactions() { return requireReplicaSet(this.client); },
  // stepsOn (options): the workload's steps in this transaction (its databases/mongodb/client/workloads file).
  transaction(i, body, options) { return transaction(this, i, body, options); },
  // The connection's one session for its transactions (mongodb.js ends it at close).
  txnSession() {
    if (!this.session || this.session.hasEnded) this.session = this.client.startSession();
    return this.session;
  },
};

module.exports = {
  transaction, requireReplicaSet, StandaloneRefused, TXN_OPTIONS, methods,
};
