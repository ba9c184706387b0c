'use strict';
// Primary keys as 16-byte buffers, derived from (seed, client, index) so any
// client (or a test) can regenerate the key of any record: reads and updates
// hit keys that exist, and both databases hold byte-identical keys.
//
// UUIDv7 (RFC 9562): the 48-bit millisecond field is a fixed base plus the
// index, so a client's keys are strictly increasing (the append-only B-tree /
// clustered-index scenario of uuidv7) and clients advancing at the same rate
// interleave near the right edge as wall-clock keys did; rand_a and rand_b
// come from a PRNG seeded by (seed, client, index). UUIDv4: all 122 random
// bits from that PRNG.
const { Sfc32, hashString } = require('./prng');

// 2024-01-01T00:00:00Z: the time part of key index 0 (index i = base + i ms).
const UUIDV7_BASE_MS = Date.UTC(2024, 0, 1);
// Keeps key streams apart from the document streams seeded by the same words.
const KEY_SALT = 0x6b657973; // "keys"

function setVersionAndVariant(b, version) {
  b[6] = (b[6] & 0x0f) | (version << 4);
  b[8] = (b[8] & 0x3f) | 0x80; // RFC 4122/9562 variant 10xx
}

// The key of (client, index) for one (KEY, SEED). at(clientHash, index, dst)
// writes it into dst[0..16) (a target sends it from its own message buffer,
// allocating nothing per document); buffer() returns a new Buffer.
class KeyDeriver {
  constructor(kind, seed) {
    if (kind !== 'uuidv7' && kind !== 'uuidv4') throw new Error(`unknown key strategy ${kind}`);
    this.kind = kind;
    this.seed = (seed ^ KEY_SALT) >>> 0;
    this.rng = new Sfc32(0, 0, 0, 0);
  }

  at(clientHash, index, b) {
    const r = this.rng.reseed(this.seed, clientHash, index >>> 0);
    const w0 = r.next(); const w1 = r.next(); const w2 = r.next(); const w3 = r.next();
    b[0] = w0 >>> 24; b[1] = w0 >>> 16; b[2] = w0 >>> 8; b[3] = w0;
    b[4] = w1 >>> 24; b[5] = w1 >>> 16; b[6] = w1 >>> 8; b[7] = w1;
    b[8] = w2 >>> 24; b[9] = w2 >>> 16; b[10] = w2 >>> 8; b[11] = w2;
    b[12] = w3 >>> 24; b[13] = w3 >>> 16; b[14] = w3 >>> 8; b[15] = w3;
    if (this.kind === 'uuidv7') {
      b.writeUIntBE(UUIDV7_BASE_MS + index, 0, 6);
      setVersionAndVariant(b, 7);
    } else {
      setVersionAndVariant(b, 4);
    }
    return b;
  }

  buffer(clientHash, index) {
    return this.at(clientHash, index, Buffer.allocUnsafe(16));
  }
}

// One client's keys: key(index) for that client id.
class ClientKeys {
  constructor(deriver, clientId) {
    this.deriver = deriver;
    this.clientHash = hashString(String(clientId));
  }

  into(index, b) { return this.deriver.at(this.clientHash, index, b); }

  buffer(index) { return this.deriver.buffer(this.clientHash, index); }
}

// 8-4-4-4-12 text form (PostgreSQL's uuid input, MongoDB string keys).
function uuidString(b) {
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

// KEY strategy -> this client's keys, or null for `sequence`, where the
// database (PostgreSQL identity) or the driver (MongoDB ObjectId) makes them.
function keyGenerator(key, { seed = 1, clientId = '1' } = {}) {
  if (key === 'sequence') return null;
  return new ClientKeys(new KeyDeriver(key, seed), clientId);
}

module.exports = { KeyDeriver, ClientKeys, uuidString, keyGenerator, UUIDV7_BASE_MS };
