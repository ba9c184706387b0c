'use strict';
// `pool-ready`: PgBouncer (POOL=pgbouncer) accepts an authenticated admin connection; prints
// {pooler, ready, product, version, max_prepared_statements, seconds, attempts} (../pgbouncer-admin.js). Run by
// databases/postgres/pgbouncer/pool.py `start`.
const { poolReady } = require('../pgbouncer-admin');

module.exports = { command: 'pool-ready', keys: ['URI', 'READY_TIMEOUT_S'], run: (opts) => poolReady(opts) };
