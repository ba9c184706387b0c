'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { KeyDeriver, uuidString, keyGenerator, UUIDV7_BASE_MS } = require('../../src/keys');
const { hashString } = require('../../src/prng');

const version = (b) => b[6] >> 4;
const variantOk = (b) => (b[8] & 0xc0) === 0x80;

test('uuidv4: 16 bytes, version 4, RFC variant, no repeats across indices and clients', () => {
  const seen = new Set();
  for (const client of ['1', '2']) {
    const g = keyGenerator('uuidv4', { seed: 1, clientId: client });
    for (let i = 0; i < 10000; i++) {
      const b = g.buffer(i);
      assert.equal(b.length, 16);
      assert.equal(version(b), 4);
      assert.ok(variantOk(b));
      seen.add(b.toString('hex'));
    }
  }
  assert.equal(seen.size, 20000);
});

test('uuidv7: version 7, variant, time part = fixed base + index, strictly increasing per client', () => {
  const g = keyGenerator('uuidv7', { seed: 5, clientId: '3' });
  let prev = null;
  for (let i = 0; i < 1e5; i++) {
    const b = g.buffer(i);
    assert.equal(version(b), 7);
    assert.ok(variantOk(b));
    assert.equal(b.readUIntBE(0, 6), UUIDV7_BASE_MS + i);
    if (prev) assert.equal(Buffer.compare(prev, b), -1, `id ${i} ${uuidString(b)} not after ${uuidString(prev)}`);
    prev = b;
  }
});

test('keys are a function of (kind, seed, client, index) only: pinned, order-independent, distinct per seed and client', () => {
  const a = keyGenerator('uuidv7', { seed: 1, clientId: '1' });
  // Pinned: a change to the derivation changes every stored key of every bench.
  assert.equal(uuidString(a.buffer(0)), '018cc251-f400-7c15-9832-5e74c9206a7c');
  const forward = Array.from({ length: 100 }, (_, i) => a.buffer(i).toString('hex'));
  const backward = Array.from({ length: 100 }, (_, i) => a.buffer(99 - i).toString('hex')).reverse();
  assert.deepEqual(forward, backward);
  const again = new KeyDeriver('uuidv7', 1).buffer(hashString('1'), 42);
  assert.deepEqual(again, a.buffer(42));
  assert.notDeepEqual(keyGenerator('uuidv7', { seed: 2, clientId: '1' }).buffer(0), a.buffer(0));
  assert.notDeepEqual(keyGenerator('uuidv7', { seed: 1, clientId: '2' }).buffer(0), a.buffer(0));
  assert.notDeepEqual(keyGenerator('uuidv4', { seed: 1, clientId: '1' }).buffer(0), keyGenerator('uuidv4', { seed: 1, clientId: '1' }).buffer(1));
});

test('identical across processes', () => {
  const { execFileSync } = require('child_process');
  const script = "const {keyGenerator}=require('./src/keys');const g=keyGenerator('uuidv4',{seed:7,clientId:'2'});"
    + "console.log([0,1,1000].map(i=>g.buffer(i).toString('hex')).join(','))";
  const other = execFileSync(process.execPath, ['-e', script], { cwd: require('path').resolve(__dirname, '../..') }).toString().trim();
  const g = keyGenerator('uuidv4', { seed: 7, clientId: '2' });
  assert.equal(other, [0, 1, 1000].map((i) => g.buffer(i).toString('hex')).join(','));
});

test('uuidString: canonical 8-4-4-4-12 lower-case hex', () => {
  const b = Buffer.from('0190a1b2c3d47e5f8a6b7c8d9e0f1a2b', 'hex');
  assert.equal(uuidString(b), '0190a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b');
});

test('keyGenerator: sequence is made by the database, unknown strategies throw', () => {
  assert.equal(keyGenerator('sequence'), null);
  assert.throws(() => keyGenerator('serial'), /unknown key strategy serial/);
});

test('into writes a key into a slice of a larger buffer and nothing around it, the same bytes as buffer()', () => {
  for (const kind of ['uuidv4', 'uuidv7']) {
    const g = keyGenerator(kind, { seed: 3, clientId: '1' });
    const big = Buffer.alloc(22, 0xee);
    const slot = big.subarray(3, 19);
    for (let i = 0; i < 1000; i++) {
      g.into(i, slot);
      assert.deepEqual(Buffer.from(slot), g.buffer(i));
    }
    assert.ok(big.subarray(0, 3).every((x) => x === 0xee) && big.subarray(19).every((x) => x === 0xee));
  }
});
