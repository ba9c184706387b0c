'use strict';
// The events workload's load stage (docs/contracts.md §2, docs/datasets.md): GitHub-archive-like
// events, generated (EVENTS, REPOS, ACTORS, SKEW from SEED) or read from the user's DATASET file,
// event i loaded by client i % CLIENTS + 1 as its index floor(i / CLIENTS), keyed like ycsb's
// records. One event = one insert of the whole event object; created_at is ISO text in the event
// and MongoDB stores it as a Date (the binding converts the paths given as time). Names no database.
const gh = require('../datasets/github-events');
const { KeyDeriver, ClientKeys } = require('../keys');
const { loadedBy } = require('./ycsb');
const { clientIndex } = require('./client-index');
const { InputError } = require('../bench-schema');

const TIME_PATHS = ['created_at'];
// DATASET events read ahead of the schedule (file reading stays out of the measured insert).
const READ_AHEAD = 2000;

function datasetModule() {
  try {
    return require('../datasets/dataset-file');
  } catch (err) {
    if (err.code === 'MODULE_NOT_FOUND' && /dataset-file/.test(err.message)) throw new InputError('DATASET needs client/src/datasets/dataset-file.js');
    throw err;
  }
}

class EventsLoad {
  constructor({ target, opts }) {
    this.target = target;
    this.opNames = ['insert'];
    this.rate = opts.loadRate;
    this.clients = opts.clients;
    this.c = clientIndex(opts);
    this.keys = new ClientKeys(new KeyDeriver(opts.key, opts.seed), opts.clientId);
    if (opts.dataset) {
      const df = datasetModule();
      this.total = loadedBy(this.c, df.countEvents(opts.dataset, process.cwd()), opts.clients);
      this.iter = df.clientEvents(opts.dataset, { clients: opts.clients, clientIndex: this.c, benchDir: process.cwd() });
      this.buffer = [];
      this.filling = null;
      this.exhausted = false;
    } else {
      this.generator = {
        seed: opts.seed >>> 0, count: opts.events, repos: opts.repos, actors: opts.actors, repoSkew: opts.skew, actorSkew: opts.skew,
      };
      gh.normaliseOptions(this.generator); // refuses bad values before anything is sent
      this.total = loadedBy(this.c, opts.events, opts.clients);
    }
  }

  // Reads DATASET events ahead (before the first insert and while inserts are in flight).
  async prepareWork() {
    if (this.iter) await this.fill();
  }

  fill() {
    if (!this.filling) {
      this.filling = (async () => {
        while (this.buffer.length < READ_AHEAD && !this.exhausted) {
          const r = await this.iter.next();
          if (r.done) this.exhausted = true; else this.buffer.push(r.value);
        }
      })().finally(() => { this.filling = null; });
    }
    return this.filling;
  }

  typeOf() { return 0; }

  build(i) {
    if (!this.iter) {
      return { index: i, doc: gh.event(this.generator, i * this.clients + this.c) };
    }
    const next = this.buffer.length ? this.buffer.shift() : null;
    if (next && next.index !== i) throw new Error(`DATASET: client ${this.c + 1} expected its event ${i}, got ${next.index}`);
    if (this.buffer.length < READ_AHEAD / 2) this.fill();
    return { index: i, doc: next ? next.doc : null };
  }

  async exec(op) {
    if (!op.doc) { // read-ahead behind the schedule: wait for it (rare; inside this insert's latency)
      await this.fill();
      const next = this.buffer.shift();
      if (!next) throw new Error(`DATASET: client ${this.c + 1} has no event ${op.index}`);
      op.doc = next.doc;
    }
    return this.target.putDocument(this.keys.buffer(op.index), op.doc, { timePaths: TIME_PATHS });
  }

  acknowledge() {}
}

function createEvents({ target, opts }) {
  if (opts.stage !== 'load') {
    throw new InputError(`--stage ${opts.stage}: WORKLOAD=events has a load stage and query phases; allowed: load, query`);
  }
  return new EventsLoad({ target, opts });
}

module.exports = { createEvents, EventsLoad, TIME_PATHS };
