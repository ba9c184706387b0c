'use strict';
// YCSB-style workload: a load stage (RECORDS records inserted, record r by
// client r % CLIENTS + 1 as its index floor(r / CLIENTS)) and a run stage
// (OPS operations per client at RATE, in the proportions of MIX, keys chosen
// by DIST). Names no database: it calls the binding's step kinds put (build
// + send), get, patch and scan; rmw is get then patch.
//
// Everything an operation uses is derived from (seed, client, operation
// index): its type (mix.js), key, field, new value and scan length. The same
// seed gives the same operation sequence on both databases; the only input
// from the run itself is which of this client's inserts were acknowledged
// (latest, uniform and hotspot may choose those).
const { DocumentGenerator } = require('../docgen');
const { KeyDeriver, ClientKeys } = require('../keys');
const { Sfc32, hashString } = require('../prng');
const { fieldPaths } = require('../shape');
const { createChooser } = require('../choosers');
const { MixSchedule } = require('./mix');
const { InsertWorkload } = require('./insert');
const { clientIndex } = require('./client-index');

const OP_SALT = 0x6f707321; // "ops!"
const VALUE_SALT = 0x76616c21; // "val!"

// Records client c (0-based) of `clients` loads, of `records` in all.
function loadedBy(c, records, clients) {
  return c < records ? Math.ceil((records - c) / clients) : 0;
}

class YcsbRun {
  constructor({ target, opts }) {
    this.target = target;
    this.total = opts.ops;
    this.rate = opts.rate;
    const c = clientIndex(opts);
    this.clients = opts.clients;
    this.records = opts.records;
    this.ownLoaded = loadedBy(c, opts.records, opts.clients);
    this.seed = opts.seed >>> 0;
    this.ownHash = hashString(String(opts.clientId));
    this.hashes = Array.from({ length: opts.clients }, (_, k) => hashString(String(k + 1)));
    const deriver = new KeyDeriver(opts.key, opts.seed);
    this.deriver = deriver;
    this.ownKeys = new ClientKeys(deriver, opts.clientId);
    this.gen = new DocumentGenerator({
      seed: opts.seed, clientId: opts.clientId, fields: opts.fields, fieldBytes: opts.fieldBytes, shape: opts.shape,
    });
    this.fields = opts.fields;
    this.paths = fieldPaths(opts.fields, opts.shape);
    this.scanMax = opts.scanMax;
    this.opNames = Object.keys(opts.mix);
    this.mix = new MixSchedule(opts.mix, this.opNames, { seed: opts.seed, clientHash: this.ownHash });
    this.chooser = createChooser(opts.dist, opts.records);
    this.acked = []; // indices of this client's acknowledged run-stage inserts
    this.rng = new Sfc32(0, 0, 0, 0);
    this.u = () => this.rng.next() / 4294967296;
    // One reusable descriptor per operation type (one operation in flight).
    this.ops = this.opNames.map((name, t) => ({
      t, name, key: null, path: null, value: null, n: 0, index: -1, msg: null,
    }));
  }

  typeOf(i) { return this.mix.typeOf(i); }

  // Key of known position k (choosers.js): a loaded record or an acknowledged insert.
  keyAt(k) {
    if (k < this.records) return this.deriver.buffer(this.hashes[k % this.clients], Math.floor(k / this.clients));
    return this.ownKeys.buffer(this.acked[k - this.records]);
  }

  build(i) {
    const t = this.mix.typeOf(i);
    const op = this.ops[t];
    this.rng.reseed((this.seed ^ OP_SALT) >>> 0, this.ownHash, i >>> 0);
    op.i = i;
    if (op.name === 'insert') {
      op.index = this.ownLoaded + this.mix.countBefore(t, i);
      op.msg = this.target.build(this.gen, op.index, this.ownKeys);
      return op;
    }
    op.key = this.keyAt(this.chooser.choose(this.u));
    if (op.name === 'update' || op.name === 'rmw') {
      op.path = this.paths[Math.floor(this.u() * this.fields)];
      op.value = this.gen.value((this.seed ^ VALUE_SALT) >>> 0, this.ownHash, i >>> 0);
    } else if (op.name === 'scan') {
      op.n = 1 + Math.floor(this.u() * this.scanMax);
    }
    return op;
  }

  // Resolves to the documents returned or written.
  exec(op) {
    switch (op.name) {
      case 'read': return this.target.get(op.key);
      case 'update': return this.target.patch(op.key, op.path, op.value);
      case 'rmw': return this.target.get(op.key).then(() => this.target.patch(op.key, op.path, op.value));
      case 'scan': return this.target.scan(op.key, op.n);
      case 'insert': return this.target.send(op.msg);
      default: throw new Error(`unknown operation ${op.name}`);
    }
  }

  acknowledge(op) {
    if (op.name !== 'insert') return;
    this.acked.push(op.index);
    this.chooser.acknowledge();
  }
}

// The stage's workload: load = inserts of this client's records (indices
// 0..loaded-1) at LOAD_RATE; run = the mix.
function createYcsb({ target, opts }) {
  if (opts.stage === 'load') {
    const total = loadedBy(clientIndex(opts), opts.records, opts.clients);
    return new InsertWorkload({ target, opts, total, rate: opts.loadRate });
  }
  return new YcsbRun({ target, opts });
}

module.exports = { createYcsb, YcsbRun, loadedBy };
