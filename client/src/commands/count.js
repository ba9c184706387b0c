'use strict';
// `count`: documents and storage bytes as one JSON object on stdout, read after a phase and outside
// its window. Sizes are read twice: as the phase left them, then after the target's flush (MongoDB
// {fsync: 1}, a WiredTiger checkpoint: collStats sizes are file sizes that miss pages still dirty in
// the cache; PostgreSQL CHECKPOINT, which changes no size but writes the dirty pages, hint bits of
// this count's own scan included, before the next window). The top-level sizes are the settled
// ones; `settle.before` keeps the first reading beside them. WORKLOAD=booking: the nothing-lost
// check too (booking-check.js); a mismatch exits 1 with the offending rows shown. COMPRESS (tsbs):
// the database's native compression after the ingest (compressed() below).
const { connectTarget } = require('./connect');
const { workload } = require('../workloads/registry');
const { documentsDigest } = require('../document-digest');
const { InputError, KEYS } = require('../bench-schema');
const { checked } = require('../check-schema');
const { databaseWorkload } = require('../databases');

// count's one line of output (the lab's D.count.json), checked against client/src/count.schema.json
const print = (doc) => console.log(JSON.stringify(checked(doc, 'count', 'count output')));

const SIZE_KEYS = ['table_bytes', 'index_bytes', 'total_bytes'];

// read(): the workload's sizes (default: the jsonbench table/collection, or a tsbs model's).
async function readSettled(target, storage, read = () => target.count(storage)) {
  const before = await read();
  const flushed = await target.flush();
  const after = await read();
  const settle = {
    command: flushed.command,
    reason: flushed.reason,
    before: Object.fromEntries(SIZE_KEYS.map((k) => [k, before[k]])),
  };
  return { ...after, settle };
}

async function count(opts) {
  // refused before connecting: the digest's keys compare by KEY
  if (opts.digest === 'documents' && !opts.key) throw new InputError('count --digest documents needs --key (KEY): how the keys compare; allowed: ' + KEYS.join(', '));
  const w = workload(opts.workload || 'insert');
  // a workload the database does not offer (no workload file) is refused before connecting
  databaseWorkload(opts.database, w.name);
  // the read-back digests generated documents (DIGEST applies to those workloads only)
  const digestDocuments = opts.digest === 'documents' && w.documents;
  const { target, server } = await connectTarget(opts, { patient: true });
  try {
    // a workload with its own count (its file's count: booking's nothing-lost check, oltp's rows)
    if (w.count) return await w.count({ target, server, opts, readSettled, print });
    // tsbs: events held by the ingest model's storage (bucket: summed over the buckets)
    const storage = w.storage ? w.storage(opts) : undefined;
    let sizes = await readSettled(target, storage);
    // COMPRESS (tsbs): the database's native compression after the ingest window, sizes read again
    if (storage && opts.compress && opts.compress !== 'none') sizes = await compressed(target, storage, opts.compress, sizes);
    // after the sizes: the read-back changes none, and the settle has written the pages it reads
    const digest = digestDocuments ? { digest: await documentsDigest(target, opts.key) } : {};
    print({ database: opts.database, server, ...sizes, ...digest });
    return 0;
  } finally {
    await target.close();
  }
}

// COMPRESS (tsbs; bench-schema.js allows it only for a database whose manifest offers it): the
// database's native compression, applied here, after the ingest window and outside it (and again,
// a no-op on compressed chunks, after each query phase), then the sizes read again the same way.
// The top-level sizes are the compressed ones (what the queries read); `compress.uncompressed`
// keeps the settled sizes before it.
async function compressed(target, storage, setting, uncompressed) {
  if (typeof target.compress !== 'function') {
    throw new Error(`COMPRESS=${setting}: the ${target.database} binding has no native compression (its manifest must not offer it)`);
  }
  const done = await target.compress(storage, setting);
  const after = await readSettled(target, storage);
  return {
    ...after,
    compress: { ...done, uncompressed: Object.fromEntries(SIZE_KEYS.map((k) => [k, uncompressed[k]])) },
  };
}

module.exports = { count, readSettled };
