'use strict';
// The query sets a workload declares, by WORKLOAD (docs/contracts.md §2, "Query sets").
// Each set module exports `queries`: { name: definition } in the order the phases run;
// a definition gives both databases' forms, its parameters and how its answer is digested.
// The names are the contract with bench.env's QUERIES key and the lab's phase ids
// (<db>-q-<name>), so they never change once shipped.
const NAMES = {
  // TSBS devops query types (client/src/datasets/tsbs-query-params.js gives their parameters).
  tsbs: ['single-groupby-1-1-1', 'single-groupby-1-1-12', 'single-groupby-1-8-1', 'single-groupby-5-1-1',
    'single-groupby-5-1-12', 'single-groupby-5-8-1', 'double-groupby-1', 'double-groupby-5', 'double-groupby-all',
    'high-cpu-1', 'high-cpu-all', 'groupby-orderby-limit', 'lastpoint'],
  // The OnGres OLAP queries A-D over GitHub-archive events, and a join-like lookup.
  events: ['olap-a', 'olap-b', 'olap-c', 'olap-d', 'olap-lookup'],
};

// The module of each set (loaded on demand: a workload's set is needed only by its own phases).
const MODULES = {
  tsbs: './tsbs-devops-queries',
  events: './github-events-queries',
};

// Queries whose parameters are drawn from the generated data set (olap-lookup's repository is a
// seeded event's): with a DATASET file they have none, so `all` leaves them out and naming one is
// refused before anything starts.
const GENERATED_ONLY = { events: ['olap-lookup'] };

function queryNames(workload) {
  const names = NAMES[workload];
  if (!names) throw new Error(`no query set for WORKLOAD=${workload}`);
  return [...names];
}

const generatedOnly = (workload) => [...(GENERATED_ONLY[workload] || [])];

// The set module of a workload: { dataOf, indexes, queries }. Its `queries` must name exactly
// queryNames(workload), in that order (the names are phase ids).
function querySet(workload) {
  if (!MODULES[workload]) throw new Error(`no query set for WORKLOAD=${workload}`);
  // eslint-disable-next-line global-require, import/no-dynamic-require
  const set = require(MODULES[workload]);
  const names = Object.keys(set.queries);
  if (names.join(' ') !== NAMES[workload].join(' ')) {
    throw new Error(`query set of WORKLOAD=${workload} names ${names.join(', ')}; expected ${NAMES[workload].join(', ')}`);
  }
  return set;
}

// Whether a workload has a query set module on disk (init creates its indexes only then).
function hasQuerySet(workload) {
  if (!MODULES[workload]) return false;
  try {
    require.resolve(MODULES[workload]);
    return true;
  } catch (err) {
    return false;
  }
}

// A query set runs on a database only if every one of its queries has that database's form (a
// function named after the database); otherwise it is refused before anything starts, naming the set.
function requireForms(workload, database) {
  const set = withFolderForms(querySet(workload), workload, database);
  const missing = Object.keys(set.queries).filter((name) => typeof set.queries[name][database] !== 'function');
  if (missing.length === 0) return set;
  const { InputError } = require('../bench-schema');
  const have = ['mongodb', 'postgres', database].filter((db) => Object.values(set.queries).every((q) => typeof q[db] === 'function'));
  throw new InputError(`the query set of WORKLOAD=${workload} (${MODULES[workload].slice(2)}.js) has no ${database} forms `
    + `(${missing.length === names(set).length ? 'none of its queries' : missing.join(', ')}); allowed databases for it: ${have.join(', ')}`);
}

const names = (set) => Object.keys(set.queries);

// A database with its own folder brings its forms of a set there (databases/<db>/client/<set module>.js,
// exporting `forms`: {name: form}); they join the set's definitions under the database's name.
function withFolderForms(set, workload, database) {
  if (!MODULES[workload] || !/^[a-z][a-z0-9]*$/.test(String(database))) return set;
  let forms;
  try {
    ({ forms } = require(`../../../databases/${database}/client/${MODULES[workload].slice(2)}`));
  } catch (err) {
    if (err.code === 'MODULE_NOT_FOUND' && String(err.message).split('\n')[0].includes(`databases/${database}/client/`)) return set;
    throw err;
  }
  const queries = Object.fromEntries(Object.entries(set.queries).map(([n, def]) => [n, forms[n] ? { ...def, [database]: forms[n] } : def]));
  return { ...set, queries };
}

module.exports = { generatedOnly, queryNames, querySet, hasQuerySet, requireForms };
