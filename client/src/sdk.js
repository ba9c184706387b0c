'use strict';
// The client SDK: everything a database's code in databases/<name>/client/ (its binding, its
// workload files, query forms and commands) takes from the client, in one module, so a binding
// depends on this surface and not on where the client keeps things. A test
// (client/test/unit/binding-shape.test.js) refuses any other path into client/src from there.
// Each name is read when first used (getters): a binding loads while the client's commands are
// still loading, and requiring them all here at once would make cycles.
const path = require('path');
const { createRequire } = require('module');

const lazy = (file, name) => () => {
  // eslint-disable-next-line global-require, import/no-dynamic-require
  const m = require(file);
  return name ? m[name] : m;
};

const SURFACE = {
  // Errors: bad input (exit 2, before anything starts) and a server that never answered.
  InputError: lazy('./input-error', 'InputError'),
  ConnectError: lazy('./commands/connect', 'ConnectError'),
  // A URI without its password, for messages.
  redact: lazy('./uri', 'redact'),
  // Retrying a connection until the server is ready (wait-ready's policy).
  retryUntilReady: lazy('./commands/wait-ready', 'retryUntilReady'),
  // A 16-byte key as uuid text.
  uuidString: lazy('./keys', 'uuidString'),
  // DIGEST=documents: every document, paged by key (readBack's form).
  keysetReadBack: lazy('./document-digest', 'keysetReadBack'),
  // The transaction step kind's retries and counts (one policy for every database).
  withRetries: lazy('./targets/txn-retry', 'withRetries'),
  // The TSBS devops data and query set, which a database's tsbs query forms write for it.
  tsbsQueryTypes: lazy('./datasets/tsbs-query-params', 'QUERY_TYPES'),
  tsbsFieldNames: lazy('./datasets/tsbs-devops', 'FIELD_NAMES'),
  tsbsQuerySet: lazy('./queries/tsbs-devops-queries'),
};

// The client's own dependencies (drivers pinned in client/package-lock.json): Node looks for
// packages in node_modules folders above the requiring file, and client/node_modules is not above
// databases/ (in the repository as in the image: /app/client and /app/databases).
const clientRequire = createRequire(path.join(__dirname, '..', 'package.json'));

// A workload's data module (client/src/workloads/<name>-data.js: its tables, rows, indexes), which a
// database's workload file stores in its own form; by name, so a new workload adds no name here.
function workloadData(name) {
  if (!/^[a-z][a-z0-9-]*$/.test(name)) throw new Error(`workloadData(${JSON.stringify(name)}): allowed: a workload's name`);
  // eslint-disable-next-line global-require, import/no-dynamic-require
  return require(`./workloads/${name}-data`);
}

const sdk = { clientRequire, workloadData };
for (const [name, get] of Object.entries(SURFACE)) Object.defineProperty(sdk, name, { get, enumerable: true });

module.exports = sdk;
