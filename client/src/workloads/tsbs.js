'use strict';
// Time-series ingest (WORKLOAD=tsbs): client c ingests the TSBS devops cpu events of its hosts
// (tsbs-devops.js hostsOfClient: ids with id % CLIENTS == c-1) in TSBS order (tick by tick, host
// by host) at RATE events/s, one event = one operation, in one of three ingest models (MODEL):
//   event  - one document per event, keyed by (seed, client, index) as every lab workload
//            (keys.js; index = the client's event number): op `insert`;
//   bucket - one document per host and UTC hour, created by its first event and filled by
//            in-place appends, one round trip per event: op `bucket`;
//   native - the event as a row of a time-series store (no key): op `insert`.
// Names no database: each model's step is the database's workload file's (databases/<db>/client/
// workloads/tsbs.js `models`: event, bucket, native), run on the binding's connection.
// Generation (the event, its JSON text, its key) is client work done in build(), before the
// hand-off, so it stays out of service time.
const { events, hostsOfClient, bucketOf, bucketEntry, hourOf, toJson, TAG_NAMES, FIELD_NAMES } = require('../datasets/tsbs-devops');
const { eventCount } = require('../datasets/tsbs-event-keys');
const { bucketKey } = require('../datasets/tsbs-bucket-key');
const { keyGenerator } = require('../keys');
const { clientIndex } = require('./client-index');
const { InputError } = require('../bench-schema');
const { databaseWorkload } = require('../databases');

const OP_OF_MODEL = { event: 'insert', bucket: 'bucket', native: 'insert' };
const MODEL_ABOUT = {
  event: 'one document per event, keyed by (seed, client, index)',
  bucket: 'one bucket document per host and UTC hour, created by its first event, each event appended in place (one upsert round trip)',
  native: 'MongoDB time-series collection (timeField time, metaField tags) / PostgreSQL plain table with a column per tag and field',
};

// What a database's workload file needs to know about the storage of a model: the time-series
// layout (native) is described here, so a database's file never names the data set's columns.
const SERIES = Object.freeze({
  timeField: 'time', metaField: 'tags', granularity: 'seconds', metaColumns: TAG_NAMES, valueColumns: FIELD_NAMES,
});
function storageOf(model) {
  return { model, series: model === 'native' ? SERIES : null, arrayField: model === 'bucket' ? 'events' : null };
}

// The data set options of client `c` (1-based) for the generator and tsbs-event-keys.js.
function dataOfClient(opts, c) {
  return {
    seed: opts.seed, hosts: opts.hosts, start: opts.start, intervalSeconds: opts.intervalS, spanSeconds: opts.spanS,
    hostIds: hostsOfClient(opts.hosts, opts.clients, c - 1),
  };
}

class TsbsIngest {
  // own: the database's workload file (databases/<db>/client/workloads/tsbs.js), found by its folder.
  constructor({ target, opts, own = databaseWorkload(target.database, 'tsbs') }) {
    if (opts.stage !== 'run') {
      throw new InputError(`--stage ${opts.stage}: WORKLOAD=tsbs ingests in its run stage (queries are the lab's query phases); allowed: run`);
    }
    this.target = target;
    this.own = own;
    this.model = opts.model;
    // the model's step (a model the database has no step for is refused, as validation refuses it:
    // its manifest's offers.tsbs_models)
    this.step = own.models[this.model];
    if (!this.step) {
      throw new InputError(`MODEL=${this.model}: databases/${target.database}/client/workloads/tsbs.js has no step for it; `
        + `allowed: MODEL=${Object.keys(own.models).join(', ')}`);
    }
    this.data = dataOfClient(opts, clientIndex(opts) + 1);
    this.total = eventCount(this.data);
    this.rate = opts.rate;
    this.opNames = [OP_OF_MODEL[this.model]];
    this.iter = events(this.data);
    this.pos = 0; // index of the next event the generator yields
    this.keys = this.model === 'event' ? keyGenerator(opts.key, { seed: opts.seed, clientId: opts.clientId }) : null;
    this.hostHours = new Set(); // distinct (host, hour) pairs of acknowledged events
    this.op = { i: -1, key: null, doc: null, json: null, insertJson: null, entry: null, entryJson: null, hostHour: null };
  }

  typeOf() { return 0; }

  // Event i of this client. The runner may drop events (a late schedule): the generator is
  // advanced past them, so event i is always the i-th of the data set whatever was dropped.
  nextEvent(i) {
    let e;
    while (this.pos <= i) {
      e = this.iter.next().value;
      this.pos++;
    }
    return e;
  }

  build(i) {
    const e = this.nextEvent(i);
    const op = this.op;
    op.i = i;
    const hourMs = hourOf(e.time.getTime());
    op.hostHour = `${e.tags.hostname}@${hourMs}`;
    if (this.model === 'event') {
      op.key = this.keys.buffer(i);
      op.doc = e;
      op.json = toJson(e);
    } else if (this.model === 'bucket') {
      const b = bucketOf(e);
      op.key = bucketKey(b._id);
      op.entry = bucketEntry(e);
      op.doc = { hour: b.hour, tags: b.tags };
      op.entryJson = toJson(op.entry);
      // The document as its first event creates it: hour, tags, events (the key order both sides keep).
      op.insertJson = toJson({ hour: b.hour, tags: b.tags, events: [op.entry] });
    } else {
      op.doc = e;
    }
    return op;
  }

  exec(op) {
    if (this.model === 'event') return this.step(this.target, op.key, op.doc, op.json);
    if (this.model === 'bucket') return this.step(this.target, op.key, op.doc, 'events', op.entry, { insertJson: op.insertJson, entryJson: op.entryJson });
    return this.step(this.target, op.doc, SERIES);
  }

  acknowledge(op) { this.hostHours.add(op.hostHour); }

  // Called once before the first operation: the database's file prepares the model's statement.
  prepare(opts) {
    return this.own.prepare(this.target, { ...storageOf(this.model), durability: opts.durability, keyFormat: opts.keyFormat });
  }

  // Result fields known only at the end (docs/contracts.md §2, `tsbs`).
  resultFields() {
    return {
      tsbs: {
        model: this.model,
        about: MODEL_ABOUT[this.model],
        hosts: this.data.hostIds.length,
        host_ids: this.data.hostIds,
        interval_s: this.data.intervalSeconds,
        span_s: this.data.spanSeconds,
        start: this.data.start,
        events: this.total,
        host_hours: this.hostHours.size,
      },
    };
  }
}

module.exports = { TsbsIngest, storageOf, dataOfClient, OP_OF_MODEL, MODEL_ABOUT, SERIES };
