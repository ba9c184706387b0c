'use strict';
// `wait-ready`: waits until the database accepts the URI's authenticated connection, the way the
// lab's clients connect (same binding, same network path), then prints one JSON line. The lab runs
// it from a one-shot client container instead of a Docker healthcheck, so that nothing but the
// server runs inside a measured database container (docs/contracts.md §3).
const { createTarget } = require('../targets');
const { ConnectError } = require('./connect');
const { redact } = require('../uri');

const RETRY_EVERY_MS = 1000;

const sleep = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });

// One attempt: connect, prove the session is authenticated as the URI's user, disconnect.
async function attempt(opts) {
  const target = createTarget(opts.database, opts.uri);
  try {
    await target.connect();
    return await target.authenticatedIdentity();
  } finally {
    await target.close();
  }
}

// Retries attempt() every second until it resolves or READY_TIMEOUT_S has passed; prints its value
// (with the seconds and attempts it took) as one JSON line. name: the command, for messages.
async function retryUntilReady(name, opts, attemptOnce, { log = (line) => console.error(line) } = {}) {
  const started = Date.now();
  const deadline = started + opts.readyTimeoutS * 1000;
  let attempts = 0;
  let lastError = null;
  for (;;) {
    attempts += 1;
    try {
      const fields = await attemptOnce(opts);
      const seconds = (Date.now() - started) / 1000;
      console.log(JSON.stringify({ ...fields, seconds, attempts }));
      return 0;
    } catch (err) {
      if (!lastError || err.message !== lastError.message) log(`${name}: ${redact(opts.uri)} not ready yet: ${err.message}`);
      lastError = err;
    }
    if (Date.now() + RETRY_EVERY_MS >= deadline) break;
    await sleep(RETRY_EVERY_MS);
  }
  throw new ConnectError(`${name}: ${redact(opts.uri)} did not accept an authenticated connection within `
    + `${opts.readyTimeoutS}s (${attempts} attempts); last error: ${lastError.message}`);
}

function waitReady(opts, options) {
  return retryUntilReady('wait-ready', opts, async (o) => ({ database: o.database, ready: true, ...await attempt(o) }), options);
}

module.exports = { waitReady, retryUntilReady };
