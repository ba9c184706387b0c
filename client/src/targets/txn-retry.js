'use strict';
// Retrying a transaction: the policy (RETRY, MAX_ATTEMPTS), the loop both bindings share, and the
// per-client counts of every attempt. A binding supplies one attempt (begin .. commit, rolled back
// on failure) and says which errors are worth another attempt (classify: a reason or null).
//
// Backoff: MongoDB's drivers specification for the convenient transaction API retries a
// transient failure after 5 ms, growing x1.5 per retry up to 500 ms; here that delay is scaled by
// a jitter in [0.5, 1) drawn from (SEED, client, transaction, attempt), so two clients that
// collided do not retry in lockstep and a run is repeatable. RETRY=immediate retries at once,
// as the study's client did.
const { Sfc32, hashString } = require('../prng');
const { newHistogram, summarize } = require('../stats');
const hdr = require('hdr-histogram-js');

const BACKOFF_INITIAL_MS = 5;
const BACKOFF_GROWTH = 1.5;
const BACKOFF_MAX_MS = 500;
const JITTER_SALT = 0x6a697421; // "jit!"

class RetryPolicy {
  constructor({ retry, maxAttempts, seed = 1, clientId = '1' }) {
    this.mode = retry;
    this.maxAttempts = maxAttempts;
    this.seed = (seed ^ JITTER_SALT) >>> 0;
    this.clientHash = hashString(String(clientId));
    this.rng = new Sfc32(0, 0, 0, 0);
  }

  // Milliseconds to wait before attempt `attempt + 1` of transaction i (attempt >= 1).
  delayMs(i, attempt) {
    if (this.mode === 'immediate') return 0;
    const base = Math.min(BACKOFF_MAX_MS, BACKOFF_INITIAL_MS * BACKOFF_GROWTH ** (attempt - 1));
    const u = this.rng.reseed(this.seed, this.clientHash, ((i * 64) + attempt) >>> 0).next() / 4294967296;
    return base * (0.5 + u / 2);
  }

  describe() {
    return this.mode === 'immediate'
      ? { retry: 'immediate', max_attempts: this.maxAttempts }
      : {
        retry: 'backoff', max_attempts: this.maxAttempts, initial_ms: BACKOFF_INITIAL_MS, growth: BACKOFF_GROWTH, max_ms: BACKOFF_MAX_MS, jitter: '[0.5, 1) x delay, seeded',
      };
  }
}

// Counts of one client's transactions: attempts, aborts by reason, commits that needed a retried
// commit, in-doubt commits (the connection went during COMMIT: committed or not, the server
// knows), and the last attempt's duration of each committed transaction.
class TxnStats {
  constructor() {
    this.committed = 0;
    this.attempts = 0;
    this.aborts = {};
    this.gaveUp = 0;
    this.inDoubt = 0;
    this.commitRetries = 0;
    this.retries = 0;
    this.lastAttempt = newHistogram();
  }

  // The Prometheus series of the same counts (metrics.js txnSeries()), when the client serves /metrics.
  observe(series) { this.series = series; }

  attempted() {
    this.attempts++;
    if (this.series) this.series.attempts.inc();
  }

  commit(lastAttemptUs) {
    this.lastAttempt.recordValue(lastAttemptUs);
    this.committed++;
    if (this.series) this.series.commits.inc();
  }

  abort(reason) {
    this.aborts[reason] = (this.aborts[reason] || 0) + 1;
    if (this.series) this.series.aborts.inc({ reason });
  }

  result(policy) {
    return {
      ...policy.describe(),
      committed: this.committed,
      attempts: this.attempts,
      retries: this.retries,
      aborts: this.aborts,
      gave_up: this.gaveUp,
      in_doubt: this.inDoubt,
      commit_retries: this.commitRetries,
      last_attempt_ms: summarize(this.lastAttempt),
      last_attempt_us: hdr.encodeIntoCompressedBase64(this.lastAttempt),
    };
  }
}

const sleep = (ms) => new Promise((r) => { setTimeout(r, ms); });
const now = () => process.hrtime.bigint();

// Runs attempt(n) until it resolves, a non-retryable error, or MAX_ATTEMPTS; every attempt and
// abort counted. The error that ends it is the last attempt's own (the runner sees a lost
// connection as one), with `attempts` and `reason` set.
async function withRetries(i, attempt, { policy, stats, classify }) {
  for (let n = 1; ; n++) {
    stats.attempted();
    const start = now();
    try {
      const r = await attempt(n);
      stats.commit(Math.max(1, Math.round(Number(now() - start) / 1000)));
      return r;
    } catch (err) {
      const reason = classify(err);
      err.attempts = n;
      if (!reason) {
        stats.abort(`error:${err.code || err.codeName || err.name || 'unknown'}`);
        throw err;
      }
      stats.abort(reason);
      if (n >= policy.maxAttempts) {
        stats.gaveUp++;
        err.message = `${err.message} (gave up after ${n} attempts, MAX_ATTEMPTS=${policy.maxAttempts})`;
        throw err;
      }
      stats.retries++;
      const ms = policy.delayMs(i, n);
      if (ms > 0) await sleep(ms);
    }
  }
}

module.exports = {
  RetryPolicy, TxnStats, withRetries, sleep, BACKOFF_INITIAL_MS, BACKOFF_GROWTH, BACKOFF_MAX_MS,
};
