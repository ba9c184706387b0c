'use strict';
// Seeded 32-bit PRNGs. Math.random cannot be seeded, and documents must be
// byte-identical for the same seed and client id on both databases.

// splitmix32-style mixer: turns (seed, client, index) into well-spread state
// words so neighbouring indexes do not produce correlated streams.
function mix32(x) {
  x = (x + 0x9e3779b9) | 0;
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}

// FNV-1a over a string, so client ids like "3" or "client-a" both seed.
function hashString(s) {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

// sfc32: 128-bit state, passes PractRand for far more output than a
// document needs, and is only adds/xors/shifts, which V8 keeps in int32.
class Sfc32 {
  constructor(a, b, c, d) {
    this.setState(a, b, c, d);
  }

  setState(a, b, c, d) {
    this.a = a | 0; this.b = b | 0; this.c = c | 0; this.d = d | 0;
    for (let i = 0; i < 12; i++) this.next(); // discard warm-up output
    return this;
  }

  // The state for seed words (w0, w1, w2), mixed so neighbouring words give
  // unrelated streams; in place, so reseeding per document allocates nothing.
  reseed(w0, w1, w2) {
    const a = mix32(w0);
    const b = mix32(a ^ w1);
    const c = mix32(b ^ w2);
    return this.setState(a, b, c, 1);
  }

  next() {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }
}

module.exports = { Sfc32, mix32, hashString };
