'use strict';
// The lab's two uses of PgBouncer's admin console (the virtual database `pgbouncer`, admin_users;
// databases/postgres/pgbouncer/), PostgreSQL's pooler (its manifest's offers.poolers): the client
// commands pool-ready and pool-close (./commands/), run by databases/postgres/pgbouncer/pool.py.
// Neither opens a PostgreSQL connection, so the lab's bookkeeping never goes through the pool and
// the server sees only the clients' work.
//   pool-ready: waits until the pooler accepts an authenticated admin connection, then prints one
//     JSON line with its SHOW VERSION (`PgBouncer 1.24.1`): the version every result names, and
//     its max_prepared_statements (SHOW CONFIG): what carries the clients' named statements.
//   pool-close: after a window, KILL + RESUME of the bench's database: the pool's server
//     connections are closed, so the server's end reading sees no session but its own (and the
//     next phase starts with an empty pool); prints how many server connections were closed.
// URI: postgres://user:password@pgbouncer:6432/pgbouncer; POOL_DB: the pooled database's name.
const { clientRequire, retryUntilReady } = require('../../../client/src/sdk');

const { Client } = clientRequire('pg');

async function withAdmin(uri, fn) {
  const client = new Client({ connectionString: uri, connectionTimeoutMillis: 5000 });
  client.on('error', () => {});
  await client.connect();
  try { return await fn(client); } finally { await client.end().catch(() => {}); }
}

// `PgBouncer 1.24.1` -> { product: 'PgBouncer', version: '1.24.1' }
async function showVersion(admin) {
  const { rows } = await admin.query('SHOW VERSION');
  const text = String(Object.values(rows[0] || {})[0] || '');
  const m = /^(\S+)\s+([0-9][0-9.]*)/.exec(text);
  return m ? { product: m[1], version: m[2] } : { product: text || null, version: null };
}

// The pool's own max_prepared_statements (SHOW CONFIG: key, value, ...), as a number; null where the
// version has no such setting.
async function maxPreparedStatements(admin) {
  const row = (await admin.query('SHOW CONFIG')).rows.find((r) => r.key === 'max_prepared_statements');
  return row ? Number(row.value) : null;
}

function poolReady(opts, options) {
  return retryUntilReady('pool-ready', opts, async (o) => ({
    pooler: 'pgbouncer',
    ready: true,
    ...await withAdmin(o.uri, async (admin) => ({ ...await showVersion(admin), max_prepared_statements: await maxPreparedStatements(admin) })),
  }), options);
}

// Server connections of the pooled database (SHOW SERVERS: one row each, column `database`).
const serversOf = async (admin, db) => (await admin.query('SHOW SERVERS')).rows.filter((r) => r.database === db).length;

async function poolClose(opts) {
  const out = await withAdmin(opts.uri, async (admin) => {
    const before = await serversOf(admin, opts.poolDb);
    // KILL drops the database's client and server connections at once; RESUME lets new clients in.
    await admin.query(`KILL ${opts.poolDb}`);
    await admin.query(`RESUME ${opts.poolDb}`);
    return { before, after: await serversOf(admin, opts.poolDb) };
  });
  console.log(JSON.stringify({ pooler: 'pgbouncer', database: opts.poolDb, server_connections_closed: out.before, server_connections_left: out.after }));
  return out.after === 0 ? 0 : 1;
}

module.exports = { poolReady, poolClose, showVersion };
