'use strict';
// Work from outside the lab, as a monitoring job would do it: every 1-3 s a new connection through
// the published port reads the whole benchmark table. Bounded: stops after SECONDS or on SIGTERM.
// Prints one line per query, then `queries N rows M` on exit.
// Usage: node foreign-query-loop.js postgres|mongodb URI SECONDS
const path = require('path');

const clientModules = path.resolve(__dirname, '../../client/node_modules');
const [database, uri, seconds] = process.argv.slice(2);
const deadline = Date.now() + Number(seconds) * 1000;
let stop = false;
let queries = 0;
let rows = 0;
process.on('SIGTERM', () => { stop = true; });

async function readAll() {
  if (database === 'postgres') {
    const { Client } = require(path.join(clientModules, 'pg'));
    const c = new Client({ connectionString: uri, connectionTimeoutMillis: 5000 });
    await c.connect();
    try { return (await c.query('select * from jsonbench')).rowCount; } finally { await c.end(); }
  }
  const { MongoClient } = require(path.join(clientModules, 'mongodb'));
  const c = new MongoClient(uri, { serverSelectionTimeoutMS: 5000, maxPoolSize: 1 });
  await c.connect();
  try { return (await c.db('jsonbench').collection('jsonbench').find({}).toArray()).length; } finally { await c.close(); }
}

(async () => {
  while (!stop && Date.now() < deadline) {
    try {
      const n = await readAll();
      queries++; rows += n;
      console.log(`${new Date().toISOString()} read ${n} rows`);
    } catch (err) {
      console.log(`${new Date().toISOString()} failed: ${err.message}`);
    }
    const pause = 1000 + Math.random() * 2000;
    const until = Date.now() + pause;
    while (!stop && Date.now() < Math.min(until, deadline)) await new Promise((r) => setTimeout(r, 100));
  }
  console.log(`queries ${queries} rows ${rows}`);
  process.exit(0);
})();
