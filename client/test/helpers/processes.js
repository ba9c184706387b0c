'use strict';
// Small process helpers shared by the test servers.
const net = require('net');
const fs = require('fs');

// A free TCP port on 127.0.0.1 (asked from the kernel, then released).
function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Resolves when `child` exits, or after `ms` (then false).
function waitExit(child, ms) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    child.once('exit', () => { clearTimeout(timer); resolve(true); });
  });
}

// Stop by pid: `signal` first, SIGKILL if it has not exited in `ms`.
async function stopChild(child, signal = 'SIGTERM', ms = 15000) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  try { process.kill(child.pid, signal); } catch { return; }
  if (!(await waitExit(child, ms))) {
    try { process.kill(child.pid, 'SIGKILL'); } catch { /* already gone */ }
    await waitExit(child, 5000);
  }
}

// Poll `probe` (async, throws until ready) for up to `ms`; an error marked `notReadyEver` (the server
// exited: it will not become ready) ends the wait at once. Not `fatal`: mysql2 marks every lost
// connection so, and a server still starting drops connections.
async function waitUntil(probe, ms, what) {
  const deadline = Date.now() + ms;
  let last;
  while (Date.now() < deadline) {
    try { return await probe(); } catch (err) {
      if (err.notReadyEver) throw new Error(`${what} not ready: ${err.message}`);
      last = err;
    }
    await sleep(200);
  }
  throw new Error(`${what} not ready after ${ms} ms: ${last && last.message}`);
}

// A started server, once `ready()` resolves; if it never does, whatever
// was started is stopped and removed before the error propagates.
async function readyOrCleanedUp(server, ready) {
  try {
    await ready();
  } catch (err) {
    await server.cleanup();
    throw err;
  }
  return server;
}

function tail(file, bytes = 2000) {
  try {
    const s = fs.readFileSync(file, 'utf8');
    return s.slice(-bytes);
  } catch { return ''; }
}

module.exports = { freePort, sleep, waitExit, stopChild, waitUntil, readyOrCleanedUp, tail };
