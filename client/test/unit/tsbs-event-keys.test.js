'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const t = require('../../src/datasets/tsbs-devops');
const k = require('../../src/datasets/tsbs-event-keys');

const O = { seed: 2, hosts: 4, start: '2016-01-01T00:59:50Z', intervalSeconds: 7, spanSeconds: 3700, hostIds: [0, 2, 3] };

test('event keys are the (host, time) of exactly the generated events, in the same order', () => {
  const keys = [...k.eventKeys(O)];
  const events = [...t.events(O)];
  assert.equal(keys.length, events.length);
  assert.equal(k.eventCount(O), events.length);
  for (let i = 0; i < events.length; i++) {
    assert.equal(keys[i].hostname, events[i].tags.hostname);
    assert.equal(keys[i].time, events[i].time.toISOString());
    assert.equal(keys[i].timeMs, events[i].time.getTime());
  }
  assert.equal(new Set(keys.map((x) => `${x.hostname} ${x.time}`)).size, keys.length, 'no (host, time) twice');
});

test('bucket counts are the lengths of the generated buckets', () => {
  const counts = k.bucketCounts(O);
  const fromBuckets = new Map([...t.buckets(O)].map((b) => [b._id, b.events.length]));
  assert.deepEqual([...counts].sort(), [...fromBuckets].sort());
  assert.equal([...counts.values()].reduce((a, b) => a + b, 0), k.eventCount(O));
  assert.equal(counts.size, 3 * 3, 'hours 00, 01, 02 for 3 hosts');
});
