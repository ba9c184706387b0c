'use strict';
// The nothing-lost check of the booking transactions, the same on both databases: every seat has
// its payment and every payment its seat; every audit row equals the seats of its (flight, day)
// and every (flight, day) with seats has its row; and, given the bookings the clients committed,
// seats = committed (up to `inDoubt` more: commits whose reply was lost may have landed, and
// none may be missing).

// found: the binding's verifyBooking(); returns { ok, problems[], ...found }.
function checkBookings(found, { committed, inDoubt = 0 }) {
  const problems = [];
  if (found.seats !== found.payments) problems.push(`seats ${found.seats} != payments ${found.payments}`);
  if (found.seats_without_payment.length) problems.push(`seats without a payment: ${found.seats_without_payment.join(', ')}`);
  if (found.payments_without_seat.length) problems.push(`payments without a seat: ${found.payments_without_seat.join(', ')}`);
  if (found.audit_seats !== found.seats) problems.push(`audit rows sum to ${found.audit_seats} seats, seat holds ${found.seats}`);
  if (found.audit_mismatches.length) {
    problems.push(`audit rows != seats of their (flight, day): ${found.audit_mismatches
      .map((m) => `(${m.schedule_id}, ${m.day}) audit ${m.audit === null ? 'missing' : m.audit} seats ${m.seats}`).join(', ')}`);
  }
  if (committed !== undefined && committed !== null) {
    if (found.seats < committed) problems.push(`seats ${found.seats} < committed bookings ${committed}: committed bookings were lost`);
    if (found.seats > committed + inDoubt) problems.push(`seats ${found.seats} > committed bookings ${committed} + in doubt ${inDoubt}`);
  }
  return {
    ok: problems.length === 0, committed: committed ?? null, in_doubt: inDoubt, problems, ...found,
  };
}

module.exports = { checkBookings };
