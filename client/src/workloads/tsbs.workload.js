'use strict';
// WORKLOAD=tsbs: the TSBS devops cpu data (docs/datasets.md), ingested at RATE events/s per client in
// the measured run phase (`<db>`); client c of CLIENTS (0-based) ingests the hosts with
// id % CLIENTS == c. Then one query phase per query type of QUERIES on the data it left.
const path = require('path');
const shared = require('./shared-keys');
const { InputError } = require('../input-error');
const { phase } = require('./plan-helpers');
const { databaseWorkload } = require('../databases');

// This database's file of the workload (databases/<db>/client/workloads/tsbs.js).
const own = (target) => databaseWorkload(target.database, 'tsbs');
// The ingest model's storage (its table/collection, its series layout): what the file's steps take.
const storageOf = (opts) => require('./tsbs').storageOf(opts.model);

const MODELS = ['event', 'bucket', 'native'];
const ISO_SECOND = /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$/;
// The longest TSBS query window (12 h): the smoke check keeps at least this much data for queries.
const LONGEST_WINDOW_S = 43200;

// What each database's manifest offers for the TSBS data (offers.tsbs_models, offers.compress):
// a MODEL or a COMPRESS one of DATABASES does not have is refused, naming the database.
function checkOffers(values, where) {
  const manifests = require('../databases').manifests();
  const dbs = values.DATABASES.filter((db) => manifests[db]);
  const noModel = dbs.filter((db) => !(manifests[db].offers.tsbs_models || MODELS).includes(values.MODEL));
  if (noModel.length) {
    const has = noModel.map((db) => `${db}: ${(manifests[db].offers.tsbs_models || MODELS).join(', ')}`).join('; ');
    throw new InputError(`${where('MODEL')}: MODEL=${values.MODEL} has no ${noModel.join(', ')} layout (databases/<name>/database.json `
      + `offers.tsbs_models); allowed: ${has} (a design per database: a paired sweep, e.g. SWEEP="MODEL+DATABASES=event+mongodb,native+timescaledb")`);
  }
  if (values.COMPRESS !== 'none') {
    const without = dbs.filter((db) => !manifests[db].offers.compress);
    if (without.length) {
      const with_ = Object.keys(manifests).filter((db) => manifests[db].offers.compress);
      throw new InputError(`${where('COMPRESS')}: COMPRESS=${values.COMPRESS} is native compression, which ${without.join(', ')} ${without.length > 1 ? 'do' : 'does'} `
        + `not have (databases/<name>/database.json offers.compress): it is refused rather than ignored, so no run says `
        + `compressed where nothing was; allowed: COMPRESS=none, or DATABASES of databases that have it (${with_.join(', ') || 'none'})`);
    }
  }
}

// The TSBS models whose query forms every one of the databases brings in its folder (manifest
// offers.tsbs_query_models: TimescaleDB's native hypertable); [] when one of them brings none.
function ownQueryModels(databases) {
  const manifests = require('../databases').manifests();
  const lists = (databases || []).map((db) => (manifests[db] && manifests[db].offers.tsbs_query_models) || []);
  return lists.length ? lists.reduce((a, b) => a.filter((m) => b.includes(m))) : [];
}

// Events client 1 ingests (it owns hosts 0, CLIENTS, 2*CLIENTS, ...: the most of any client).
function eventsOfClient1(v) {
  const { eventCount } = require('../datasets/tsbs-event-keys');
  const { hostsOfClient } = require('../datasets/tsbs-devops');
  return eventCount({
    seed: v.SEED, hosts: v.HOSTS, start: v.START, intervalSeconds: v.INTERVAL_S, spanSeconds: v.SPAN_S,
    hostIds: hostsOfClient(v.HOSTS, v.CLIENTS, 0),
  });
}

// COMPRESS (bench-schema.js allows it only for a database whose manifest offers it): the database's
// native compression (its file's compress), applied by count after the ingest window and outside it
// (and again, a no-op on compressed chunks, after each query phase), then the sizes read again the
// same way. The top-level sizes are the compressed ones (what the queries read);
// `compress.uncompressed` keeps the settled sizes before it.
const SIZE_KEYS = ['table_bytes', 'index_bytes', 'total_bytes'];
async function compressed(target, file, storage, setting, uncompressed, readSettled) {
  if (typeof file.compress !== 'function') {
    throw new Error(`COMPRESS=${setting}: databases/${target.database}/client/workloads/tsbs.js has no native compression (its manifest must not offer it)`);
  }
  const done = await file.compress(target, storage, setting);
  const after = await readSettled(target, () => file.count(target, storage));
  return {
    ...after,
    compress: { ...done, uncompressed: Object.fromEntries(SIZE_KEYS.map((k) => [k, uncompressed[k]])) },
  };
}

// Python's '%g' (6 significant digits, no trailing zeros), as the check's sizes were printed.
const g6 = (x) => String(Number(x.toPrecision(6)));

