'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { Long, Int32, Double, Decimal128, ObjectId, UUID } = require('mongodb');
const { digestRows, compareDigests, pgRows, normValue } = require('../../src/query-digest');

const HOUR = (h) => new Date(Date.UTC(2016, 0, 1, h));
// One answer as PostgreSQL gives it (int8 count as text through pgRows,
// doubles, Dates) and as MongoDB gives it (Long, Int32, Double, Decimal128,
// other key order, other row order, extra _id).
const pgAnswer = () => pgRows({
  fields: [{ name: 'hour', dataTypeID: 1184 }, { name: 'n', dataTypeID: 20 }, { name: 'max_user', dataTypeID: 701 }, { name: 'avg', dataTypeID: 1700 }],
  rows: [
    { hour: HOUR(0), n: '360', max_user: 93, avg: '41.1000000000000000001' },
    { hour: HOUR(1), n: '360', max_user: 0, avg: '0.30000000000000004' },
    { hour: HOUR(2), n: '12', max_user: 100, avg: '7' },
  ],
});
const mongoAnswer = () => [
  { _id: { h: HOUR(2) }, avg: Decimal128.fromString('7.000'), max_user: new Double(100), n: new Int32(12) },
  { _id: { h: HOUR(0) }, max_user: 93.0, n: Long.fromNumber(360), avg: 41.1 },
  { _id: { h: HOUR(1) }, n: 360n, avg: 0.1 + 0.2, max_user: -0 },
];
const PG_COLS = ['hour', 'n', 'max_user', 'avg'];
const MONGO_COLS = { hour: '_id.h', n: 'n', max_user: 'max_user', avg: 'avg' };

test('same answer, different row order, number types, key order and paths: same digest', () => {
  const a = digestRows(pgAnswer(), { columns: PG_COLS });
  const b = digestRows(mongoAnswer(), { columns: MONGO_COLS });
  assert.match(a.digest, /^[0-9a-f]{64}$/);
  assert.equal(a.rows, 3);
  assert.deepEqual(a.sample[0], ['2016-01-01T00:00:00.000Z', 360, 93, 41.1]);
  assert.deepEqual(compareDigests(a, b), { equal: true, digest: a.digest, rows: 3 });
  assert.equal(a.digest, b.digest);
  assert.ok(!('lines' in JSON.parse(JSON.stringify(a))), 'lines stay out of results.json');
});

test('a deliberately different answer is caught, with the first differing rows of both', () => {
  const wrong = mongoAnswer();
  wrong[1].max_user = 92; // hour 0
  const a = digestRows(pgAnswer(), { columns: PG_COLS });
  const b = digestRows(wrong, { columns: MONGO_COLS });
  const c = compareDigests(a, b, { names: ['postgres', 'mongodb'] });
  assert.equal(c.equal, false);
  assert.equal(c.first_difference.index, 0);
  assert.deepEqual(c.first_difference.postgres[0], ['2016-01-01T00:00:00.000Z', 360, 93, 41.1]);
  assert.deepEqual(c.first_difference.mongodb[0], ['2016-01-01T00:00:00.000Z', 360, 92, 41.1]);
  assert.match(c.message, /differ at row 0 .*postgres .*93.* vs mongodb .*92/);
  // A missing row, and a row more.
  const short = digestRows(mongoAnswer().slice(1), { columns: MONGO_COLS }) // hour 2 missing;
  const cs = compareDigests(a, short, { names: ['postgres', 'mongodb'] });
  assert.equal(cs.equal, false);
  assert.deepEqual(cs.rows, { postgres: 3, mongodb: 2 });
  assert.match(cs.message, /no row: answer ends/);
});

test('order: ignored unless the query defines one; ties of an ORDER BY sorted among themselves', () => {
  const rows = [{ k: 2, v: 'b' }, { k: 1, v: 'a' }];
  assert.equal(digestRows(rows).digest, digestRows([...rows].reverse()).digest);
  assert.notEqual(digestRows(rows, { ordered: true }).digest, digestRows([...rows].reverse(), { ordered: true }).digest);
  const tied = [{ k: 1, v: 'x' }, { k: 1, v: 'y' }, { k: 2, v: 'z' }];
  const swapped = [tied[1], tied[0], tied[2]];
  const o = { columns: ['k', 'v'], orderColumns: ['k'] };
  assert.equal(digestRows(tied, o).digest, digestRows(swapped, o).digest);
  assert.notEqual(digestRows(tied, o).digest, digestRows([tied[2], tied[0], tied[1]], o).digest);
});

test('numbers: rounding to stated significant digits, -0, NaN, BigInt, Long beyond 2^53', () => {
  assert.equal(normValue(0.1 + 0.2, 12), 0.3);
  assert.notEqual(normValue(0.1 + 0.2, 15), normValue(0.3, 15) + 1e-3);
  assert.equal(normValue(1 / 3, 3), 0.333);
  assert.ok(Object.is(normValue(-0, 12), 0));
  assert.ok(Object.is(normValue(-1e-300, 12), -1e-300));
  assert.equal(normValue(NaN, 12), 'NaN');
  assert.equal(normValue(-Infinity, 12), '-Infinity');
  assert.deepEqual(normValue(2n ** 60n, 12), normValue(Long.fromBigInt(2n ** 60n), 12));
  assert.equal(normValue(Decimal128.fromString('-0'), 12), 0);
  assert.notEqual(digestRows([{ x: 1.0001 }], { digits: 5 }).digest, digestRows([{ x: 1.0002 }], { digits: 5 }).digest);
  assert.equal(digestRows([{ x: 1.00001 }], { digits: 5 }).digest, digestRows([{ x: 1.00002 }], { digits: 5 }).digest);
});

