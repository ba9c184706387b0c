'use strict';
// `init`: drop and create the target table/collection for a key/layout.
const { connectTarget } = require('./connect');
const { displayName } = require('../targets');
const { storageOf } = require('../workloads/tsbs');

async function init(opts) {
  const { target, server } = await connectTarget(opts);
  try {
    // tsbs: the ingest model's table/collection (a model the server lacks is refused, exit 2)
    const storage = opts.workload === 'tsbs' ? storageOf(opts.model) : undefined;
    const created = await target.init(opts.key, opts.layout, storage, server);
    const note = opts.database === 'postgres' && opts.layout === 'clustered'
      ? ' (PostgreSQL is always a heap; layout applies to MongoDB)' : '';
    console.log(`${displayName(server)} ${server.version}: ${created}${note}`);
    return 0;
  } finally {
    await target.close();
  }
}

module.exports = { init };
