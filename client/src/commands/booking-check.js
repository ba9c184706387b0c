'use strict';
// The nothing-lost check of the booking transactions, the same on both databases: every seat has
// its payment and every payment its seat; every audit row equals the seats of its (flight, day)
// and every (flight, day) with seats has its row; and, given the clients' transaction outcomes
// (TXN_OUTCOMES: which booking indices each client committed and which it left in doubt, written
// by `analysis txn-outcomes` from their result files), booking by booking: a booking's id is a
// function of (KEY, SEED, client, index) (workloads/booking.js BookingDeriver), so every committed
// booking's seat must be there (else it is lost, named by client, index and id) and every seat
// must be a committed or an in-doubt booking's (a commit whose reply was lost may have landed).
// Counts alone would pass a lost committed booking beside an in-doubt one that landed.
const fs = require('fs');
const { BookingDeriver } = require('../workloads/booking');
const { uuidString } = require('../keys');
const { schemaProblem } = require('../check-schema');
const { InputError } = require('../input-error');

// At most this many lost bookings and unexpected seats are listed (all are counted).
const LIST = 20;

// The TXN_OUTCOMES file, checked against client/src/txn-outcomes.schema.json.
function readOutcomes(file) {
  let doc;
  try {
    doc = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new InputError(`TXN_OUTCOMES=${file}: not a readable JSON file (${err.message}); allowed: the file \`python -m analysis txn-outcomes\` writes`);
  }
  const problem = schemaProblem(doc, 'txn-outcomes');
  if (problem) throw new InputError(`TXN_OUTCOMES=${file}: ${problem}`);
  return doc;
}

const rangeSize = (ranges) => ranges.reduce((n, [a, b]) => n + b - a + 1, 0);

// {hex id: {client_id, i, audit}} of every booking the outcomes name in `field`, audit its (flight, day).
function bookingsOf(outcomes, field) {
  const out = new Map();
  for (const c of outcomes.clients) {
    if (!c.flights || !c.day_range) {
      throw new InputError(`TXN_OUTCOMES: client ${c.client_id} has no flights/day_range (a booking client's result file has them in \`transactions\`)`);
    }
    if (c.key !== 'uuidv7' && c.key !== 'uuidv4') {
      throw new InputError(`TXN_OUTCOMES: client ${c.client_id} has key ${JSON.stringify(c.key)}; allowed for booking ids: uuidv7, uuidv4`);
    }
    const d = new BookingDeriver({
      key: c.key, seed: c.seed, clientId: c.client_id, flights: c.flights, dayRange: c.day_range,
    });
    for (const [first, last] of c[field]) {
      for (let i = first; i <= last; i++) {
        const b = d.booking(i);
        out.set(b.id.toString('hex'), { client_id: c.client_id, i, audit: `${b.scheduleId}|${b.day}` });
      }
    }
  }
  return out;
}

const uuidOf = (hex) => uuidString(Buffer.from(hex, 'hex'));

// The bookings the outcomes name against the seat ids in the database (32 hex digits each).
function checkIds(outcomes, seatIds) {
  const committed = bookingsOf(outcomes, 'committed_indices');
  const inDoubt = bookingsOf(outcomes, 'in_doubt_indices');
  const perAudit = new Map(); // (flight, day) -> the lab's bookings there
  const unexpected = [];
  let landed = 0;
  for (const id of seatIds) {
    const b = committed.get(id) || inDoubt.get(id);
    if (!b) { unexpected.push(id); continue; }
    if (committed.has(id)) committed.delete(id);
    else landed++;
    perAudit.set(b.audit, (perAudit.get(b.audit) || 0) + 1);
  }
  const lost = [...committed.entries()].sort((x, y) => (x[1].client_id < y[1].client_id ? -1 : x[1].client_id > y[1].client_id ? 1 : x[1].i - y[1].i));
  // audit rows by how many of the lab's bookings each holds: {bookings: rows} (the reconciliation
  // bounds the audit upserts that raced to create the same row by it)
  const byBookings = {};
  for (const n of perAudit.values()) byBookings[n] = (byBookings[n] || 0) + 1;
  unexpected.sort();
  return {
    committed: rangeSize(outcomes.clients.flatMap((c) => c.committed_indices)),
    in_doubt: rangeSize(outcomes.clients.flatMap((c) => c.in_doubt_indices)),
    in_doubt_landed: landed,
    lost_count: lost.length,
    lost: lost.slice(0, LIST).map(([id, b]) => ({ client_id: b.client_id, i: b.i, id: uuidOf(id) })),
    unexpected_count: unexpected.length,
    unexpected: unexpected.slice(0, LIST).map(uuidOf),
    audit_rows_booked: perAudit.size,
    audit_rows_by_bookings: byBookings,
  };
}

// found: the database's workload file's verify(); outcomes: readOutcomes(TXN_OUTCOMES) or null (then the
// bookings are not checked: committed null); seatIds: every seat's id, 32 hex digits (the
// workload file's seatIds()). Returns { ok, problems[], ...found, committed, in_doubt, ids_checked, ... }.
function checkBookings(found, outcomes, seatIds = []) {
  const problems = [];
  if (found.seats !== found.payments) problems.push(`seats ${found.seats} != payments ${found.payments}`);
  if (found.seats_without_payment.length) problems.push(`seats without a payment: ${found.seats_without_payment.join(', ')}`);
  if (found.payments_without_seat.length) problems.push(`payments without a seat: ${found.payments_without_seat.join(', ')}`);
  if (found.audit_seats !== found.seats) problems.push(`audit rows sum to ${found.audit_seats} seats, seat holds ${found.seats}`);
  if (found.audit_mismatches.length) {
    problems.push(`audit rows != seats of their (flight, day): ${found.audit_mismatches
      .map((m) => `(${m.schedule_id}, ${m.day}) audit ${m.audit === null ? 'missing' : m.audit} seats ${m.seats}`).join(', ')}`);
  }
  let ids = {
    committed: null, in_doubt: null, ids_checked: null, in_doubt_landed: null, lost_count: null, lost: [], unexpected_count: null, unexpected: [],
    audit_rows_booked: null, audit_rows_by_bookings: null,
  };
  if (outcomes) {
    ids = checkIds(outcomes, seatIds);
    ids.ids_checked = ids.committed + ids.in_doubt;
    const more = (n, shown) => (n > shown ? `, ... ${n - shown} more` : '');
    if (ids.lost_count) {
      problems.push(`committed bookings lost: ${ids.lost_count} (${ids.lost.map((b) => `client ${b.client_id} booking ${b.i} id ${b.id}`).join(', ')}`
        + `${more(ids.lost_count, ids.lost.length)})`);
    }
    if (ids.unexpected_count) {
      problems.push(`seats of no committed or in-doubt booking: ${ids.unexpected_count} (${ids.unexpected.join(', ')}`
        + `${more(ids.unexpected_count, ids.unexpected.length)})`);
    }
  }
  return {
    ok: problems.length === 0, problems, ...found, ...ids,
  };
}

module.exports = { checkBookings, readOutcomes };
