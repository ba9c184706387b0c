'use strict';
// Which operation the i-th of a client's operations is. The mix is exact
// over every block of B operations (B = the reduced weights' sum, times
// the smallest factor that makes B >= 100): each block holds exactly its
// share of every operation, in an order shuffled per block by a PRNG
// seeded by (seed, client, block). So the achieved proportions equal the
// weights over any whole number of blocks (within one block's rounding
// otherwise), and operation i is the same whatever was dropped before it.
const { Sfc32 } = require('../prng');

const MIX_SALT = 0x6d697821; // "mix!"
const MIN_BLOCK = 100;

const gcd = (a, b) => (b ? gcd(b, a % b) : a);

class MixSchedule {
  // mix: { op: weight } (weights > 0); names: op names, index = op type.
  constructor(mix, names, { seed, clientHash }) {
    const weights = names.map((n) => mix[n]);
    const g = weights.reduce(gcd);
    const reduced = weights.map((w) => w / g);
    const sum = reduced.reduce((a, b) => a + b, 0);
    const factor = Math.max(1, Math.ceil(MIN_BLOCK / sum));
    this.counts = reduced.map((w) => w * factor);
    this.size = sum * factor;
    this.block = new Uint8Array(this.size);
    this.blockIndex = -1;
    this.seed = (seed ^ MIX_SALT) >>> 0;
    this.clientHash = clientHash;
    this.rng = new Sfc32(0, 0, 0, 0);
  }

  fill(b) {
    let at = 0;
    this.counts.forEach((c, t) => { this.block.fill(t, at, at + c); at += c; });
    const r = this.rng.reseed(this.seed, this.clientHash, b >>> 0);
    for (let k = this.size - 1; k > 0; k--) { // Fisher-Yates
      const j = Math.floor((r.next() / 4294967296) * (k + 1));
      const x = this.block[k]; this.block[k] = this.block[j]; this.block[j] = x;
    }
    this.blockIndex = b;
  }

  typeOf(i) {
    const b = Math.floor(i / this.size);
    if (b !== this.blockIndex) this.fill(b);
    return this.block[i - b * this.size];
  }

  // How many operations of type t come before operation i (run-stage
  // inserts take their document index from this, so it too is independent
  // of drops).
  countBefore(t, i) {
    const b = Math.floor(i / this.size);
    let n = b * this.counts[t];
    if (b !== this.blockIndex) this.fill(b);
    for (let k = b * this.size; k < i; k++) if (this.block[k - b * this.size] === t) n++;
    return n;
  }
}

module.exports = { MixSchedule, MIN_BLOCK };
