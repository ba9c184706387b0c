'use strict';
// Node resolves packages from node_modules folders above the requiring file, and client/node_modules
// is not above databases/: pg and the client's own modules (the PostgreSQL binding this one extends,
// the query set, the digest) are required through the client folder.
const path = require('path');
const { createRequire } = require('module');

const CLIENT_DIR = path.resolve(__dirname, '../../../client');
const fromClient = createRequire(path.join(CLIENT_DIR, 'package.json'));

module.exports = { fromClient, CLIENT_DIR };
