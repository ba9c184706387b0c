'use strict';
// Key choice for reads, updates and scans (YCSB's request distributions).
// A chooser picks a position in the keys this client knows: 0..R-1 are the
// loaded records (record r), R..R+A-1 its own acknowledged inserts in the
// order they were acknowledged. Nothing else is ever chosen, so a read never
// asks for a key that was not written. `u()` draws a double in [0, 1).
const { mix32 } = require('./prng');

// Gray et al., "Quickly generating billion-record synthetic databases" (as
// YCSB's ZipfianGenerator): rank 0 is the most popular of n items. The item
// count may grow (latest): zeta is extended incrementally, never recomputed.
class Zipfian {
  constructor(n, theta) {
    this.theta = theta;
    this.alpha = 1 / (1 - theta);
    this.zeta2 = 1 + 0.5 ** theta;
    this.n = 0;
    this.zetan = 0;
    this.setCount(n);
  }

  setCount(n) {
    if (n === this.n) return;
    for (let i = this.n + 1; i <= n; i++) this.zetan += 1 / i ** this.theta;
    this.n = n;
    this.eta = (1 - (2 / n) ** (1 - this.theta)) / (1 - this.zeta2 / this.zetan);
  }

  rank(u) {
    const uz = u * this.zetan;
    if (uz < 1) return 0;
    if (uz < this.zeta2) return Math.min(1, this.n - 1);
    return Math.min(this.n - 1, Math.floor(this.n * (this.eta * u - this.eta + 1) ** this.alpha));
  }
}

// A 52-bit hash of a rank (two mix32 rounds), as YCSB's scrambled zipfian
// hashes the rank (FNV-64) so the popular items are spread over the key space
// instead of being the first records loaded.
function scramble(rank, n) {
  const hi = mix32(rank ^ 0x5bd1e995);
  const lo = mix32((hi ^ rank) + 0x27d4eb2f);
  return (hi * 0x100000 + (lo >>> 12)) % n;
}

class UniformChooser {
  constructor(loaded) { this.loaded = loaded; this.acked = 0; }

  acknowledge() { this.acked++; }

  choose(u) { return Math.floor(u() * (this.loaded + this.acked)); }
}

// Scrambled zipfian over the loaded records (as YCSB's core workload: run
// inserts are not part of its item count).
class ZipfianChooser {
  constructor(loaded, theta) { this.zipf = new Zipfian(loaded, theta); this.loaded = loaded; }

  acknowledge() {}

  choose(u) { return scramble(this.zipf.rank(u()), this.loaded); }
}

// Skewed to the newest keys this client knows (its own acknowledged inserts
// newest first, then the loaded records from the last one back), zipfian
// over their count (YCSB's SkewedLatestGenerator).
class LatestChooser {
  constructor(loaded, theta) { this.loaded = loaded; this.acked = 0; this.zipf = new Zipfian(loaded, theta); }

  acknowledge() { this.acked++; this.zipf.setCount(this.loaded + this.acked); }

  choose(u) { return this.loaded + this.acked - 1 - this.zipf.rank(u()); }
}

// HOT_OPS_FRACTION of the operations go uniformly to the first
// HOT_SET_FRACTION of the known keys, the rest uniformly to the others
// (YCSB's HotspotIntegerGenerator).
class HotspotChooser {
  constructor(loaded, hotSet, hotOps) { Object.assign(this, { loaded, hotSet, hotOps, acked: 0 }); }

  acknowledge() { this.acked++; }

  choose(u) {
    const n = this.loaded + this.acked;
    const hot = Math.max(1, Math.floor(n * this.hotSet));
    const a = u();
    const b = u();
    if (a < this.hotOps || hot >= n) return Math.floor(b * hot);
    return hot + Math.floor(b * (n - hot));
  }
}

// dist: { name, theta, hot_set_fraction, hot_ops_fraction }; loaded >= 1.
function createChooser(dist, loaded) {
  switch (dist.name) {
    case 'uniform': return new UniformChooser(loaded);
    case 'zipfian': return new ZipfianChooser(loaded, dist.theta);
    case 'latest': return new LatestChooser(loaded, dist.theta);
    case 'hotspot': return new HotspotChooser(loaded, dist.hot_set_fraction, dist.hot_ops_fraction);
    default: throw new Error(`unknown key distribution ${dist.name}`);
  }
}

module.exports = { createChooser, Zipfian, scramble };
