'use strict';
// `count` runs after a phase, when a large collection may keep the server busy for a while: a
// server that answers nothing for longer than the load path's timeouts must still be counted.
const test = require('node:test');
const assert = require('node:assert/strict');
const { startSecantus } = require('../helpers/secantus-server');
const { runCli, startCli } = require('../helpers/run-cli');
const { sleep } = require('../helpers/processes');
const { SHAPE } = require('./shared-cases');

test.describe('count against a stalled server: SecantusDB (MongoDB stand-in)', () => {
  let server;
  test.before(async () => { server = await startSecantus(); });
  test.after(async () => { if (server) await server.cleanup(); });

  test('a server frozen for 12 s still gets counted', async () => {
    await runCli(['init', '--uri', server.uri, '--key', 'uuidv7', '--layout', 'heap']);
    const r = await runCli(['run', '--uri', server.uri, '--key', 'uuidv7', '--layout', 'heap', ...SHAPE,
      '--rate', '200', '--docs', '100']);
    assert.equal(r.code, 0, r.stderr);
    // A frozen server answers nothing (hello and heartbeats included) while the kernel still
    // accepts its connections: as a server busy with a long count looks to the driver.
    process.kill(server.pid, 'SIGSTOP');
    let count;
    try {
      count = startCli(['count', '--uri', server.uri], { timeoutMs: 60000 });
      await sleep(12000);
    } finally {
      process.kill(server.pid, 'SIGCONT');
    }
    const c = await count.done;
    assert.equal(c.code, 0, c.stderr);
    assert.equal(JSON.parse(c.stdout).documents, 100);
  });
});