module.exports = {
  name: 'tsbs',
  order: 3,
  documents: false,
  // TSBS devops query types (client/src/datasets/tsbs-query-params.js gives their parameters); the
  // names are the contract with QUERIES and the phase ids (<db>-q-<name>): they never change once shipped
  querySet: {
    module: path.join(__dirname, '..', 'queries', 'tsbs-devops-queries'),
    names: ['single-groupby-1-1-1', 'single-groupby-1-1-12', 'single-groupby-1-8-1', 'single-groupby-5-1-1',
      'single-groupby-5-1-12', 'single-groupby-5-8-1', 'double-groupby-1', 'double-groupby-5', 'double-groupby-all',
      'high-cpu-1', 'high-cpu-all', 'groupby-orderby-limit', 'lastpoint'],
  },
  sequenceKeys: 'an event\'s key is derived from (SEED, client, index) so both databases hold the same keys (MODEL=bucket keys buckets by host and hour, MODEL=native has none)',
  contextKeys: [],
  keys: {
    RATE: shared.RATE,
    MODEL: { type: 'enum', values: MODELS, default: 'event', about: 'ingest model: a document per event, a bucket document per host and hour filled by in-place updates, or a native time-series collection (MongoDB) / plain table with columns (PostgreSQL)' },
    // A database's native compression of the TSBS data (its manifest's offers.compress), applied by
    // the count after the ingest window (outside it) to the chunks older than the interval; none: off.
    COMPRESS: {
      type: 'text', default: 'none', pattern: /^(none|after:[0-9]+[smhd])$/,
      patternAbout: 'none, or after:<n><s|m|h|d> (e.g. after:12h: compress the data older than 12 hours)',
      about: 'native compression after the ingest, for databases whose manifest offers it (offers.compress: timescaledb)',
    },
    HOSTS: { type: 'int', min: 1, default: '10', about: 'hosts of the data set' },
    INTERVAL_S: { type: 'number', gt: 0, default: '10', about: 'seconds between two events of a host (whole milliseconds)' },
    SPAN_S: { type: 'int', min: 1, default: '3600', about: 'seconds of data: a host has an event at START + k*INTERVAL_S for every k*INTERVAL_S < SPAN_S' },
    START: {
      type: 'text', default: '2016-01-01T00:00:00Z', pattern: ISO_SECOND, patternAbout: 'a UTC date-time on a whole second, as 2016-01-01T00:00:00Z',
      about: 'time of the first event',
    },
    ...shared.QUERY_KEYS,
  },
  check(values, where) {
    if (values.DATABASES) checkOffers(values, where);
    if (Array.isArray(values.QUERIES) && values.QUERIES.length) {
      // The TSBS query set runs on MODEL=event/bucket, on a data set its windows and hosts fit.
      const tq = require('../queries/tsbs-devops-queries');
      const r = tq.refusal(tq.dataOf(values), values.QUERIES, ownQueryModels(values.DATABASES));
      if (r) throw new InputError(`${where(r.key)}: ${r.message}`);
    }
  },
  // The ingest is the measured run stage (per-event costs); queries follow on its data.
  phases: (v, database) => [phase(database, 'run', eventsOfClient1(v), v.RATE, v.CLIENTS)],
  // The SPAN_S in which client 1's hosts (ceil(HOSTS/CLIENTS)) produce n events; with queries at
  // least 12 h (the longest TSBS window), INTERVAL_S stretched to keep n events.
  checkSize(v, n) {
    const ticks = Math.max(1, Math.ceil(n / Math.ceil(v.HOSTS / v.CLIENTS)));
    const span = ticks * v.INTERVAL_S;
    if (v.QUERIES.length && span < LONGEST_WINDOW_S) {
      return [`SPAN_S=${LONGEST_WINDOW_S}`, `INTERVAL_S=${g6(Math.ceil(LONGEST_WINDOW_S * 1000 / ticks) / 1000)}`];
    }
    return [`SPAN_S=${Math.max(1, Math.ceil(span))}`];
  },
  create: ({ target, opts }) => new (require('./tsbs').TsbsIngest)({ target, opts }),
  // What a database's file of it (databases/<db>/client/workloads/tsbs.js) exports: the model's
  // table/collection and its indexes (init), the model's statement (prepare), a step per model it
  // stores (models: {event, bucket, native}, as its manifest's offers.tsbs_models), the events held
  // and sizes (count), and where its manifest offers compression, compress.
  databaseNeeds: ['init', 'prepare', 'models', 'count'],
  // init: the ingest model's table/collection and its own index (a model the server lacks is
  // refused, exit 2); the query set's indexes follow (commands/init.js)
  initData: (target, opts, server) => own(target).init(target, storageOf(opts), { key: opts.key, layout: opts.layout, server }),
  // count: the events the model's storage holds (bucket: summed over the buckets) and its sizes;
  // COMPRESS: the database's native compression after the ingest window, sizes read again
  async count({ target, server, opts, readSettled, print }) {
    const file = own(target);
    const storage = storageOf(opts);
    let sizes = await readSettled(target, () => file.count(target, storage));
    if (opts.compress && opts.compress !== 'none') sizes = await compressed(target, file, storage, opts.compress, sizes, readSettled);
    print({ database: opts.database, server, ...sizes });
    return 0;
  },
  // which ingest model ran (the rest of its figures come at the end: workload.resultFields)
  describe: (opts, out) => ({ ...out, model: opts.model, shape: null }),
  okSummary: (values, standIns) => `tsbs MODEL=${values.MODEL}, ${values.HOSTS} hosts every ${values.INTERVAL_S} s `
    + `for ${values.SPAN_S} s from ${values.START}; ${values.CLIENTS} client(s) x ${values.RATE} events/s${standIns ? '; stand-ins' : ''}`,
  // An ingest: the run phase's figures are per event (analysis/figures/ingest.py), and MODEL=bucket's
  // upserts each ingest one event as an insert does in the other models.
  analysis: { insert_ops: ['insert', 'bucket'], ingest: true, transactions: false, count_expected: { basis: 'inserted' } },
};
