'use strict';
// The Runner's waits (timer for long gaps, Atomics.wait for the last
// milliseconds) must never hand a document over before its intended start:
// start lag is measured from the intended start and would otherwise hide
// lateness. The target here is an in-process stand-in that only timestamps
// hand-overs; inserting into a real database is covered by the integration tests.
const test = require('node:test');
const assert = require('node:assert/strict');
const { Runner } = require('../../src/runner');

function timestampingTarget() {
  const handed = [];
  return {
    handed,
    build: (gen, index) => index,
    send(index) { handed.push([index, this.runner.elapsedNs()]); return Promise.resolve(); },
    isConnectionLost: () => false,
  };
}

for (const rate of [2000, 500, 90]) {
  test(`at ${rate}/s every document is handed over at or after its intended start, in order`, async () => {
    const docs = Math.round(rate * 0.4);
    const target = timestampingTarget();
    const opts = { rate, docs, clientId: 't', reconnectTimeoutS: 1 };
    const runner = new Runner({ target, gen: null, keys: null, opts, metrics: null, log: () => {}, label: 'test' });
    target.runner = runner;
    await runner.run();
    assert.equal(runner.ok, docs);
    assert.deepEqual(target.handed.map(([i]) => i), Array.from({ length: docs }, (_, i) => i));
    for (const [i, ns] of target.handed) {
      assert.ok(ns >= runner.schedule.intendedNs(i), `document ${i} handed at ${ns} ns, intended ${runner.schedule.intendedNs(i)} ns`);
    }
  });
}
