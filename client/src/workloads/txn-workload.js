'use strict';
// What the transaction workloads (booking, oltp) share: the retry policy and counts, SESSIONS
// connections per client (run.js opens them, the Runner's lanes), the session preparation (the
// database's workload file's `prepare`, databases/<db>/client/workloads/<workload>.js: its
// settings; on MongoDB, the refusal of a standalone server), each operation run by the binding's
// transaction step kind with the workload file's steps (stepsOn), and the result's `transactions`
// figures.
const { hashString } = require('../prng');
const { RetryPolicy, TxnStats } = require('../targets/txn-retry');
const { clientIndex } = require('./client-index');
const { InputError } = require('../input-error');
const { databaseWorkload } = require('../databases');

class TxnWorkload {
  // workload: its name (WORKLOAD), whose file in the database's folder says what it runs there.
  constructor({ target, opts, workload }) {
    clientIndex(opts); // refuses a client id outside 1..CLIENTS
    this.target = target;
    this.opts = opts;
    this.total = opts.ops;
    this.rate = opts.rate;
    this.seed = opts.seed >>> 0;
    this.ownHash = hashString(String(opts.clientId));
    this.policy = new RetryPolicy({ retry: opts.retry, maxAttempts: opts.maxAttempts, seed: opts.seed, clientId: opts.clientId });
    this.stats = new TxnStats();
    this.txOptions = { isolation: opts.isolation, policy: this.policy, stats: this.stats };
    this.sessions = opts.sessions || 1;
    // what this database does for the workload beyond the step kinds
    this.own = databaseWorkload(target.database, workload);
  }

  // Attempts, commits and aborts by reason also as Prometheus series (run.js, when /metrics is served).
  observe(metrics) { this.stats.observe(metrics.txnSeries()); }

  prepare(opts) { return this.prepareTarget(this.target, opts); }

  // After the binding's own preparation (which may refuse the model, naming it): what its
  // transactions run at is the binding's to say (transactions.isolation), so one that does not say
  // is refused before the first transaction, rather than reporting a setting it may ignore.
  async prepareTarget(target, opts) {
    const prepared = await this.own.prepare(target, opts);
    if (typeof target.transactionIsolation !== 'function') {
      throw new InputError(`the ${target.database} binding has no transactionIsolation(isolation) (the isolation its transactions `
        + `run at, the result's transactions.isolation): WORKLOAD=${this.opts.workload} cannot run on it`);
    }
    return prepared;
  }

  acknowledge() {}

  // Operation i as one transaction of the binding (its transaction step kind: retries, in-doubt
  // commits), body given the workload file's steps on that transaction.
  transaction(target, i, body) {
    return target.transaction(i, body, { ...this.txOptions, stepsOn: this.own.stepsOn });
  }

  // The run's transaction figures (result field `transactions`, docs/contracts.md); extra: the model's.
  transactionFields(extra) {
    return {
      transactions: {
        isolation: this.target.transactionIsolation(this.opts.isolation),
        ...extra,
        // a binding's statement form, when it has one (PostgreSQL: named; databases/<name>/client)
        ...(this.target.statements ? { statements: this.target.statements } : {}),
        sessions: this.sessions,
        ...this.stats.result(this.policy),
      },
    };
  }
}

module.exports = { TxnWorkload };
