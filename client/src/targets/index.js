'use strict';
const { PostgresTarget } = require('./postgres');
const { MongoTarget } = require('./mongodb');

function createTarget(database, uri, options = {}) {
  return database === 'postgres' ? new PostgresTarget(uri, options) : new MongoTarget(uri, options);
}

// How progress lines name the server: a stand-in is never passed off as
// the product it stands in for.
function displayName(server) {
  if (server.stand_in) return `${server.product} (MongoDB stand-in)`;
  return server.product;
}

module.exports = { createTarget, displayName };
