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

// The indices of one client's transactions in one state, as sorted inclusive ranges [[first, last],
// ...] (the result file's committed_indices / in_doubt_indices): small when the indices mostly run
// on, however many transactions there are. add() extends the last range when i follows it (the
// common case: transactions end nearly in order, several lanes at once only shuffle neighbours);
// ranges() sorts and joins the rest.
class IndexRanges {
  constructor() { this.list = []; }

  add(i) {
    const last = this.list[this.list.length - 1];
    if (last && i === last[1] + 1) last[1] = i;
    else this.list.push([i, i]);
  }

  ranges() {
    const sorted = this.list.map((r) => [...r]).sort((a, b) => a[0] - b[0]);
    const out = [];
    for (const r of sorted) {
      const last = out[out.length - 1];
      if (last && r[0] <= last[1] + 1) last[1] = Math.max(last[1], r[1]);
      else out.push(r);
    }
    return out;
  }
}

// Counts of one client's transactions: attempts, aborts by reason, commits that needed a retried
// commit, in-doubt commits (the connection went during COMMIT: committed or not, the server
// knows), and the last attempt's duration of each committed transaction. Each transaction i ends
// committed, in doubt or neither: a transaction in doubt after one attempt that a later attempt
// committed is committed only (MongoDB: a re-commit answered NoSuchTransaction is in doubt, then
// the whole transaction is retried and commits), so no transaction is counted twice.
class TxnStats {
  constructor() {
    this.committed = 0;
    this.attempts = 0;
    this.aborts = {};
    this.gaveUp = 0;
    this.doubted = new Set();
    this.commitRetries = 0;
    this.retries = 0;
    this.committedAt = new IndexRanges();
    this.lastAttempt = newHistogram();
  }

  // Transactions whose commit may or may not have landed, and no later attempt committed.
  get inDoubt() { return this.doubted.size; }

  // The Prometheus series of the same counts (metrics.js txnSeries()), when the client serves /metrics.
  observe(series) { this.series = series; }

  attempted() {
    this.attempts++;
    if (this.series) this.series.attempts.inc();
  }

  // Transaction i committed; its last attempt took lastAttemptUs.
  commit(i, lastAttemptUs) {
    this.lastAttempt.recordValue(lastAttemptUs);
    this.committed++;
    this.committedAt.add(i);
    this.doubted.delete(i);
    if (this.series) this.series.commits.inc();
  }

  // Transaction i's commit was sent and its outcome is unknown (a binding's call).
  doubt(i) { this.doubted.add(i); }

  abort(reason) {
    this.aborts[reason] = (this.aborts[reason] || 0) + 1;
    if (this.series) this.series.aborts.inc({ reason });
  }

  result(policy) {
    const doubted = new IndexRanges();
    for (const i of [...this.doubted].sort((a, b) => a - b)) doubted.add(i);
    return {
      ...policy.describe(),
      committed: this.committed,
      attempts: this.attempts,
      retries: this.retries,
      aborts: this.aborts,
      gave_up: this.gaveUp,
      in_doubt: this.inDoubt,
      commit_retries: this.commitRetries,
      // which transactions (indices 0..OPS-1): the nothing-lost check derives their ids from them
      committed_indices: this.committedAt.ranges(),
      in_doubt_indices: doubted.ranges(),
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
      stats.commit(i, Math.max(1, Math.round(Number(now() - start) / 1000)));
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
  RetryPolicy, TxnStats, IndexRanges, withRetries, sleep, BACKOFF_INITIAL_MS, BACKOFF_GROWTH, BACKOFF_MAX_MS,
};
