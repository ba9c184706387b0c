'use strict';
const { bindingOf, manifests } = require('../databases');

// Every database brings its binding in its own folder (databases/<name>/client/<name>.js,
// exporting its target class); the registry is the manifests (client/src/databases.js).
function createTarget(database, uri, options = {}) {
  const Target = bindingOf(database);
  return new Target(uri, options);
}

// The product a stand-in stands in for: what its server says (stands_in_for), else the label of
// the database whose binding reached it (its manifest's `label`).
function standsInFor(server, database) {
  if (server.stands_in_for) return server.stands_in_for;
  const m = manifests()[database];
  return m ? m.label : 'another product';
}

// How progress lines name the server: a stand-in is never passed off as
// the product it stands in for.
function displayName(server, database) {
  if (server.stand_in) return `${server.product} (${standsInFor(server, database)} stand-in)`;
  return server.product;
}

module.exports = { createTarget, displayName, standsInFor };
