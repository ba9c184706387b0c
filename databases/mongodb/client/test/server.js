'use strict';
// The real server the binding conformance test (client/test/integration/binding-conformance.test.js)
// runs this binding against: start() -> {uri, cleanup()}; unavailable() -> why it cannot run here,
// or false. The MongoDB stand-in SecantusDB as a single-node replica set (transactions need one),
// client/test/helpers/secantus-server.js. It runs without users (authenticates: false): the
// binding's authenticatedIdentity says the session is not authenticated, as the lab's readiness
// check needs it to.
const path = require('path');

const CLIENT_DIR = path.resolve(__dirname, '../../../../client');
// eslint-disable-next-line import/no-dynamic-require
const { startSecantus } = require(path.join(CLIENT_DIR, 'test/helpers/secantus-server'));

module.exports = { start: () => startSecantus({ replset: true }), unavailable: () => false, authenticates: false };
