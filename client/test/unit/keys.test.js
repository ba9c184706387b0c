'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { UuidV4, UuidV7, uuidString, keyGenerator } = require('../../src/keys');

const version = (b) => b[6] >> 4;
const variantOk = (b) => (b[8] & 0xc0) === 0x80;

test('uuidv4: 16 bytes, version 4, RFC variant, no repeats', () => {
  const g = new UuidV4();
  const seen = new Set();
  for (let i = 0; i < 10000; i++) {
    const b = g.next();
    assert.equal(b.length, 16);
    assert.equal(version(b), 4);
    assert.ok(variantOk(b));
    seen.add(b.toString('hex'));
  }
  assert.equal(seen.size, 10000);
});

test('uuidv7: version 7, variant, 48-bit timestamp is the current time', () => {
  const before = Date.now();
  const b = new UuidV7().next();
  const after = Date.now();
  assert.equal(version(b), 7);
  assert.ok(variantOk(b));
  const ms = b.readUIntBE(0, 6);
  assert.ok(ms >= before && ms <= after + 1, `${ms} not in [${before}, ${after}]`);
});

test('uuidv7: strictly increasing over 1e5 ids on the real clock', () => {
  const g = new UuidV7();
  let prev = g.next();
  for (let i = 0; i < 1e5; i++) {
    const b = g.next();
    assert.equal(Buffer.compare(prev, b), -1, `id ${i} ${uuidString(b)} not after ${uuidString(prev)}`);
    assert.equal(version(b), 7);
    prev = b;
  }
});

test('uuidv7: monotonic with a frozen clock (counter overflow) and a clock stepping back', () => {
  let t = 1_700_000_000_000;
  const g = new UuidV7(undefined, () => t);
  let prev = g.next();
  for (let i = 0; i < 1e5; i++) {
    if (i === 50000) t -= 5000; // NTP step backwards
    const b = g.next();
    assert.equal(Buffer.compare(prev, b), -1, `id ${i}`);
    prev = b;
  }
  // 1e5 ids in one frozen millisecond need ~25 borrowed milliseconds of counter space.
  assert.ok(prev.readUIntBE(0, 6) > 1_700_000_000_000);
});

test('uuidString: canonical 8-4-4-4-12 lower-case hex', () => {
  const b = Buffer.from('0190a1b2c3d47e5f8a6b7c8d9e0f1a2b', 'hex');
  assert.equal(uuidString(b), '0190a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b');
});

test('keyGenerator: sequence is made by the database, unknown strategies throw', () => {
  assert.equal(keyGenerator('sequence'), null);
  assert.ok(keyGenerator('uuidv7') instanceof UuidV7);
  assert.ok(keyGenerator('uuidv4') instanceof UuidV4);
  assert.throws(() => keyGenerator('serial'), /unknown key strategy serial/);
});

test('nextInto writes a key into a slice of a larger buffer and nothing around it; next and nextInto share one stream', () => {
  for (const g of [new UuidV4(), new UuidV7()]) {
    const big = Buffer.alloc(22, 0xee);
    const slot = big.subarray(3, 19);
    const keys = [];
    for (let i = 0; i < 1000; i++) {
      const b = i % 2 ? g.next() : Buffer.from(g.nextInto(slot));
      keys.push(b.toString('hex'));
      assert.equal(version(b), g instanceof UuidV7 ? 7 : 4);
      assert.ok(variantOk(b));
    }
    assert.ok(big.subarray(0, 3).every((x) => x === 0xee) && big.subarray(19).every((x) => x === 0xee));
    assert.equal(new Set(keys).size, 1000);
    if (g instanceof UuidV7) assert.deepEqual([...keys].sort(), keys, 'v7 stays monotonic across next and nextInto');
  }
});
