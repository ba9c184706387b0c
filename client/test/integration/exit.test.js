'use strict';
// A finished client must exit even when a scraper still holds a connection to its /metrics
// endpoint (Prometheus keeps its connection alive): a client that lingers stalls the lab's phase.
const test = require('node:test');
const assert = require('node:assert/strict');
const net = require('net');
const { startPostgres } = require('../helpers/postgres-server');
const { runCli, startCli } = require('../helpers/run-cli');
const { freePort, sleep } = require('../helpers/processes');
const { SHAPE } = require('./shared-cases');

test.describe('client exit', () => {
  let pg;
  test.before(async () => { pg = await startPostgres(); });
  test.after(async () => { if (pg) await pg.cleanup(); });

  test('exits after the run although a scrape connection is still open', async () => {
    await runCli(['init', '--uri', pg.uri, '--key', 'uuidv7', '--layout', 'heap']);
    const port = await freePort();
    const run = startCli(['run', '--uri', pg.uri, '--key', 'uuidv7', '--layout', 'heap', ...SHAPE,
      '--rate', '100', '--docs', '50', '--metrics-port', String(port), '--metrics-linger-s', '1'], { timeoutMs: 30000 });
    let socket;
    for (let i = 0; i < 50 && !socket; i++) {
      await sleep(100);
      socket = await new Promise((resolve) => {
        const s = net.connect(port, '127.0.0.1', () => resolve(s));
        s.on('error', () => resolve(null));
      });
    }
    assert.ok(socket, 'metrics endpoint never listened');
    // An unfinished request: the server cannot consider this connection idle.
    socket.write('GET /metrics HTTP/1.1\r\nHost: x\r\n');
    socket.on('error', () => {});
    try {
      const r = await run.done;
      assert.equal(r.timedOut, false, 'client still running 30 s later');
      assert.equal(r.code, 0, r.stderr);
    } finally {
      socket.destroy();
    }
  });
});
