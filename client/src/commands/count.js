'use strict';
// `count`: documents and storage bytes as one JSON object on stdout. WORKLOAD=booking: the
// nothing-lost check too (booking-check.js); a mismatch exits 1 with the offending rows shown.
const { connectTarget } = require('./connect');
const { storageOf } = require('../workloads/tsbs');
const { checkBookings } = require('./booking-check');

async function count(opts) {
  const { target, server } = await connectTarget(opts, { patient: true });
  try {
    if (opts.workload === 'booking') return await countBookings(target, server, opts);
    if (opts.workload === 'oltp') {
      console.log(JSON.stringify({ database: opts.database, server, ...await target.countOltp() }));
      return 0;
    }
    // tsbs: events held by the ingest model's storage (bucket: summed over the buckets)
    const sizes = await target.count(opts.workload === 'tsbs' ? storageOf(opts.model) : undefined);
    console.log(JSON.stringify({ database: opts.database, server, ...sizes }));
    return 0;
  } finally {
    await target.close();
  }
}

async function countBookings(target, server, opts) {
  const found = await target.verifyBooking();
  const check = checkBookings(found, { committed: opts.committed, inDoubt: opts.inDoubt });
  const sizes = await target.bookingSizes();
  console.log(JSON.stringify({
    database: opts.database, server, documents: found.seats, ...sizes, booking_check: check, note: 'bytes: the five tables/collections together',
  }));
  if (!check.ok) console.error(`nothing-lost check FAILED on ${opts.database}: ${check.problems.join('; ')}`);
  return check.ok ? 0 : 1;
}

module.exports = { count };
