'use strict';
// The nothing-lost check of the booking transactions (commands/booking-check.js) on synthetic
// tables: bookings are matched by id, derived from (KEY, SEED, client, index) as the clients made
// them, not by counts; and the clients' outcome counts (targets/txn-retry.js TxnStats): a booking
// in doubt that a later attempt committed is committed only.
const test = require('node:test');
const assert = require('node:assert/strict');
const { checkBookings } = require('../../src/commands/booking-check');
const { BookingDeriver } = require('../../src/workloads/booking');
const { TxnStats, RetryPolicy, IndexRanges } = require('../../src/targets/txn-retry');
const { schemaProblem } = require('../../src/check-schema');

const CLIENT = {
  client_id: '1', key: 'uuidv7', seed: 7, flights: 14000, day_range: 1,
};
const deriver = new BookingDeriver({
  key: 'uuidv7', seed: 7, clientId: '1', flights: 14000, dayRange: 1,
});
const idOf = (i) => deriver.booking(i).id.toString('hex');
// What verifyBooking finds in tables that are consistent among themselves (n seats, each paid and audited).
const consistent = (n) => ({
  seats: n, payments: n, audit_rows: n, audit_seats: n, seats_without_payment: [], payments_without_seat: [], audit_mismatches: [],
});

test('a committed booking gone beside an in-doubt one that landed: the counts agree, the ids do not', () => {
  // client 1 committed bookings 0..99 and left 100 in doubt; in the database: 0..99 without 42, and 100
  const outcomes = { phase: 'postgres', clients: [{ ...CLIENT, committed_indices: [[0, 99]], in_doubt_indices: [[100, 100]] }] };
  assert.equal(schemaProblem(outcomes, 'txn-outcomes'), null);
  const present = [...Array.from({ length: 100 }, (_, i) => i).filter((i) => i !== 42), 100].map(idOf);
  const check = checkBookings(consistent(100), outcomes, present);
  assert.equal(check.ok, false);
  assert.equal(check.committed, 100);
  assert.equal(check.ids_checked, 101);
  assert.equal(check.in_doubt_landed, 1);
  assert.equal(check.lost_count, 1);
  const lostId = deriver.booking(42).id.toString('hex');
  assert.deepEqual(check.lost, [{ client_id: '1', i: 42, id: `${lostId.slice(0, 8)}-${lostId.slice(8, 12)}-${lostId.slice(12, 16)}-${lostId.slice(16, 20)}-${lostId.slice(20)}` }]);
  assert.match(check.problems.join('; '), /committed bookings lost: 1 \(client 1 booking 42 id [0-9a-f-]{36}\)/);
  assert.equal(check.unexpected_count, 0);

  // every committed booking there and the in-doubt one too: ok
  const all = checkBookings(consistent(101), outcomes, Array.from({ length: 101 }, (_, i) => idOf(i)));
  assert.deepEqual({ ok: all.ok, lost: all.lost_count, unexpected: all.unexpected_count, landed: all.in_doubt_landed }, {
    ok: true, lost: 0, unexpected: 0, landed: 1,
  });
  // the in-doubt one did not land: ok as well
  assert.equal(checkBookings(consistent(100), outcomes, Array.from({ length: 100 }, (_, i) => idOf(i))).ok, true);
});

test('a seat of no committed or in-doubt booking is named, however the counts stand', () => {
  const outcomes = { phase: 'mongodb', clients: [{ ...CLIENT, committed_indices: [[0, 9]], in_doubt_indices: [[10, 10]] }] };
  // 10 committed + 1 in doubt would allow 11 seats by count: the eleventh is a foreign one, not booking 10
  const foreign = 'ffffffffffff7fff8fffffffffffffff';
  const check = checkBookings(consistent(11), outcomes, [...Array.from({ length: 10 }, (_, i) => idOf(i)), foreign]);
  assert.equal(check.ok, false);
  assert.equal(check.unexpected_count, 1);
  assert.deepEqual(check.unexpected, ['ffffffff-ffff-7fff-8fff-ffffffffffff']);
  assert.match(check.problems.join('; '), /seats of no committed or in-doubt booking: 1 \(ffffffff-ffff-7fff-8fff-ffffffffffff\)/);
  // another client's bookings are other ids: client 2's booking 0 is not client 1's
  const other = new BookingDeriver({
    key: 'uuidv7', seed: 7, clientId: '2', flights: 14000, dayRange: 1,
  }).booking(0).id.toString('hex');
  assert.equal(checkBookings(consistent(10), outcomes, [...Array.from({ length: 9 }, (_, i) => idOf(i)), other]).unexpected_count, 1);
});

