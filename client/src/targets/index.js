'use strict';
const { PostgresTarget } = require('./postgres');
const { MongoTarget } = require('./mongodb');

// A database with its own folder brings its binding there (databases/<name>/client/<name>.js,
// exporting its target class); the two original ones live here.
function createTarget(database, uri, options = {}) {
  if (database === 'postgres') return new PostgresTarget(uri, options);
  if (database === 'mongodb') return new MongoTarget(uri, options);
  const mod = require(`../../../databases/${database}/client/${database}`);
  const Target = Object.values(mod).find((v) => typeof v === 'function' && /Target$/.test(v.name));
  return new Target(uri, options);
}

// How progress lines name the server: a stand-in is never passed off as
// the product it stands in for.
function displayName(server) {
  if (server.stand_in) return `${server.product} (${server.stands_in_for || 'MongoDB'} stand-in)`;
  return server.product;
}

module.exports = { createTarget, displayName };
