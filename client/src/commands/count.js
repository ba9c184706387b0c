'use strict';
// `count`: documents and storage bytes as one JSON object on stdout.
const { connectTarget } = require('./connect');

async function count(opts) {
  const { target, server } = await connectTarget(opts, { patient: true });
  try {
    const sizes = await target.count();
    console.log(JSON.stringify({ database: opts.database, server, ...sizes }));
    return 0;
  } finally {
    await target.close();
  }
}

module.exports = { count };
