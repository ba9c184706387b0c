'use strict';
// The query sets a workload declares, by WORKLOAD (docs/contracts.md §2, "Query sets").
// Each set module exports `queries`: { name: definition } in the order the phases run;
// a definition gives its parameters and how its answer is digested. Each database brings its
// forms of a set in its own folder: databases/<name>/client/queries/<WORKLOAD>.js exporting
// `forms`: { query name: form } and optionally `paths`: { query name: { column: path } } (where its
// answers hold a digest column other than under its name, e.g. a group key in _id); querySet joins
// the forms to the definitions under the database's name, and the paths into the digest's
// `paths: { database: { column: path } }` (read by workloads/query.js digestOptionsFor).
const fs = require('fs');
const path = require('path');
const { manifests, ROOT } = require('../databases');

// A workload's query set is declared by its file (client/src/workloads/<name>.workload.js
// `querySet`: module, names, generatedOnly); undefined for a workload without one.
function declared(workload) {
  const { names: workloads, workload: declaration } = require('../workloads/registry');
  return workloads().includes(workload) ? declaration(workload).querySet : undefined;
}

function queryNames(workload) {
  const set = declared(workload);
  if (!set) throw new Error(`no query set for WORKLOAD=${workload}`);
  return [...set.names];
}

const generatedOnly = (workload) => [...((declared(workload) || {}).generatedOnly || [])];

// The set module of a workload: { dataOf, indexes, queries }. Its `queries` must name exactly
// queryNames(workload), in that order (the names are phase ids).
function querySet(workload) {
  const declaredSet = declared(workload);
  if (!declaredSet) throw new Error(`no query set for WORKLOAD=${workload}`);
  // eslint-disable-next-line global-require, import/no-dynamic-require
  const set = require(declaredSet.module);
  const names = Object.keys(set.queries);
  if (names.join(' ') !== declaredSet.names.join(' ')) {
    throw new Error(`query set of WORKLOAD=${workload} names ${names.join(', ')}; expected ${declaredSet.names.join(', ')}`);
  }
  return withForms(set, workload);
}

// The set with every database's forms of it (databases/<name>/client/queries/<workload>.js).
// root: the databases' folder (a test's own).
function withForms(set, workload, root = ROOT) {
  const queries = Object.fromEntries(Object.entries(set.queries).map(([n, def]) => [n, { ...def }]));
  for (const database of Object.keys(manifests(root))) {
    const file = path.join(root, database, 'client', 'queries', `${workload}.js`);
    if (!fs.existsSync(file)) continue;
    // eslint-disable-next-line global-require, import/no-dynamic-require
    const { forms, paths = {} } = require(file);
    for (const name of Object.keys(forms)) {
      if (!queries[name]) throw new Error(`${file}: form of ${name}, which the set of WORKLOAD=${workload} does not name (allowed: ${names(set).join(', ')})`);
      queries[name][database] = forms[name];
    }
    for (const [name, own] of Object.entries(paths)) {
      if (!forms[name]) throw new Error(`${file}: paths of ${name}, for which it has no form (allowed: ${Object.keys(forms).join(', ')})`);
      const { digest } = queries[name];
      const columns = Array.isArray(digest.columns) ? digest.columns : Object.keys(digest.columns || {});
      const unknown = Object.keys(own).filter((c) => !columns.includes(c));
      if (unknown.length) throw new Error(`${file}: paths of ${name} name ${unknown.join(', ')}, not a column of its digest (allowed: ${columns.join(', ')})`);
      queries[name].digest = { ...digest, paths: { ...digest.paths, [database]: own } };
    }
  }
  return { ...set, queries };
}

// Whether a workload has a query set module on disk (init creates its indexes only then).
function hasQuerySet(workload) {
  const set = declared(workload);
  if (!set) return false;
  try {
    require.resolve(set.module);
    return true;
  } catch (err) {
    return false;
  }
}

// A query set runs on a database only if every one of its queries has that database's form (a
// function named after the database); otherwise it is refused before anything starts, naming the set.
function requireForms(workload, database) {
  const set = querySet(workload);
  const missing = Object.keys(set.queries).filter((name) => typeof set.queries[name][database] !== 'function');
  if (missing.length === 0) return set;
  const { InputError } = require('../bench-schema');
  const have = Object.keys(manifests()).filter((db) => Object.values(set.queries).every((q) => typeof q[db] === 'function'));
  throw new InputError(`the query set of WORKLOAD=${workload} (${path.basename(declared(workload).module)}.js) has no ${database} forms `
    + `(${missing.length === names(set).length ? 'none of its queries' : missing.join(', ')}); allowed databases for it: ${have.join(', ')}`);
}

const names = (set) => Object.keys(set.queries);

module.exports = {
  generatedOnly, queryNames, querySet, hasQuerySet, requireForms, withForms,
};
