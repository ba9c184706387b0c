'use strict';
// The bindings in databases/<name>/client/ run inside the client, but Node looks for packages in
// node_modules folders above the requiring file, and client/node_modules is not above databases/
// (in the repository as in the image: /app/client and /app/databases). So a binding requires its
// driver (pinned in client/package-lock.json) with clientRequire('pg'), resolved from client/.
const path = require('path');
const { createRequire } = require('module');

const clientRequire = createRequire(path.join(__dirname, '..', 'package.json'));

module.exports = { clientRequire };
