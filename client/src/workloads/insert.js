'use strict';
// The insert workload (the original study): document i of this client, keyed
// by key i, at RATE docs/s, DOCS of them. Also the ycsb load stage, which is
// the same operation over this client's share of the records. Names no
// database: the binding builds and sends the insert.
const { DocumentGenerator } = require('../docgen');
const { keyGenerator } = require('../keys');

class InsertWorkload {
  // total: documents to insert; rate: per second (0 = back-to-back).
  constructor({ target, opts, total, rate }) {
    this.target = target;
    this.opNames = ['insert'];
    this.total = total;
    this.rate = rate;
    this.gen = new DocumentGenerator({
      seed: opts.seed, clientId: opts.clientId, fields: opts.fields, fieldBytes: opts.fieldBytes, shape: opts.shape,
    });
    this.keys = keyGenerator(opts.key, { seed: opts.seed, clientId: opts.clientId });
  }

  typeOf() { return 0; }

  // Generation is client work, done before the hand-off (kept out of service time).
  build(i) { return this.target.build(this.gen, i, this.keys); }

  // Resolves to what the driver returns; the runner counts it as one document.
  exec(op) { return this.target.send(op); }

  acknowledge() {}
}

module.exports = { InsertWorkload };
