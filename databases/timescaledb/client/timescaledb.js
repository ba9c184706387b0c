'use strict';
// TimescaleDB binding: PostgreSQL with the timescaledb extension, so the PostgreSQL binding
// (databases/postgres/client/postgres.js) with its own server facts and counters. Its one workload,
// tsbs, keeps the TSBS devops events as rows of a hypertable: workloads/tsbs.js (init, the ingest's
// statement, count, compression); its query forms are in queries/tsbs.js.
// URI: timescaledb://user:password@host:port/db (the scheme only picks this binding; the wire
// protocol is PostgreSQL's).
const { readTimescaledbStats } = require('./timescaledb-stats');

const { PostgresTarget } = require('../../postgres/client/postgres');

class TimescaledbTarget extends PostgresTarget {
  constructor(uri, options = {}) {
    super(String(uri).replace(/^timescaledb:/, 'postgres:'), options);
    this.database = 'timescaledb';
  }

  // A PostgreSQL without the extension available is not TimescaleDB: said at connect, not later.
  async serverInfo() {
    const { rows } = await this.client.query(`select current_setting('server_version') as pg,
      (select default_version from pg_available_extensions where name = 'timescaledb') as available,
      (select extversion from pg_extension where extname = 'timescaledb') as installed`);
    const r = rows[0];
    if (!r.available) throw new Error(`PostgreSQL ${r.pg} has no timescaledb extension: not a TimescaleDB server`);
    return {
      product: 'TimescaleDB',
      version: `${r.installed || r.available} (PostgreSQL ${r.pg})`,
      extension_version: r.installed || r.available,
      postgres_version: r.pg,
      stand_in: false,
    };
  }

  // The server's counters (timescaledb-stats.js: PostgreSQL's, named TimescaleDB's, its catalog
  // tables apart, its jobs), and what each `run` session sends besides its operations: the select
  // of serverInfo, set synchronous_commit, prepare (a query phase's session: the first two).
  async serverStats() {
    const stats = await readTimescaledbStats(this.client);
    return { ...stats, run_session: { connections: 1, statements: 3, about: 'select of the versions (serverInfo); set synchronous_commit; prepare' } };
  }

  // LAYOUT does not apply to the hypertable and init says nothing of it (PostgreSQL's note is not
  // this binding's).
  layoutNote() { return null; }

  // Before a query phase's first execution (commands/run.js): the session's durability as
  // PostgreSQL's, and no insert statement (the PostgreSQL binding prepares a jsonb one, which has
  // no table here). The ingest prepares its model's statement (workloads/tsbs.js: a `statement`),
  // as PostgreSQL's put step kind does.
  async prepareInserts(opts) {
    if (opts.statement) return super.prepareInserts(opts);
    await this.client.query(`set synchronous_commit = ${opts.durability === 'relaxed' ? 'off' : 'on'}`);
    return undefined;
  }
}

module.exports = { TimescaledbTarget };
