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
const { KeyDeriver, ClientKeys } = require('../keys');
const { Sfc32 } = require('../prng');
const { CENTS_PER_MINUTE, dayText } = require('./booking-data');
const { sleep } = require('../targets/txn-retry');
const { TxnWorkload } = require('./txn-workload');

const BOOKING_SALT = 0x626f6f6b; // "book"
const USERS = 1000000;

class BookingWorkload extends TxnWorkload {
  constructor({ target, opts }) {
    super({ target, opts, prepareStep: 'prepareBooking' });
    this.opNames = ['booking'];
    this.keys = new ClientKeys(new KeyDeriver(opts.key, opts.seed), opts.clientId);
    this.rng = new Sfc32(0, 0, 0, 0);
    this.sleepMs = opts.bookingSleepMs;
  }

  typeOf() { return 0; }

  build(i) {
    const r = this.rng.reseed((this.seed ^ BOOKING_SALT) >>> 0, this.ownHash, i >>> 0);
    const u = () => r.next() / 4294967296;
    const id = this.keys.buffer(i);
    return {
      i,
      // the key as the binding takes it (its bookingKey), else the 16 bytes
      id: this.target.bookingKey ? this.target.bookingKey(id) : id,
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

  resultFields() {
    return this.transactionFields({ day_range: this.opts.dayRange, booking_sleep_ms: this.sleepMs, flights: this.opts.flights });
  }
}

module.exports = { BookingWorkload };
