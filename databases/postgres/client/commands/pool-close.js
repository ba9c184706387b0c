'use strict';
// `pool-close`: PgBouncer's server connections to the pooled database (POOL_DB) closed after a
// window (KILL + RESUME, ../pgbouncer-admin.js). Run by databases/postgres/pgbouncer/pool.py `close`.
const { poolClose } = require('../pgbouncer-admin');

module.exports = { command: 'pool-close', keys: ['URI', 'POOL_DB'], run: poolClose };
