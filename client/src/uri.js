'use strict';
// Which database a URI points at, decided before connecting.
const { InputError } = require('./bench-schema');
const { uriSchemes } = require('./databases');

// The schemes come from the manifests (databases/<name>/database.json `uri_schemes`).
const SCHEMES = uriSchemes();
const ALLOWED = `a URI with host whose scheme is one of ${Object.keys(SCHEMES).map((s) => `${s}//`).join(', ')} `
  + `(the databases: ${[...new Set(Object.values(SCHEMES))].join(', ')})`;

// Never print a password in an error message or a log line.
function redact(uri) {
  return String(uri).replace(/\/\/([^:/@]*):[^@/]*@/, '//$1:***@');
}

function databaseOf(uri, where = '--uri') {
  let url;
  try {
    url = new URL(uri);
  } catch {
    throw new InputError(`${where}: malformed URI ${JSON.stringify(redact(uri))}; allowed: ${ALLOWED}`);
  }
  const db = SCHEMES[url.protocol];
  if (!db) throw new InputError(`${where}: unknown scheme ${JSON.stringify(url.protocol)} in ${JSON.stringify(redact(uri))}; allowed: ${ALLOWED}`);
  if (!url.hostname) throw new InputError(`${where}: no host in ${JSON.stringify(redact(uri))}; allowed: ${ALLOWED}`);
  return db;
}

module.exports = { databaseOf, redact };
