'use strict';
// The operation mix (exact per block, reproducible, independent of drops) and
// the key choosers (only known keys; the skew each promises).
const test = require('node:test');
const assert = require('node:assert/strict');
const { MixSchedule } = require('../../src/workloads/mix');
const { createChooser, Zipfian } = require('../../src/choosers');
const { Sfc32 } = require('../../src/prng');

const rngU = (seed) => { const r = new Sfc32(seed, 2, 3, 4); return () => r.next() / 4294967296; };

for (const [mix, n] of [[{ read: 50, update: 50 }, 10000], [{ read: 95, update: 5 }, 10000], [{ read: 47, update: 23, insert: 11, scan: 9, rmw: 10 }, 10000],
  [{ read: 3, update: 2, insert: 1 }, 10000], [{ scan: 95, insert: 5 }, 9999]]) {
  test(`mix ${JSON.stringify(mix)}: within 1% of the weights over ${n} operations, exact over whole blocks`, () => {
    const names = Object.keys(mix);
    const s = new MixSchedule(mix, names, { seed: 1, clientHash: 99 });
    const counts = names.map(() => 0);
    for (let i = 0; i < n; i++) counts[s.typeOf(i)]++;
    const sum = Object.values(mix).reduce((a, b) => a + b, 0);
    names.forEach((op, t) => assert.ok(Math.abs(counts[t] / n - mix[op] / sum) <= 0.01, `${op}: ${counts[t]}`));
    assert.ok(s.size >= 100);
    const whole = names.map(() => 0);
    for (let i = 0; i < s.size * 3; i++) whole[s.typeOf(i)]++;
    names.forEach((op, t) => assert.equal(whole[t] * sum, mix[op] * s.size * 3, op));
  });
}

test('mix: operation i depends only on (seed, client, i); countBefore agrees with counting; order is shuffled', () => {
  const mix = { read: 50, insert: 50 };
  const a = new MixSchedule(mix, ['read', 'insert'], { seed: 1, clientHash: 5 });
  const b = new MixSchedule(mix, ['read', 'insert'], { seed: 1, clientHash: 5 });
  const seqA = Array.from({ length: 500 }, (_, i) => a.typeOf(i));
  const seqB = Array.from({ length: 500 }, (_, i) => b.typeOf(499 - i)).reverse();
  assert.deepEqual(seqA, seqB);
  let inserts = 0;
  for (let i = 0; i < 500; i++) {
    assert.equal(a.countBefore(1, i), inserts, `at ${i}`);
    if (seqA[i] === 1) inserts++;
  }
  assert.notDeepEqual(seqA.slice(0, 100), [...seqA.slice(0, 100)].sort());
  const other = new MixSchedule(mix, ['read', 'insert'], { seed: 1, clientHash: 6 });
  assert.notDeepEqual(Array.from({ length: 100 }, (_, i) => other.typeOf(i)), seqA.slice(0, 100));
});

test('zipfian: ranks in range, rank 0 the most popular, skew grows with theta', () => {
  const u = rngU(1);
  for (const theta of [0.5, 0.99]) {
    const z = new Zipfian(1000, theta);
    const c = new Array(1000).fill(0);
    for (let i = 0; i < 50000; i++) c[z.rank(u())]++;
    assert.ok(c.every((x, i) => i === 0 || x <= c[0]));
    if (theta === 0.99) assert.ok(c[0] / 50000 > 0.1, `rank 0 share ${c[0] / 50000}`);
    else assert.ok(c[0] / 50000 < 0.05);
  }
});

test('choosers pick only known positions (loaded 0..R-1, then acknowledged inserts); skews as promised', () => {
  const u = rngU(7);
  const R = 500;
  for (const dist of [{ name: 'uniform' }, { name: 'zipfian', theta: 0.99 }, { name: 'latest', theta: 0.99 },
    { name: 'hotspot', hot_set_fraction: 0.2, hot_ops_fraction: 0.8 }]) {
    const ch = createChooser(dist, R);
    let acked = 0;
    const hits = new Map();
    let nearNewest = 0; // within the 20 newest known keys at the time of the choice
    for (let i = 0; i < 20000; i++) {
      if (i % 10 === 0) { ch.acknowledge(); acked++; }
      const k = ch.choose(u);
      assert.ok(Number.isInteger(k) && k >= 0 && k < R + acked, `${dist.name}: ${k} with ${R}+${acked} known`);
      if (dist.name === 'zipfian') assert.ok(k < R, 'zipfian: loaded records only');
      hits.set(k, (hits.get(k) || 0) + 1);
      if (k >= R + acked - 20) nearNewest++;
    }
    if (dist.name === 'latest') {
      assert.ok(nearNewest / 20000 > 0.3, `latest: ${nearNewest} of 20000 on the 20 newest`);
    }
    if (dist.name === 'hotspot') {
      const hot = [...hits.entries()].filter(([k]) => k < Math.floor((R + acked) * 0.2)).reduce((a, [, v]) => a + v, 0);
      assert.ok(hot / 20000 > 0.75, `hotspot: ${hot}`);
    }
    if (dist.name === 'zipfian') {
      // Scrambled: the most popular record is not record 0 and the top records are spread out.
      const top = [...hits.entries()].sort((a, b) => b[1] - a[1]).slice(0, 5).map(([k]) => k);
      assert.ok(top.some((k) => k > 50), `top ${top}`);
    }
  }
});
