'use strict';
// The airline booking transactions (the OnGres study's transactions benchmark, reconstructed from
// its text; booking-data.js has the tables). Names no database: each booking is one run of the
// binding's transaction step kind, whose body uses the steps of the database's workload file
// (databases/<db>/client/workloads/booking.js stepsOn): flightWithAircraft (a join / $lookup),
// insertSeat, insertPayment and addToAudit (an upsert adding one seat to the (flight, day) row),
// then holds the transaction open BOOKING_SLEEP_MS before the commit.
//
// Booking i of a client is a function of (SEED, client, i): its id (KEY's uuid of (client, i),
// the seat's and the payment's key), flight (uniform over FLIGHTS), day (uniform over DAY_RANGE
// days: 1 = the study's single-day contention hotspot), user and seat fraction (BookingDeriver,
// which count's nothing-lost check uses too). A retry repeats the same booking.
const { KeyDeriver, ClientKeys } = require('../keys');
const { Sfc32, hashString } = require('../prng');
const { CENTS_PER_MINUTE, dayText } = require('./booking-data');
const { sleep } = require('../targets/txn-retry');
const { TxnWorkload } = require('./txn-workload');

const BOOKING_SALT = 0x626f6f6b; // "book"
const USERS = 1000000;
// The tables a booking writes, in the result's `writes` (the reconciliation's per-table checks).
const WRITTEN = ['seat', 'payment', 'audit'];

// Booking i of one client: { i, id (16 bytes), scheduleId, day ('YYYY-MM-DD'), userId, seatFraction }.
class BookingDeriver {
  constructor({
    key, seed, clientId, flights, dayRange,
  }) {
    this.keys = new ClientKeys(new KeyDeriver(key, seed), clientId);
    this.seed = ((seed >>> 0) ^ BOOKING_SALT) >>> 0;
    this.clientHash = hashString(String(clientId));
    this.flights = flights;
    this.dayRange = dayRange;
    this.rng = new Sfc32(0, 0, 0, 0);
  }

  booking(i) {
    const r = this.rng.reseed(this.seed, this.clientHash, i >>> 0);
    const u = () => r.next() / 4294967296;
    return {
      i,
      id: this.keys.buffer(i),
      scheduleId: 1 + Math.floor(u() * this.flights),
      day: dayText(Math.floor(u() * this.dayRange)),
      userId: Math.floor(u() * USERS),
      seatFraction: u(),
    };
  }
}

class BookingWorkload extends TxnWorkload {
  constructor({ target, opts }) {
    super({ target, opts, workload: 'booking' });
    this.opNames = ['booking'];
    this.deriver = new BookingDeriver({
      key: opts.key, seed: opts.seed, clientId: opts.clientId, flights: opts.flights, dayRange: opts.dayRange,
    });
    this.sleepMs = opts.bookingSleepMs;
    // Write statements per table over every attempt, committed or not: ok (the server answered it)
    // and failed (it returned an error, which ended the attempt). A rolled-back attempt's rows count
    // in PostgreSQL's pg_stat_user_tables and MongoDB's `top` as a committed one's do.
    this.writes = Object.fromEntries(WRITTEN.map((t) => [t, { ok: 0, failed: 0 }]));
  }

  typeOf() { return 0; }

  build(i) {
    const b = this.deriver.booking(i);
    // the key as the database's steps take it (its workload file's key), else the 16 bytes
    return { ...b, id: this.own.key ? this.own.key(b.id) : b.id };
  }

  // A write step counted in `writes` by its table.
  async write(table, step) {
    try {
      const r = await step;
      this.writes[table].ok++;
      return r;
    } catch (err) {
      this.writes[table].failed++;
      throw err;
    }
  }

  // target: the lane (connection) the Runner runs this booking on.
  exec(b, target = this.target) {
    return this.transaction(target, b.i, async (tx) => {
      const flight = await tx.flightWithAircraft(b.scheduleId);
      // the seat number and the price come from the flight: a binding step that lost them would store
      // other data than the other databases do (seat_no 1 everywhere), never silently
      if (!(Number.isInteger(flight.seats) && flight.seats > 0 && Number.isInteger(flight.durationMin))) {
        throw new Error(`booking: flight ${b.scheduleId} read as seats=${flight.seats} duration_min=${flight.durationMin}: `
          + 'flightWithAircraft must give the aircraft\'s seats and the flight\'s duration as integers');
      }
      await this.write('seat', tx.insertSeat({
        id: b.id, scheduleId: b.scheduleId, day: b.day, userId: b.userId, seatNo: 1 + Math.floor(b.seatFraction * flight.seats),
      }));
      await this.write('payment', tx.insertPayment({ id: b.id, userId: b.userId, amountCents: flight.durationMin * CENTS_PER_MINUTE }));
      await this.write('audit', tx.addToAudit(b.scheduleId, b.day));
      if (this.sleepMs > 0) await sleep(this.sleepMs);
    }).then(() => 1);
  }

  resultFields() {
    return this.transactionFields({
      day_range: this.opts.dayRange, booking_sleep_ms: this.sleepMs, flights: this.opts.flights, writes: this.writes,
    });
  }
}

module.exports = { BookingWorkload, BookingDeriver, WRITTEN };
