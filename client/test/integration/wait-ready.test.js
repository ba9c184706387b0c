'use strict';
// `wait-ready` against real servers: it passes only on an authenticated session of the URI's user,
// waits through a server that is not up yet, and gives up with a message naming what failed.
const test = require('node:test');
const assert = require('node:assert/strict');
const { startPostgres } = require('../helpers/postgres-server');
const { startSecantus } = require('../helpers/secantus-server');
const { runCli, startCli } = require('../helpers/run-cli');
const { sleep } = require('../helpers/processes');

test.describe('wait-ready on PostgreSQL', () => {
  let pg;
  test.before(async () => { pg = await startPostgres(); });
  test.after(async () => { if (pg) await pg.cleanup(); });

  test('a running server: one JSON line naming the session user and database', async () => {
    const r = await runCli(['wait-ready', '--uri', pg.uri, '--ready-timeout-s', '20']);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout.trim());
    assert.equal(out.ready, true);
    assert.equal(out.database, 'postgres');
    assert.equal(out.user, 'postgres');
    assert.equal(out.attempts, 1);
  });

  test('a server that starts later: retries, then passes', async () => {
    await pg.stop();
    const cli = startCli(['wait-ready', '--uri', pg.uri, '--ready-timeout-s', '60'], { timeoutMs: 90000 });
    await sleep(2500);
    await pg.restart();
    const r = await cli.done;
    assert.equal(r.code, 0, r.stderr);
    assert.ok(JSON.parse(r.stdout.trim()).attempts >= 2, r.stdout);
    assert.match(r.stderr, /not ready yet: .*ECONNREFUSED/);
  });

  test('a session it cannot open (no such database): exit 2 after the timeout, with the last error', async () => {
    const uri = pg.uri.replace(/\/postgres$/, '/nosuchdb');
    const r = await runCli(['wait-ready', '--uri', uri, '--ready-timeout-s', '2']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /did not accept an authenticated connection within 2s \(\d+ attempts\); last error: .*nosuchdb/);
    assert.ok(r.seconds < 10, `took ${r.seconds}s`);
  });
});

test.describe('wait-ready on a MongoDB-protocol server without authentication', () => {
  let server;
  test.before(async () => { server = await startSecantus(); });
  test.after(async () => { if (server) await server.cleanup(); });

  // As the MongoDB image's temporary start-up mongod (no --auth): it answers, but never with an
  // authenticated session, so the readiness check must not pass on it.
  test('answers ping but authenticates nobody: not ready, exit 2 naming why', async () => {
    const r = await runCli(['wait-ready', '--uri', server.uri, '--ready-timeout-s', '3']);
    assert.equal(r.code, 2, r.stdout);
    assert.match(r.stderr, /not authenticated \(connectionStatus\.authInfo\.authenticatedUsers is empty\)/);
  });
});
