'use strict';
// Which database a URI points at, decided before connecting.
const { InputError } = require('./bench-schema');

const SCHEMES = { 'mongodb:': 'mongodb', 'postgres:': 'postgres', 'postgresql:': 'postgres', 'mysql:': 'mysql', 'timescaledb:': 'timescaledb' };
const ALLOWED = 'a mongodb://host[:port][/db] URI, a postgres:// (postgresql://) URI, a mysql://user:password@host[:port]/db URI or a timescaledb://user:password@host[:port]/db URI (PostgreSQL wire protocol)';

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