test('the audit rows the bookings created, by how many bookings each holds', () => {
  // FLIGHTS=2, one day: the bookings fall on two audit rows
  const hot = { ...CLIENT, flights: 2 };
  const d = new BookingDeriver({
    key: 'uuidv7', seed: 7, clientId: '1', flights: 2, dayRange: 1,
  });
  const outcomes = { phase: 'postgres', clients: [{ ...hot, committed_indices: [[0, 29]], in_doubt_indices: [] }] };
  const check = checkBookings(consistent(30), outcomes, Array.from({ length: 30 }, (_, i) => d.booking(i).id.toString('hex')));
  const perFlight = [1, 2].map((f) => Array.from({ length: 30 }, (_, i) => d.booking(i)).filter((b) => b.scheduleId === f).length);
  assert.equal(check.audit_rows_booked, 2);
  assert.deepEqual(check.audit_rows_by_bookings, Object.fromEntries(perFlight.map((n) => [n, perFlight.filter((m) => m === n).length])));
});

test('without the outcomes no booking is checked, and the check says so by nulls', () => {
  const check = checkBookings(consistent(3), null);
  assert.equal(check.ok, true);
  assert.deepEqual([check.committed, check.ids_checked, check.lost_count], [null, null, null]);
  const bad = checkBookings({
    ...consistent(3), payments: 2, seats_without_payment: ['ab'], audit_mismatches: [{ schedule_id: 4, day: '2025-01-01', audit: null, seats: 1 }],
  }, null);
  assert.equal(bad.ok, false);
  assert.match(bad.problems.join('; '), /seats 3 != payments 2; seats without a payment: ab; .*\(4, 2025-01-01\) audit missing seats 1/);
});

test('a transaction in doubt that a later attempt committed is committed only, and the indices come as ranges', () => {
  const stats = new TxnStats();
  const policy = new RetryPolicy({ retry: 'immediate', maxAttempts: 3 });
  for (const i of [0, 1, 3, 2, 5]) stats.commit(i, 10);
  stats.doubt(4); // a re-commit answered NoSuchTransaction ...
  stats.commit(4, 10); // ... then the whole transaction again, committed
  stats.doubt(7); // a commit in doubt, never committed after
  const r = stats.result(policy);
  assert.equal(r.committed, 6);
  assert.equal(r.in_doubt, 1);
  assert.deepEqual(r.committed_indices, [[0, 5]]);
  assert.deepEqual(r.in_doubt_indices, [[7, 7]]);
  const ranges = new IndexRanges();
  for (const i of [9, 3, 4, 10, 0, 8, 1]) ranges.add(i);
  assert.deepEqual(ranges.ranges(), [[0, 1], [3, 4], [8, 10]]);
});

test('a TXN_OUTCOMES file that is not the clients\' outcomes is refused naming the file, where and what', () => {
  const fs = require('fs');
  const os = require('os');
  const path = require('path');
  const { readOutcomes } = require('../../src/commands/booking-check');
  const { InputError } = require('../../src/input-error');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jsonbench-outcomes-'));
  try {
    const file = path.join(dir, 'o.json');
    fs.writeFileSync(file, JSON.stringify({ phase: 'postgres', clients: [{ ...CLIENT, committed_indices: [[0]], in_doubt_indices: [] }] }));
    assert.throws(() => readOutcomes(file), (e) => e instanceof InputError
      && e.message.startsWith(`TXN_OUTCOMES=${file}: does not match client/src/txn-outcomes.schema.json at 'clients/0/committed_indices/0'`));
    fs.writeFileSync(file, '{');
    assert.throws(() => readOutcomes(file), /not a readable JSON file/);
    const sequence = { phase: 'oltp', clients: [{ ...CLIENT, key: 'sequence', committed_indices: [[0, 1]], in_doubt_indices: [] }] };
    assert.throws(() => checkBookings(consistent(2), sequence, []), /has key "sequence"; allowed for booking ids: uuidv7, uuidv4/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
