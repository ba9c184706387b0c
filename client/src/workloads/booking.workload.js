'use strict';
// WORKLOAD=booking: the OnGres airline booking transactions (client/src/workloads/booking.js), OPS
// transactions per client at RATE/s in one measured run phase (`<db>`); init loads the aircraft and
// the FLIGHTS flights outside the window.
const shared = require('./shared-keys');
const { checkTransactionKeys } = require('./txn-rules');
const { phase } = require('./plan-helpers');
const { databaseWorkload } = require('../databases');

// This database's file of the workload (databases/<db>/client/workloads/booking.js).
const own = (target) => databaseWorkload(target.database, 'booking');

module.exports = {
  name: 'booking',
  order: 5,
  documents: false,
  stages: ['run'],
  stagesWhy: 'init loads its data',
  sequenceKeys: 'a booking\'s seat and payment share a key derived from (SEED, client, index), so the nothing-lost check can match them on both databases',
  contextKeys: [],
  keys: {
    RATE: shared.RATE,
    OPS: shared.OPS,
    FLIGHTS: { type: 'int', min: 1, max: 1000000, default: '14000', about: 'flights in the schedule (each served by one of 200 aircraft); bookings pick one uniformly' },
    DAY_RANGE: { type: 'int', min: 1, max: 36500, default: '1', about: 'days the bookings spread over (1 = every booking on one day: the study\'s contention hotspot)' },
    BOOKING_SLEEP_MS: { type: 'int', min: 0, max: 60000, default: '0', about: 'milliseconds each transaction stays open before its commit' },
    ...shared.TRANSACTION_KEYS,
  },
  check: checkTransactionKeys,
  // One run phase of OPS transactions per client (init loads the data outside the window).
  phases: (v, database) => [phase(database, 'run', v.OPS, v.RATE, v.CLIENTS)],
  checkSize: (v, n) => [`OPS=${n}`],
  create: ({ target, opts }) => new (require('./booking').BookingWorkload)({ target, opts }),
  // What a database's file of it (databases/<db>/client/workloads/booking.js) exports: its tables and
  // data (init), the session (prepare), a booking's steps (stepsOn), the nothing-lost check's reads.
  databaseNeeds: ['init', 'prepare', 'stepsOn', 'verify', 'seatIds', 'sizes'],
  // init's data (the aircraft, the FLIGHTS flights) and the tables settle vacuums on PostgreSQL
  initData: (target, opts) => own(target).init(target, opts),
  tables: () => Object.keys(require('./booking-data').tables),
  // count: the nothing-lost check (every committed booking's seat and payment there, by id, and no
  // seat of anyone else: commands/booking-check.js) and the five tables' sizes; exit 1 when it fails
  async count({ target, server, opts, readSettled, print }) {
    const { checkBookings, readOutcomes } = require('../commands/booking-check');
    const outcomes = opts.txnOutcomes ? readOutcomes(opts.txnOutcomes) : null;
    const found = await own(target).verify(target);
    const check = checkBookings(found, outcomes, outcomes ? await own(target).seatIds(target) : []);
    const sizes = await readSettled(target, () => own(target).sizes(target));
    print({
      database: opts.database, server, documents: found.seats, ...sizes, booking_check: check, note: 'bytes: the five tables/collections together',
    });
    if (!check.ok) console.error(`nothing-lost check FAILED on ${opts.database}: ${check.problems.join('; ')}`);
    return check.ok ? 0 : 1;
  },
  describe: (opts, out) => ({ ...out, shape: null }),
  // Each operation a transaction; the count holds one seat per committed booking (count's
  // nothing-lost check also allows the in-doubt ones, by id).
  analysis: { insert_ops: ['insert'], ingest: false, transactions: true, count_expected: { basis: 'committed' } },
};
