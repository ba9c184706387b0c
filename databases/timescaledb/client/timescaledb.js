'use strict';
// TimescaleDB binding: PostgreSQL with the timescaledb extension, so the PostgreSQL binding
// (client/src/targets/postgres.js) with its own storage: the TSBS devops events as rows of a
// hypertable (timescaledb-schema.js). Ingest is PostgreSQL's native model unchanged: one prepared
// INSERT of one row per event, one round trip (postgres-models.js statementOf/insertSeries).
// Its query forms are in queries/tsbs.js. URI: timescaledb://user:password@host:port/db
// (the scheme only picks this binding; the wire protocol is PostgreSQL's).
const schema = require('./timescaledb-schema');
const { unscheduleJobs, describeJobs } = require('./timescaledb-jobs');
const { readTimescaledbStats } = require('./timescaledb-stats');

const { PostgresTarget } = require('../../postgres/client/postgres');
const { InputError } = require('../../../client/src/sdk');

// The one model of its storage (its manifest's offers.tsbs_models); validation refuses the others first.
const refuseModel = (model) => Promise.reject(new InputError(`WORKLOAD=tsbs MODEL=${model} has no TimescaleDB storage `
  + '(databases/timescaledb/client stores the TSBS devops events as hypertable rows); allowed with timescaledb: MODEL=native'));

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

  // The hypertable (WORKLOAD=tsbs, its one workload: workloads/). Returns its DDL.
  async init(key, layout, storage) {
    if (storage.model !== 'native') return refuseModel(storage.model);
    // Loaded into each database once; shared_preload_libraries must already hold it (the image's).
    await this.client.query('create extension if not exists timescaledb');
    await this.client.query(`drop table if exists ${schema.TABLE}`);
    const ddl = schema.tableDdl(storage);
    await this.client.query(ddl[0]);
    // TSBS creates its indexes before the hypertable: created now, on the parent, and given to
    // every chunk. modelIndexes prints them.
    this.createdIndexes = schema.indexDdl(storage);
    for (const sql of this.createdIndexes) await this.client.query(sql);
    await this.client.query(ddl[1]);
    // Before the first window: no background job may fall due in one (timescaledb-jobs.js).
    return `${ddl.join('; ')}; ${describeJobs(await this.jobs())}`;
  }

  // The background jobs read and unscheduled, once per process (init, count: outside the windows).
  async jobs() {
    if (!this.jobsDone) this.jobsDone = await unscheduleJobs(this.client, this.uri);
    return this.jobsDone;
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

  // The indexes init created (before the hypertable, as TSBS's loader), for init's `index:` lines.
  async modelIndexes() {
    return this.createdIndexes || [];
  }

  // COMPRESS=after:<n><s|m|h|d> (commands/count.js, after the ingest window): the table's
  // compression settings (once: they cannot change once a chunk is compressed), then every chunk
  // older than the interval compressed. Returns what was run and how many chunks it compressed.
  async compress(storage, compress) {
    const [settings, chunks] = schema.compressionDdl(storage, compress);
    // The Apache-2.0 edition (Debian's package, the stand-in) has no compression: said, not an error
    // from inside ALTER TABLE.
    const { rows: [lic] } = await this.client.query("select current_setting('timescaledb.license', true) as license");
    if (lic.license === 'apache') {
      throw new InputError(`COMPRESS=${compress}: this TimescaleDB is the Apache-2.0 edition (timescaledb.license=apache), which has `
        + 'no compression; allowed on it: COMPRESS=none (compression needs the edition with the TSL code, e.g. the official image)');
    }
    const { rows } = await this.client.query(`select compression_enabled from timescaledb_information.hypertables
      where hypertable_name = '${schema.TABLE}'`);
    const statements = [];
    if (!rows[0] || !rows[0].compression_enabled) {
      await this.client.query(settings);
      statements.push(settings);
    }
    const r = await this.client.query(chunks);
    statements.push(chunks);
    return { setting: compress, interval: schema.compressInterval(compress), statements, chunks_compressed_now: r.rows[0].n };
  }

  async count(storage) {
    // Every column of the count query is a count or a byte size (bigint text from pg).
    const { rows } = await this.client.query(schema.countQuery());
    const n = Object.fromEntries(Object.entries(rows[0]).map(([k, v]) => [k, Number(v)]));
    return {
      ...n,
      // after each phase, outside the windows: the background jobs read again and any scheduled one
      // unscheduled (a job created since init would otherwise fall due in a later window)
      jobs: await this.jobs(),
      rows: n.documents,
      model: storage.model,
      note: 'documents = rows = events; sizes = hypertable_detailed_size (the chunks\' heap, indexes, TOAST, compressed copies included)',
    };
  }

  // Before a query phase's first execution (commands/run.js): the session's durability as
  // PostgreSQL's, and no insert statement (the PostgreSQL binding prepares a jsonb one, which has
  // no table here). Its one workload (tsbs) prepares its model (prepareModel) for its ingest, so only
  // a query phase comes here.
  async prepareInserts(opts) {
    await this.client.query(`set synchronous_commit = ${opts.durability === 'relaxed' ? 'off' : 'on'}`);
    return undefined;
  }
}

module.exports = { TimescaledbTarget };
