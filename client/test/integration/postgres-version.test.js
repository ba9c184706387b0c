'use strict';
// The client's PostgreSQL tests run against the server the lab measures: the version of the image
// databases/postgres/compose.yaml pins (its tag) when that image is present, else the stand-in's
// pinned minor (databases/postgres/standin/Dockerfile ARG POSTGRES_VERSION), never whatever
// version the host's own packages hold.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const { startPostgres } = require('../helpers/postgres-server');

const ROOT = path.resolve(__dirname, '../../..');

function expectedVersion(image) {
  const official = /^ {4}image: *postgres:(\S+)$/m.exec(fs.readFileSync(path.join(ROOT, 'databases/postgres/compose.yaml'), 'utf8'));
  if (official && image === `postgres:${official[1]}`) return official[1];
  return /^ARG POSTGRES_VERSION=(\S+)$/m.exec(fs.readFileSync(path.join(ROOT, 'databases/postgres/standin/Dockerfile'), 'utf8'))[1];
}

test('the test server is the PostgreSQL version the lab runs', async () => {
  const pg = await startPostgres();
  try {
    const { rows: [r] } = await pg.query('show server_version');
    const want = expectedVersion(pg.image);
    assert.ok(r.server_version === want || r.server_version.startsWith(`${want} `), `${r.server_version} from ${pg.image}, want ${want}`);
  } finally {
    await pg.cleanup();
  }
});
