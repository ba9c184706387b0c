'use strict';
// A client's place among CLIENTS, for the workloads that deal records, hosts or events out by
// client number (record / host / event i goes to client i % CLIENTS + 1).
const { InputError } = require('../bench-schema');

// 0-based index of --client-id (1..CLIENTS); anything else is refused, naming the workload.
function clientIndex(opts) {
  const id = Number(opts.clientId);
  if (!Number.isSafeInteger(id) || id < 1 || id > opts.clients) {
    throw new InputError(`--client-id ${JSON.stringify(opts.clientId)}: WORKLOAD=${opts.workload} needs a client number; `
      + `allowed: an integer from 1 to CLIENTS (${opts.clients})`);
  }
  return id - 1;
}

module.exports = { clientIndex };
