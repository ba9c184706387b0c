'use strict';
// The airline booking transactions (the OnGres study's transactions benchmark, reconstructed from
// its text; booking-data.js has the tables). Names no database: each booking is the binding's
// transaction step kind (book), whose body uses the step kinds flightWithAircraft (a join /
// $lookup), insertSeat, insertPayment and addToAudit (an upsert adding one seat to the (flight,
// day) row), then holds the transaction open BOOKING_SLEEP_MS before the commit.
//
// Booking i of a client is a function of (SEED, client, i): its id (KEY's uuid of (client, i),
// the seat's and the payment's key), flight (uniform over FLIGHTS), day (uniform over DAY_RANGE
// days: 1 = the study's single-day contention hotspot), user and seat fraction. A retry repeats
// the same booking.
const { KeyDeriver, ClientKeys, uuidString } = require('../keys');
const { Sfc32, hashString } = require('../prng');
const { CENTS_PER_MINUTE, dayText } = require('./booking-data');
const { RetryPolicy, TxnStats, sleep } = require('../targets/txn-retry');
const { clientIndex } = require('./client-index');

const BOOKING_SALT = 0x626f6f6b; // "book"
const USERS = 1000000;

class BookingWorkload {
  constructor({ target, opts }) {
    clientIndex(opts); // refuses a client id outside 1..CLIENTS
    this.target = target;
    this.opts = opts;
    this.total = opts.ops;
    this.rate = opts.rate;
    this.opNames = ['booking'];
    this.seed = opts.seed >>> 0;
    this.ownHash = hashString(String(opts.clientId));
    this.keys = new ClientKeys(new KeyDeriver(opts.key, opts.seed), opts.clientId);
    this.rng = new Sfc32(0, 0, 0, 0);
    this.policy = new RetryPolicy({ retry: opts.retry, maxAttempts: opts.maxAttempts, seed: opts.seed, clientId: opts.clientId });
    this.stats = new TxnStats();
    this.txOptions = { isolation: opts.isolation, policy: this.policy, stats: this.stats };
    this.sleepMs = opts.bookingSleepMs;
    // Connections of this client (run.js opens the others, the Runner's lanes).
    this.sessions = opts.sessions || 1;
  }

  // Instead of the inserts' preparation: the session's settings (and on MongoDB, the refusal of
  // a standalone server).
  prepare(opts) { return this.prepareTarget(this.target, opts); }

  prepareTarget(target, opts) { return target.prepareBooking(opts); }

  typeOf() { return 0; }

  build(i) {
    const r = this.rng.reseed((this.seed ^ BOOKING_SALT) >>> 0, this.ownHash, i >>> 0);
    const u = () => r.next() / 4294967296;
    const id = this.keys.buffer(i);
    return {
      i,
      id: this.target.database === 'postgres' ? uuidString(id) : id,
      scheduleId: 1 + Math.floor(u() * this.opts.flights),
      day: dayText(Math.floor(u() * this.opts.dayRange)),
      userId: Math.floor(u() * USERS),
      seatFraction: u(),
    };
  }

  // target: the lane (connection) the Runner runs this booking on.
  exec(b, target = this.target) {
    return target.book(b.i, async (tx) => {
      const flight = await tx.flightWithAircraft(b.scheduleId);
      await tx.insertSeat({
        id: b.id, scheduleId: b.scheduleId, day: b.day, userId: b.userId, seatNo: 1 + Math.floor(b.seatFraction * flight.seats),
      });
      await tx.insertPayment({ id: b.id, userId: b.userId, amountCents: flight.durationMin * CENTS_PER_MINUTE });
      await tx.addToAudit(b.scheduleId, b.day);
      if (this.sleepMs > 0) await sleep(this.sleepMs);
    }, this.txOptions).then(() => 1);
  }

  acknowledge() {}

  // The run's transaction figures (result field `transactions`, docs/contracts.md).
  resultFields() {
    return {
      transactions: {
        isolation: this.target.database === 'postgres' ? this.opts.isolation : 'snapshot (read concern snapshot, write concern majority)',
        day_range: this.opts.dayRange,
        booking_sleep_ms: this.sleepMs,
        flights: this.opts.flights,
        sessions: this.sessions,
        ...this.stats.result(this.policy),
      },
    };
  }
}

module.exports = { BookingWorkload };
