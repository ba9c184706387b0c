'use strict';
// The real server the binding conformance test (client/test/integration/binding-conformance.test.js)
// runs this binding against: start() -> {uri, cleanup()}; unavailable() -> why it cannot run here,
// or false. A container of the stand-in or the official image (timescaledb-container.js).
const { startTimescaledb, imageAbsent } = require('./timescaledb-container');

module.exports = { start: () => startTimescaledb(), unavailable: () => imageAbsent() || false };