test('other values: nested documents in any key order, ObjectId, UUID, Buffer, null vs absent', () => {
  assert.deepEqual(normValue({ b: 1, a: { d: [new Int32(2)], c: null } }, 12), { a: { c: null, d: [2] }, b: 1 });
  assert.equal(JSON.stringify(normValue({ b: 1, a: 2 }, 12)), JSON.stringify(normValue({ a: 2, b: 1 }, 12)));
  const id = new ObjectId('65a1b2c3d4e5f60718293a4b');
  assert.equal(normValue(id, 12), '65a1b2c3d4e5f60718293a4b');
  const u = '0190f5c2-7a1b-7c3d-8e4f-0123456789ab';
  assert.equal(normValue(new UUID(u), 12), u);
  assert.equal(normValue(Buffer.from([1, 255]), 12), '01ff');
  assert.deepEqual(normValue({ a: undefined, b: null }, 12), { b: null });
  assert.deepEqual(digestRows([{ a: 1 }], { columns: ['a', 'b'] }).sample, [[1, { $missing: true }]]);
});

// Integers beyond 2^53 arrive exactly (pg int8/numeric text, BSON Long, BigInt) and must keep
// every digit: 2^53 and 2^53 + 1 are different answers, rounding them to one double merged them.
test('integers beyond 2^53 keep every digit, and digest equal across pg text, Long and BigInt', () => {
  const pg = (n) => pgRows({ fields: [{ name: 'n', dataTypeID: 20 }, { name: 'm', dataTypeID: 1700 }], rows: [{ n, m: n }] });
  const a = digestRows(pg('9007199254740993'));
  const b = digestRows(pg('9007199254740992'));
  assert.notEqual(a.digest, b.digest, '2^53 + 1 and 2^53 from pg bigint text');
  assert.notEqual(normValue(Long.fromString('9007199254740993'), 12), normValue(Long.fromString('9007199254740992'), 12));
  assert.notEqual(JSON.stringify(normValue(2n ** 60n + 1n, 12)), JSON.stringify(normValue(2n ** 60n, 12)));
  const mongo = (s) => digestRows([{ n: Long.fromString(s), m: BigInt(s) }]);
  for (const s of ['9007199254740993', '9007199254740992', '-9223372036854775808']) {
    assert.equal(digestRows(pg(s)).digest, mongo(s).digest, `${s}: pg text = Long = BigInt`);
  }
  // below 2^53 an exact integer is the number it always was (equal to a JS number from the other side)
  assert.equal(digestRows(pg('360')).digest, digestRows([{ n: 360, m: new Int32(360) }]).digest);
  assert.equal(normValue(Long.fromNumber(2 ** 53 - 1), 12), normValue(2 ** 53 - 1, 12));
  // the driver promotes a Long of 2^53 to the double 2^53 (exact): the same as pg's 2^53
  assert.deepEqual(normValue(2 ** 53, 12), normValue(Long.fromString('9007199254740992'), 12));
  assert.deepEqual(normValue(-(2 ** 60), 12), { $int: String(-(2n ** 60n)) });
});

// A column whose path is missing from a MongoDB row is not a column that holds null: an answer
// that lost a field must not digest as one that has it null.
test('null is not the same as a missing field', () => {
  const cols = { columns: { a: 'a', b: 'x.b' } };
  assert.notEqual(digestRows([{ a: 1, x: { b: null } }], cols).digest, digestRows([{ a: 1, x: {} }], cols).digest);
  assert.notEqual(digestRows([{ a: 1, x: { b: null } }], cols).digest, digestRows([{ a: 1 }], cols).digest);
  assert.notEqual(digestRows([{ a: 1, b: null }]).digest, digestRows([{ a: 1 }]).digest, 'whole rows');
  assert.equal(digestRows([{ a: 1, b: undefined }]).digest, digestRows([{ a: 1 }]).digest, 'undefined is absent');
});

test('comparing answers digested differently is refused, not called equal', () => {
  const a = digestRows([{ x: 1 }], { digits: 6 });
  const b = digestRows([{ x: 1 }], { digits: 12 });
  const c = compareDigests(a, b);
  assert.equal(c.equal, false);
  assert.match(c.message, /different normalisations/);
});

test('compareDigests without lines (read back from results.json) still reports both', () => {
  const a = JSON.parse(JSON.stringify(digestRows([{ x: 1 }])));
  const b = JSON.parse(JSON.stringify(digestRows([{ x: 2 }])));
  const c = compareDigests(a, b, { names: ['postgres', 'mongodb'] });
  assert.equal(c.equal, false);
  assert.match(c.message, /postgres \(1 rows.*\[\{"x":1\}\].*mongodb \[\{"x":2\}\]/);
});

test('bad options: a clear error naming the option and the allowed values', () => {
  assert.throws(() => digestRows([], { digits: 17 }), /digits=17 .*1\.\.15/);
  assert.throws(() => digestRows([], { orderColumns: ['k'] }), /orderColumns=\["k"\] .*with columns/);
  assert.throws(() => digestRows([], { columns: ['a'], orderColumns: ['k'] }), /names among columns \(a\)/);
  assert.throws(() => digestRows([], { order: true }), /order=true .*unknown option/);
  assert.throws(() => digestRows({}), /rows=.*an array/);
});
