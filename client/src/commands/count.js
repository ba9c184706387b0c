'use strict';
// `count`: documents and storage bytes as one JSON object on stdout, read after a phase and outside
// its window. Sizes are read twice: as the phase left them, then after the target's flush (MongoDB
// {fsync: 1}, a WiredTiger checkpoint: collStats sizes are file sizes that miss pages still dirty in
// the cache; PostgreSQL CHECKPOINT, which changes no size but writes the dirty pages, hint bits of
// this count's own scan included, before the next window). The top-level sizes are the settled
// ones; `settle.before` keeps the first reading beside them.
const { connectTarget } = require('./connect');
const { storageOf } = require('../workloads/tsbs');

const SIZE_KEYS = ['table_bytes', 'index_bytes', 'total_bytes'];

async function readSettled(target, storage) {
  const before = await target.count(storage);
  const flushed = await target.flush();
  const after = await target.count(storage);
  const settle = {
    command: flushed.command,
    reason: flushed.reason,
    before: Object.fromEntries(SIZE_KEYS.map((k) => [k, before[k]])),
  };
  return { ...after, settle };
}

async function count(opts) {
  const { target, server } = await connectTarget(opts, { patient: true });
  try {
    // tsbs: events held by the ingest model's storage (bucket: summed over the buckets)
    const sizes = await readSettled(target, opts.workload === 'tsbs' ? storageOf(opts.model) : undefined);
    console.log(JSON.stringify({ database: opts.database, server, ...sizes }));
    return 0;
  } finally {
    await target.close();
  }
}

module.exports = { count, readSettled };
