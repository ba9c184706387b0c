'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('crypto');
const t = require('../../src/datasets/tsbs-devops');

const sha = (iter) => {
  const h = crypto.createHash('sha256');
  let n = 0;
  for (const d of iter) { h.update(t.toJson(d)).update('\n'); n++; }
  return { hash: h.digest('hex'), n };
};
const OPTS = { seed: 7, hosts: 5, intervalSeconds: 10, spanSeconds: 3 * 3600 };

test('same seed, same bytes; another seed, other bytes', () => {
  const a = sha(t.events(OPTS));
  const b = sha(t.events({ ...OPTS }));
  assert.equal(a.n, 5 * 3 * 360);
  assert.equal(a.hash, b.hash);
  assert.notEqual(sha(t.events({ ...OPTS, seed: 8 })).hash, a.hash);
  assert.equal(sha(t.buckets(OPTS)).hash, sha(t.buckets(OPTS)).hash);
});

test('first events pinned (a change to the definition must be deliberate)', () => {
  const first = t.events({ seed: 1, hosts: 1, spanSeconds: 20 }).next().value;
  assert.equal(t.toJson(first), '{"time":"2016-01-01T00:00:00.000Z","tags":{"hostname":"host_0","region":"us-east-1","datacenter":"us-east-1b","rack":"59","os":"Ubuntu16.04LTS","arch":"x86","team":"CHI","service":"16","service_version":"1","service_environment":"test"},"usage_user":18,"usage_system":23,"usage_idle":12,"usage_nice":3,"usage_iowait":12,"usage_irq":20,"usage_softirq":23,"usage_steal":3,"usage_guest":46,"usage_guest_nice":62}');
});

test('shape and bounds: ten tags, ten integer fields in 0..100, TSBS order, walks that move', () => {
  const events = [...t.events({ seed: 3, hosts: 4, intervalSeconds: 10, spanSeconds: 24 * 3600 })];
  assert.equal(events.length, 4 * 8640);
  const seen = new Set();
  let moved = 0;
  let atBound = 0;
  for (let i = 0; i < events.length; i++) {
    const e = events[i];
    assert.deepEqual(Object.keys(e), ['time', 'tags', ...t.FIELD_NAMES]);
    assert.deepEqual(Object.keys(e.tags), t.TAG_NAMES);
    assert.equal(e.time.getTime(), Date.parse('2016-01-01T00:00:00Z') + Math.floor(i / 4) * 10000);
    assert.equal(e.tags.hostname, `host_${i % 4}`);
    for (const f of t.FIELD_NAMES) {
      assert.ok(Number.isInteger(e[f]) && e[f] >= 0 && e[f] <= 100, `${f}=${e[f]}`);
      if (e[f] === 0 || e[f] === 100) atBound++;
    }
    if (i >= 4 && e.usage_user !== events[i - 4].usage_user) moved++;
    seen.add(t.toJson(e.tags));
  }
  assert.equal(seen.size, 4, 'tags are fixed per host');
  assert.ok(moved > events.length / 4, `usage_user moves (${moved})`);
  assert.ok(atBound > 0, 'a day-long walk reaches the clamp');
  // A step is at most 6 (Irwin-Hall bound), so consecutive integers differ by <= 7.
  for (let i = 4; i < events.length; i++) for (const f of t.FIELD_NAMES) assert.ok(Math.abs(events[i][f] - events[i - 4][f]) <= 7);
});

test('tags cover TSBS value sets over many hosts', () => {
  const tags = Array.from({ length: 400 }, (_, h) => t.hostTags(1, h));
  const values = (k) => new Set(tags.map((x) => x[k]));
  assert.equal(values('region').size, 9);
  assert.equal(values('os').size, 3);
  assert.equal(values('arch').size, 2);
  assert.equal(values('team').size, 4);
  assert.equal(values('service').size, 20);
  assert.deepEqual([...values('service_version')].sort(), ['0', '1']);
  assert.deepEqual([...values('service_environment')].sort(), ['production', 'staging', 'test']);
  for (const x of tags) {
    assert.ok(x.datacenter.startsWith(x.region), `${x.datacenter} in ${x.region}`);
    assert.ok(Number(x.rack) >= 0 && Number(x.rack) < 100);
  }
});

test('bucket form holds exactly the per-event events (unaligned start, partial hours)', () => {
  const o = { seed: 11, hosts: 3, start: '2016-03-01T10:59:30Z', intervalSeconds: 7, spanSeconds: 2 * 3600 + 123 };
  const perEvent = [...t.events(o)].map(t.toJson).sort();
  const fromBuckets = [];
  const ids = new Set();
  for (const b of t.buckets(o)) {
    assert.ok(!ids.has(b._id), 'one bucket per host and hour');
    ids.add(b._id);
    for (const e of t.eventsOfBucket(b)) {
      assert.equal(t.hourOf(e.time.getTime()), b.hour.getTime());
      assert.deepEqual(t.bucketOf(e), { _id: b._id, hour: b.hour, tags: b.tags });
      fromBuckets.push(t.toJson(e));
    }
  }
  assert.equal(ids.size, 3 * 4); // 10:59:30 .. 13:01:33 touches hours 10, 11, 12, 13
  assert.deepEqual(fromBuckets.sort(), perEvent);
});

test('bucketEntry/eventsOfBucket round-trip an event', () => {
  const e = t.events({ hosts: 1, spanSeconds: 10 }).next().value;
  const b = { ...t.bucketOf(e), events: [t.bucketEntry(e)] };
  assert.equal(t.toJson(t.eventsOfBucket(b)[0]), t.toJson(e));
  assert.equal(b.events[0].tags, undefined);
});

test('a client owning some hosts gets exactly those hosts of the full set', () => {
  const o = { seed: 5, hosts: 7, spanSeconds: 600 };
  const all = [...t.events(o)].map(t.toJson);
  const parts = [0, 1, 2].map((c) => [...t.events({ ...o, hostIds: t.hostsOfClient(7, 3, c) })].map(t.toJson));
  assert.deepEqual(t.hostsOfClient(7, 3, 1), [1, 4]);
  assert.deepEqual(parts.flat().sort(), [...all].sort());
});

test('memory is O(1) per event: a long span streams without holding it', () => {
  const before = process.memoryUsage().heapUsed;
  let n = 0;
  for (const e of t.events({ hosts: 2, intervalSeconds: 1, spanSeconds: 400000 })) { n += e.usage_user >= 0; }
  assert.equal(n, 800000);
  assert.ok(process.memoryUsage().heapUsed - before < 50e6, 'an 800k-event span must not be held in memory');
});

test('bad parameters: a clear error naming the parameter and the allowed values', () => {
  const bad = (o, re) => assert.throws(() => t.events(o).next(), re);
  bad({ hosts: 0 }, /hosts=0 .* must be an integer >= 1/);
  bad({ intervalSeconds: 0 }, /intervalSeconds=0 .* a number > 0/);
  bad({ spanSeconds: -1 }, /spanSeconds=-1/);
  bad({ start: 'yesterday' }, /start="yesterday" .* ISO 8601/);
  bad({ seed: 1.5 }, /seed=1.5/);
  bad({ hostIds: [3], hosts: 2 }, /hostIds=\[3\] .* 0\.\.1/);
  bad({ host: 2 }, /host=2 .*unknown parameter/);
});
