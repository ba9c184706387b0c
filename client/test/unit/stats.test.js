'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { summarize, newHistogram } = require('../../src/stats');

test('no percentile is above the largest value recorded (the top bucket reads its upper edge)', () => {
  const h = newHistogram();
  for (let i = 0; i < 9; i++) h.recordValue(1000);
  h.recordValue(14005); // microseconds; its bucket's upper edge is 14007
  assert.equal(h.getValueAtPercentile(99), 14007, 'the library answers the bucket edge');
  const s = summarize(h);
  assert.equal(s.max, 14.005);
  assert.equal(s.p99, 14.005);
  assert.equal(s.p999, 14.005);
  assert.equal(s.p50, h.getValueAtPercentile(50) / 1000);
});

test('an empty histogram summarizes to nulls', () => {
  assert.deepEqual(summarize(newHistogram()), { p50: null, p90: null, p99: null, p999: null, max: null });
});
