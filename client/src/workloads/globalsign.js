'use strict';
// GlobalSign's mixed workers (globalsign.workload.js): the load stage inserts this client's share of
// RECORDS people; the run stage's operation i is MIX's choice (mix.js) among insert (the client's next
// person), update (a loaded person's balance, by id, uniform over the RECORDS loaded) and range (every
// person in the band). Names no database: the database's file (databases/<db>/client/workloads/
// globalsign.js) runs each operation in its own form (stepsOn). Everything an operation uses comes
// from (SEED, client, i): its type, person, id and new balance.
const { Sfc32, hashString } = require('../prng');
const { MixSchedule } = require('./mix');
const { clientIndex } = require('./client-index');
const { loadedBy } = require('./ycsb');
const { databaseWorkload } = require('../databases');
const { person, newBalance, personId } = require('./globalsign-data');

const OP_SALT = 0x67736f70; // "gsop"

class GlobalsignWorkload {
  // stage: 'load' (inserts only) or 'run' (the mix).
  constructor({ target, opts }) {
    this.target = target;
    this.opts = opts;
    this.c = clientIndex(opts);
    this.clients = opts.clients;
    this.records = opts.records;
    this.seed = opts.seed >>> 0;
    this.ownHash = hashString(String(opts.clientId));
    this.ownLoaded = loadedBy(this.c, opts.records, opts.clients);
    this.shape = { padBytes: opts.padBytes, ageMax: opts.ageMax };
    this.own = databaseWorkload(target.database, 'globalsign');
    if (opts.stage === 'load') {
      this.opNames = ['insert'];
      this.total = this.ownLoaded;
      this.rate = opts.loadRate;
      this.mix = null;
    } else {
      this.opNames = Object.keys(opts.mix);
      this.total = opts.ops;
      this.rate = opts.rate;
      this.mix = new MixSchedule(opts.mix, this.opNames, { seed: opts.seed, clientHash: this.ownHash });
    }
    this.rng = new Sfc32(0, 0, 0, 0);
  }

  // The session as the database's file prepares it (durability; MySQL's check of it), then its steps
  // (opts: DURABILITY, RANGE_MIN, RANGE_MAX).
  async prepare(opts) {
    await this.own.prepare(this.target, opts);
    this.steps = this.own.stepsOn(this.target, opts);
  }

  typeOf(i) { return this.mix ? this.mix.typeOf(i) : 0; }

  // Generation is client work, done before the hand-off (kept out of service time).
  build(i) {
    const t = this.typeOf(i);
    const name = this.opNames[t];
    if (name === 'insert') {
      const k = this.mix ? this.ownLoaded + this.mix.countBefore(t, i) : i;
      return { name, doc: this.own.encode(person(this.seed, personId(this.c, this.clients, k), this.shape)) };
    }
    if (name === 'update') {
      const r = this.rng.reseed((this.seed ^ OP_SALT) >>> 0, this.ownHash, i >>> 0);
      return { name, id: r.next() % this.records, balance: newBalance(this.seed, this.ownHash, i) };
    }
    return { name };
  }

  // Resolves to the documents written or returned.
  exec(op) {
    switch (op.name) {
      case 'insert': return this.steps.insert(op.doc);
      case 'update': return this.steps.update(op.id, op.balance);
      case 'range': return this.steps.range();
      default: throw new Error(`unknown operation ${op.name}`);
    }
  }

  acknowledge() {}

  // The range selects' round trips where the database's steps count them (MongoDB: a find and its
  // getMores; the SQL databases' ranges are one statement each): range_round_trips of the result.
  resultFields() {
    return this.steps && this.steps.rangeRoundTrips ? { range_round_trips: this.steps.rangeRoundTrips() } : {};
  }
}

const createGlobalsign = ({ target, opts }) => new GlobalsignWorkload({ target, opts });

module.exports = { GlobalsignWorkload, createGlobalsign };
