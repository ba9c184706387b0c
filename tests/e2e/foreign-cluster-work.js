'use strict';
// Work from outside the lab on another database of the same PostgreSQL cluster: after DELAY s, one
// session on database `postgres` (not the lab's) runs generate_series(1, N) and a CHECKPOINT, then
// ends. Prints `done generate_series <ms> checkpoint <ms>` or `failed: ...`.
// Usage: node foreign-cluster-work.js URI DELAY_S N
const path = require('path');

const { Client } = require(path.resolve(__dirname, '../../client/node_modules/pg'));
const [uri, delay, n] = process.argv.slice(2);

(async () => {
  await new Promise((r) => setTimeout(r, Number(delay) * 1000));
  const c = new Client({ connectionString: uri, connectionTimeoutMillis: 5000, application_name: 'foreign' });
  await c.connect();
  try {
    const t0 = Date.now();
    await c.query('select count(*) from generate_series(1, $1::bigint)', [n]);
    const t1 = Date.now();
    await c.query('checkpoint');
    console.log(`done generate_series ${t1 - t0} checkpoint ${Date.now() - t1}`);
  } finally { await c.end(); }
})().catch((err) => { console.log(`failed: ${err.message}`); process.exit(1); });
