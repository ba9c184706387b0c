'use strict';
// This folder's code runs inside the client (client/src/targets/index.js loads it), but Node looks
// for packages in node_modules folders above the requiring file, and client/node_modules is not
// above databases/. So the client's own dependencies (mysql2, pinned in client/package-lock.json)
// and modules (keys.js, bench-schema.js) are required from the client folder.
const path = require('path');
const { createRequire } = require('module');

const CLIENT_DIR = path.resolve(__dirname, '../../../client');
const clientRequire = createRequire(path.join(CLIENT_DIR, 'package.json'));

module.exports = { clientRequire, CLIENT_DIR };
