'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { Schedule, queueBound } = require('../../src/schedule');

test('intended start of document i is i/rate after t0, with no accumulated drift', () => {
  const s = new Schedule(3, 1e7); // 333,333,333.33 ns apart: not an integer
  assert.equal(s.intendedNs(0), 0);
  assert.equal(s.intendedNs(1), 333333333);
  assert.equal(s.intendedNs(3), 1e9);
  assert.equal(s.intendedNs(3e6), 1e15); // a million seconds later: still exact
  const fast = new Schedule(5000, 1e6);
  assert.equal(fast.intendedNs(100000), 20e9);
});

test('dueCount agrees with intendedNs at every boundary', () => {
  for (const rate of [1, 3, 7, 200, 1000, 4999.5, 5000]) {
    const s = new Schedule(rate, 1e9);
    for (let i = 0; i < 2000; i += 37) {
      const t = s.intendedNs(i);
      assert.equal(s.dueCount(t), i + 1, `rate ${rate}: document ${i} is due at its own time`);
      assert.equal(s.dueCount(t - 1), i, `rate ${rate}: document ${i} is not due 1 ns before`);
    }
  }
});

test('dueCount is 0 before t0 and capped at the total', () => {
  const s = new Schedule(100, 50);
  assert.equal(s.dueCount(-1), 0);
  assert.equal(s.dueCount(0), 1);
  assert.equal(s.dueCount(3600e9), 50);
});

test('queue bound: one second of load, at least 100', () => {
  assert.equal(queueBound(15), 100);
  assert.equal(queueBound(1000), 1000);
  assert.equal(queueBound(5000), 5000);
  assert.equal(queueBound(150.5), 151);
});
