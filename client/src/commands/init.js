'use strict';
// `init`: drop and create the target table/collection for a key/layout.
const { connectTarget } = require('./connect');
const { displayName } = require('../targets');

async function init(opts) {
  const { target, server } = await connectTarget(opts);
  try {
    const created = await target.init(opts.key, opts.layout);
    const note = opts.database === 'postgres' && opts.layout === 'clustered'
      ? ' (PostgreSQL is always a heap; layout applies to MongoDB)' : '';
    console.log(`${displayName(server)} ${server.version}: ${created}${note}`);
    return 0;
  } finally {
    await target.close();
  }
}

module.exports = { init };
