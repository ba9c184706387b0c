'use strict';
// Primary keys as 16-byte buffers. UUIDv7 (RFC 9562) is made monotonic
// within a client with a 12-bit counter in rand_a ("method 1"): keys created
// in the same millisecond still sort in creation order, which is the whole
// point of the uuidv7 scenario (append-only B-tree / clustered index).
const crypto = require('crypto');

// Random bytes drawn from the OS in blocks: one syscall per 256 keys
// instead of one per key.
class RandomPool {
  constructor(size = 4096) {
    this.buf = Buffer.alloc(size);
    this.pos = size;
  }

  // Offset in this.buf of n fresh random bytes.
  reserve(n) {
    if (this.pos + n > this.buf.length) {
      crypto.randomFillSync(this.buf);
      this.pos = 0;
    }
    const start = this.pos;
    this.pos += n;
    return start;
  }

  // The next n random bytes into dst[0..n), byte by byte: no view or
  // Buffer is allocated per key.
  copyInto(dst, n) {
    const start = this.reserve(n);
    for (let k = 0; k < n; k++) dst[k] = this.buf[start + k];
  }

  uint16() {
    const start = this.reserve(2);
    return (this.buf[start] << 8) | this.buf[start + 1];
  }
}

function setVersionAndVariant(b, version) {
  b[6] = (b[6] & 0x0f) | (version << 4);
  b[8] = (b[8] & 0x3f) | 0x80; // RFC 4122/9562 variant 10xx
}

// Every generator: next() returns a new 16-byte Buffer; nextInto(dst)
// writes the same kind of key into dst[0..16) (a target that sends the key
// from its own message buffer, allocating nothing per document).
class UuidV4 {
  constructor(pool = new RandomPool()) { this.pool = pool; }

  next() { return this.nextInto(Buffer.allocUnsafe(16)); }

  nextInto(b) {
    this.pool.copyInto(b, 16);
    setVersionAndVariant(b, 4);
    return b;
  }
}

const COUNTER_MAX = 0xfff;

class UuidV7 {
  constructor(pool = new RandomPool(), now = Date.now) {
    this.pool = pool;
    this.now = now;
    this.lastMs = -1;
    this.counter = 0;
  }

  next() { return this.nextInto(Buffer.allocUnsafe(16)); }

  nextInto(b) {
    let ms = this.now();
    if (ms > this.lastMs) {
      // New millisecond: counter restarts at a random value in the lower
      // half so it has room to count up before it overflows.
      this.counter = this.pool.uint16() & 0x7ff;
    } else {
      // Same (or earlier: clock stepped back) millisecond: keep the last
      // timestamp and count up; on overflow borrow the next millisecond.
      ms = this.lastMs;
      this.counter++;
      if (this.counter > COUNTER_MAX) {
        ms++;
        this.counter = 0;
      }
    }
    this.lastMs = ms;
    this.pool.copyInto(b, 16);
    b.writeUIntBE(ms, 0, 6);
    b[6] = 0x70 | (this.counter >>> 8);
    b[7] = this.counter & 0xff;
    setVersionAndVariant(b, 7);
    return b;
  }
}

// 8-4-4-4-12 text form (PostgreSQL's uuid input, MongoDB string keys).
function uuidString(b) {
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

// KEY strategy -> generator of 16-byte keys, or null for `sequence`, where
// the database (PostgreSQL identity) or the driver (MongoDB ObjectId) makes it.
function keyGenerator(key) {
  if (key === 'uuidv7') return new UuidV7();
  if (key === 'uuidv4') return new UuidV4();
  if (key === 'sequence') return null;
  throw new Error(`unknown key strategy ${key}`);
}

module.exports = { UuidV4, UuidV7, RandomPool, uuidString, keyGenerator };
