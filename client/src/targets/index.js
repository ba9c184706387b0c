'use strict';
const { bindingOf } = require('../databases');

// Every database brings its binding in its own folder (databases/<name>/client/<name>.js,
// exporting its target class); the registry is the manifests (client/src/databases.js).
function createTarget(database, uri, options = {}) {
  const Target = bindingOf(database);
  return new Target(uri, options);
}

// How progress lines name the server: a stand-in is never passed off as
// the product it stands in for.
function displayName(server) {
  if (server.stand_in) return `${server.product} (${server.stands_in_for || 'MongoDB'} stand-in)`;
  return server.product;
}

module.exports = { createTarget, displayName };
