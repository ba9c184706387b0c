'use strict';
// `count`: documents and storage bytes as one JSON object on stdout, read after a phase and outside
// its window. Sizes are read twice: as the phase left them, then after the target's flush (MongoDB
// {fsync: 1}, a WiredTiger checkpoint: collStats sizes are file sizes that miss pages still dirty in
// the cache; PostgreSQL CHECKPOINT, which changes no size but writes the dirty pages, hint bits of
// this count's own scan included, before the next window). The top-level sizes are the settled
// ones; `settle.before` keeps the first reading beside them. A workload with its own count (its
// .workload.js `count`: booking's nothing-lost check, where a mismatch exits 1 with the offending
// rows shown; oltp's rows; tsbs's events, with COMPRESS its native compression) reads through
// readSettled too.
const { connectTarget } = require('./connect');
const { workload } = require('../workloads/registry');
const { documentsDigest } = require('../document-digest');
const { InputError, KEYS } = require('../bench-schema');
const { checked } = require('../check-schema');
const { databaseWorkload } = require('../databases');

// count's one line of output (the lab's D.count.json), checked against client/src/count.schema.json
const print = (doc) => console.log(JSON.stringify(checked(doc, 'count', 'count output')));

const SIZE_KEYS = ['table_bytes', 'index_bytes', 'total_bytes'];

// read(): the workload's sizes (default: the binding's sizes step kind, the jsonbench table/collection);
// tables: the workload's own (its .workload.js `tables`), which the flush writes where it flushes
// by table (MySQL; undefined: jsonbench).
async function readSettled(target, read = () => target.count(), tables = undefined) {
  const before = await read();
  const flushed = await target.flush(tables);
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
    // a workload with its own count (booking's nothing-lost check, oltp's rows, tsbs's events), its
    // sizes settled with its own tables
    const tables = w.tables ? w.tables() : undefined;
    if (w.count) return await w.count({ target, server, opts, readSettled: (t, read) => readSettled(t, read, tables), print });
    const sizes = await readSettled(target);
    // after the sizes: the read-back changes none, and the settle has written the pages it reads
    const digest = digestDocuments ? { digest: await documentsDigest(target, opts.key) } : {};
    print({ database: opts.database, server, ...sizes, ...digest });
    return 0;
  } finally {
    await target.close();
  }
}

module.exports = { count, readSettled };
