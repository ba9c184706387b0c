'use strict';
// `count`: documents and storage bytes as one JSON object on stdout.
const { connectTarget } = require('./connect');
const { storageOf } = require('../workloads/tsbs');

async function count(opts) {
  const { target, server } = await connectTarget(opts, { patient: true });
  try {
    // tsbs: events held by the ingest model's storage (bucket: summed over the buckets)
    const sizes = await target.count(opts.workload === 'tsbs' ? storageOf(opts.model) : undefined);
    console.log(JSON.stringify({ database: opts.database, server, ...sizes }));
    return 0;
  } finally {
    await target.close();
  }
}

module.exports = { count };
