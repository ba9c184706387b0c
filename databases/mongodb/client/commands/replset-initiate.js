'use strict';
// `replset-initiate`: TOPOLOGY=replset, MongoDB's own client command (found by its folder:
// client/src/databases.js `commands`; run by databases/mongodb/lab.py `after_ready`). The lab
// starts mongod with `--replSet rs0` and initiates the one-member set from outside, through this
// command, before the first window (nothing but the server runs in the measured container), then
// waits until the node is the writable primary.
// The member's host is the compose service (the manifest's `service`), the address the lab's clients
// dial; the lab's URI carries directConnection=true (an uninitiated member is no primary a driver
// could select).
// A server that has no replSetInitiate (CommandNotFound) but already answers hello as the primary
// of a set is accepted as it is, and the output says so: SecantusDB, the stand-in, advertises a
// fixed single-node set 'secantus' without --standalone. Real mongod has the command.
// Prints one JSON line: {set, initiated, seconds, note?}. Exit 2 when the set is not ready in time.
const { clientRequire, ConnectError, redact } = require('../../../../client/src/sdk');
const { service } = require('../../database.json');

const SET = 'rs0';
const MEMBER = `${service}:27017`; // mongod's port on the lab network
const ALREADY_INITIALIZED = 23;
const COMMAND_NOT_FOUND = 59;
const POLL_MS = 500;

const sleep = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });

async function initiate(admin) {
  try {
    await admin.command({ replSetInitiate: { _id: SET, members: [{ _id: 0, host: MEMBER }] } });
    return { initiated: true };
  } catch (err) {
    if (err.code === ALREADY_INITIALIZED) return { initiated: false, note: `already initiated: ${err.message}` };
    if (err.code !== COMMAND_NOT_FOUND) throw err;
    const hello = await admin.command({ hello: 1 });
    if (!hello.setName) throw new Error(`the server has no replSetInitiate (${err.message}) and reports no replica set in hello`);
    return { initiated: false, note: `the server has no replSetInitiate (${err.message}); it reports itself as a member of set '${hello.setName}' already` };
  }
}

async function replsetInitiate(opts) {
  // required here, not at load: the client's registry reads this file's name and keys for every command
  const { MongoClient } = clientRequire('mongodb');
  const started = Date.now();
  const client = new MongoClient(opts.uri, { serverSelectionTimeoutMS: opts.readyTimeoutS * 1000 });
  try {
    await client.connect();
    const admin = client.db('admin');
    const outcome = await initiate(admin);
    const deadline = started + opts.readyTimeoutS * 1000;
    for (;;) {
      const hello = await admin.command({ hello: 1 });
      if (hello.isWritablePrimary && hello.setName) {
        console.log(JSON.stringify({ set: hello.setName, ...outcome, seconds: (Date.now() - started) / 1000 }));
        return 0;
      }
      if (Date.now() + POLL_MS >= deadline) {
        throw new Error(`not the writable primary of a replica set within ${opts.readyTimeoutS}s (hello: setName ${hello.setName}, isWritablePrimary ${hello.isWritablePrimary})`);
      }
      await sleep(POLL_MS);
    }
  } catch (err) {
    throw new ConnectError(`replset-initiate on ${redact(opts.uri)}: ${err.message}`);
  } finally {
    await client.close();
  }
}

// What the client's registry reads (client/src/databases.js `commands`): the command's name, the
// keys it takes (client/src/options.js) and its handler.
module.exports = {
  command: 'replset-initiate',
  // TOPOLOGY=replset: replSetInitiate of the one-member set rs0, then wait until it is primary.
  keys: ['URI', 'READY_TIMEOUT_S'],
  run: replsetInitiate,
};
