'use strict';
// These tests run the client's own test helpers and modules (client/test/helpers, client/src) against
// this database; Node looks for packages in node_modules folders above the requiring file, and
// client/node_modules is not above databases/, so they require from the client folder. Tests only:
// the binding's own code takes what it needs from the client's SDK (client/src/sdk.js).
const path = require('path');
const { createRequire } = require('module');

const CLIENT_DIR = path.resolve(__dirname, '../../../../client');
const clientRequire = createRequire(path.join(CLIENT_DIR, 'package.json'));

module.exports = { clientRequire, CLIENT_DIR };
