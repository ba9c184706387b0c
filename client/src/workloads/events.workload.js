'use strict';
// WORKLOAD=events: analytical queries over GitHub-archive-like events (generated, or a user's
// DATASET file): a load phase (`<db>-load`, at LOAD_RATE) then one query phase per query type.
const path = require('path');
const shared = require('./shared-keys');
const { phase } = require('./plan-helpers');

const generated = (v) => !v.DATASET;
// The smoke check's generated set: small, so its load takes seconds (a DATASET is what it is).
const CHECK_EVENTS = 5000;

// Events client 1 loads (event i goes to client i % CLIENTS + 1, as ycsb's records). A DATASET's
// lines are counted by datasets/dataset-file.js (relative paths from the bench folder).
function eventsOfClient1(v, benchDir) {
  const { loadedBy } = require('./ycsb');
  if (!v.DATASET) return loadedBy(0, v.EVENTS, v.CLIENTS);
  const { countEvents } = require('../datasets/dataset-file');
  return loadedBy(0, countEvents(v.DATASET, benchDir), v.CLIENTS);
}

module.exports = {
  name: 'events',
  order: 4,
  documents: false,
  // The OnGres OLAP queries A-D over GitHub-archive events, and a join-like lookup (names: the contract
  // with QUERIES and the phase ids). olap-lookup's repository is a seeded event's: with a DATASET file
  // it has no parameters, so `all` leaves it out and naming it is refused before anything starts.
  querySet: {
    module: path.join(__dirname, '..', 'queries', 'github-events-queries'),
    names: ['olap-a', 'olap-b', 'olap-c', 'olap-d', 'olap-lookup'],
    generatedOnly: ['olap-lookup'],
  },
  sequenceKeys: 'event i\'s key is derived from (SEED, client, index) the same way on both databases, and sequence keys are made by the database',
  contextKeys: ['DATASET'],
  keys: {
    LOAD_RATE: shared.LOAD_RATE,
    EVENTS: { type: 'int', min: 1, default: '100000', when: generated, whenAbout: 'without DATASET', about: 'events generated (all clients together)' },
    REPOS: { type: 'int', min: 1, max: 10000000, default: '10000', when: generated, whenAbout: 'without DATASET', about: 'distinct repositories, Zipf-distributed' },
    ACTORS: { type: 'int', min: 1, max: 10000000, default: '20000', when: generated, whenAbout: 'without DATASET', about: 'distinct actors, Zipf-distributed' },
    SKEW: { type: 'number', min: 0, lt: 5, default: '1', when: generated, whenAbout: 'without DATASET', about: 'Zipf exponent of repositories and actors (0 = uniform)' },
    DATASET: {
      type: 'text', pattern: /^[^\s'"$`\\]+\.ndjson(\.gz)?$/, patternAbout: 'a path (relative to the bench folder, or absolute) ending in .ndjson or .ndjson.gz, without spaces or quotes',
      about: "a file of the user's own events, one JSON object per line, loaded instead of generated ones",
    },
    ...shared.QUERY_KEYS,
  },
  phases(v, database, benchDir) {
    const ops = eventsOfClient1(v, benchDir);
    return [phase(database, 'load', ops, v.LOAD_RATE, v.CLIENTS)];
  },
  // No RATE (it loads at LOAD_RATE): a small generated set rather than n events.
  checkSize: (v) => (v.DATASET ? [] : [`EVENTS=${CHECK_EVENTS}`]),
  create: ({ target, opts }) => require('./events').createEvents({ target, opts }),
  describe: (opts, out) => out,
  // Its load inserts the events; its query phases insert nothing.
  analysis: { insert_ops: ['insert'], ingest: false, transactions: false, count_expected: { basis: 'inserted' } },
};
