'use strict';
// `init`: drop and create the target table/collection for a key/layout (the binding's init step
// kind), or a workload's own tables with their data and indexes (its .workload.js initData: the
// database's workload file's init), then the indexes the workload's query set declares (the same
// fields on both databases; each side's DDL printed).
const { connectTarget } = require('./connect');
const { displayName } = require('../targets');
const { workload } = require('../workloads/registry');
const { hasQuerySet, querySet, requireForms } = require('../queries');
const { databaseWorkload } = require('../databases');

async function init(opts) {
  // A workload the database does not offer (no workload file), or a query set without its forms, is
  // refused before anything is created.
  databaseWorkload(opts.database, opts.workload || 'insert');
  if (opts.workload && hasQuerySet(opts.workload)) requireForms(opts.workload, opts.database);
  const { target, server } = await connectTarget(opts);
  try {
    const w = workload(opts.workload || 'insert');
    if (w.initData) {
      // a workload's own tables and data (booking, oltp), or storage (tsbs's ingest model)
      await initModel(w.initData(target, opts, server), server, opts.database);
    } else {
      // the shape a relational form's columns follow (FIELDS x FIELD_BYTES; the other forms take none)
      const created = await target.init(opts.key, opts.layout, { fields: opts.fields, fieldBytes: opts.fieldBytes });
      // what the binding says of LAYOUT where it does not apply it (its layoutNote), else nothing
      const note = target.layoutNote ? target.layoutNote(opts.layout) : null;
      console.log(`${displayName(server, opts.database)} ${server.version}: ${created}${note ? ` (${note})` : ''}`);
    }
    if (opts.workload && hasQuerySet(opts.workload)) {
      const set = querySet(opts.workload);
      // One line per index: analysis reads them back into results.json `indexes`.
      for (const stmt of await target.createIndexes(set.indexes(set.dataOf(opts)))) console.log(`index: ${stmt}`);
    }
    return 0;
  } finally {
    await target.close();
  }
}

// A workload's own tables/collections, data (booking: aircraft and FLIGHTS flights; oltp:
// TABLE_ROWS rows; tsbs: none, its model's storage) and indexes (tsbs: the model's own, MODEL=native's
// the one MongoDB makes with a time-series collection and its equivalent on PostgreSQL); one
// `index:` line per index, as for the query sets.
async function initModel(made, server, database) {
  const { created, indexes } = await made;
  console.log(`${displayName(server, database)} ${server.version}: ${created}`);
  for (const stmt of indexes) console.log(`index: ${stmt}`);
  return 0;
}

module.exports = { init };
