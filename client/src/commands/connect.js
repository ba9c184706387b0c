'use strict';
// Connect to the database named by --uri, or fail with exit code 2.
const { createTarget } = require('../targets');
const { redact } = require('../uri');

class ConnectError extends Error {}

// A query phase's sessions (run with STAGE=query, explain) carry WORK_MEM.
async function connectTarget(opts, targetOptions = {}) {
  const workMem = opts.stage === 'query' || opts.query ? opts.workMem : undefined;
  // form: the storage form of the generated documents (forms.js; undefined: the binding's default)
  const target = createTarget(opts.database, opts.uri, { ...targetOptions, workMem, form: opts.form });
  try {
    await target.connect();
    const server = await target.serverInfo();
    return { target, server };
  } catch (err) {
    await target.close();
    throw new ConnectError(`cannot connect to ${redact(opts.uri)}: ${err.message}`);
  }
}

module.exports = { connectTarget, ConnectError };
