'use strict';
// The real server the binding conformance test (client/test/integration/binding-conformance.test.js)
// runs this binding against: start() -> {uri, cleanup()}; unavailable() -> why it cannot run here,
// or false. A container of the image the lab runs (client/test/helpers/postgres-server.js).
const path = require('path');

const CLIENT_DIR = path.resolve(__dirname, '../../../../client');
// eslint-disable-next-line import/no-dynamic-require
const { startPostgres, postgresImage } = require(path.join(CLIENT_DIR, 'test/helpers/postgres-server'));

// Under CI=true never a reason: the test runs and fails, naming what is missing.
function unavailable() {
  if (/^(true|1|yes)$/i.test(process.env.CI || '')) return false;
  try {
    postgresImage();
    return false;
  } catch (err) {
    return err.message;
  }
}

module.exports = { start: () => startPostgres(), unavailable };
