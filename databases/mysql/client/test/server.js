'use strict';
// The real server the binding conformance test (client/test/integration/binding-conformance.test.js)
// runs this binding against: start() -> {uri, cleanup()}; unavailable() -> why it cannot run here,
// or false. A container of the official image or the stand-in (mysql-server.js), durability strict.
const { startMysql, unavailable } = require('./mysql-server');

module.exports = { start: () => startMysql(), unavailable };
