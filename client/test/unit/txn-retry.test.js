'use strict';
// The retry policy's delays (MongoDB drivers' 5 ms x1.5 up to 500 ms, seeded jitter; immediate),
// the retry loop's counts (the nothing-lost check's verdicts: booking-check.test.js).
const test = require('node:test');
const assert = require('node:assert/strict');
const { RetryPolicy, TxnStats, withRetries } = require('../../src/targets/txn-retry');

test('backoff: 5 ms x1.5 per retry, capped at 500 ms, times a seeded jitter in [0.5, 1)', () => {
  const p = new RetryPolicy({ retry: 'backoff', maxAttempts: 20, seed: 3, clientId: '2' });
  for (let n = 1; n <= 20; n++) {
    const base = Math.min(500, 5 * 1.5 ** (n - 1));
    const d = p.delayMs(7, n);
    assert.ok(d >= base / 2 && d < base, `attempt ${n}: ${d} vs ${base}`);
  }
  assert.equal(p.delayMs(7, 3), new RetryPolicy({ retry: 'backoff', maxAttempts: 20, seed: 3, clientId: '2' }).delayMs(7, 3));
  assert.notEqual(p.delayMs(7, 3), new RetryPolicy({ retry: 'backoff', maxAttempts: 20, seed: 3, clientId: '1' }).delayMs(7, 3));
  assert.equal(new RetryPolicy({ retry: 'immediate', maxAttempts: 5 }).delayMs(7, 4), 0);
});

test('every attempt counted; a non-retryable error ends at once; MAX_ATTEMPTS gives up with the last error', async () => {
  const policy = new RetryPolicy({ retry: 'immediate', maxAttempts: 3 });
  const stats = new TxnStats();
  const classify = (e) => (e.code === '40001' ? 'serialization_failure' : null);
  const failing = (codes) => { let k = 0; return async () => { const c = codes[k++]; if (c) throw Object.assign(new Error(c), { code: c }); }; };
  await withRetries(0, failing(['40001', '40001']), { policy, stats, classify });
  await assert.rejects(withRetries(1, failing(['23505']), { policy, stats, classify }), { code: '23505', attempts: 1 });
  await assert.rejects(withRetries(2, failing(['40001', '40001', '40001']), { policy, stats, classify }), /gave up after 3 attempts, MAX_ATTEMPTS=3/);
  const r = stats.result(policy);
  assert.deepEqual({
    committed: r.committed, attempts: r.attempts, retries: r.retries, aborts: r.aborts, gave_up: r.gave_up,
  }, {
    committed: 1, attempts: 7, retries: 4, aborts: { serialization_failure: 5, 'error:23505': 1 }, gave_up: 1,
  });
  assert.equal(r.last_attempt_ms.p50 !== null, true);
});
