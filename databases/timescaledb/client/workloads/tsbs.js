'use strict';
// WORKLOAD=tsbs on TimescaleDB, its one workload: the TSBS devops events as rows of a hypertable
// (tsbs/schema.js), MODEL=native only (its manifest's offers.tsbs_models). init makes the
// hypertable with TSBS's indexes and unschedules the background jobs (tsbs/jobs.js);
// the ingest is PostgreSQL's native model unchanged (one prepared INSERT of one row per event, one
// round trip: databases/postgres/client/workloads/tsbs.js); count reads the chunks' sizes and the
// jobs again; COMPRESS is its native compression (compress). Its query phases run the named query
// step kind with its forms of the tsbs query set (../queries/tsbs.js).
const schema = require('./tsbs/schema');
const { unscheduleJobs, describeJobs } = require('./tsbs/jobs');
const postgres = require('../../../postgres/client/workloads/tsbs');
const { InputError } = require('../../../../client/src/sdk');

// The background jobs read and unscheduled, once per binding (init, count: outside the windows).
const jobsRead = new WeakMap();
async function jobs(target) {
  if (!jobsRead.has(target)) jobsRead.set(target, await unscheduleJobs(target.handle()));
  return jobsRead.get(target);
}

// The one model of its storage; validation refuses the others first.
const refuseModel = (model) => Promise.reject(new InputError(`WORKLOAD=tsbs MODEL=${model} has no TimescaleDB storage `
  + '(databases/timescaledb/client stores the TSBS devops events as hypertable rows); allowed with timescaledb: MODEL=native'));

// The hypertable. Returns its DDL and TSBS's indexes.
async function init(target, storage) {
  if (storage.model !== 'native') return refuseModel(storage.model);
  const client = target.handle();
  // Loaded into each database once; shared_preload_libraries must already hold it (the image's).
  await client.query('create extension if not exists timescaledb');
  await client.query(`drop table if exists ${schema.TABLE}`);
  const ddl = schema.tableDdl(storage);
  await client.query(ddl[0]);
  // TSBS creates its indexes before the hypertable: created now, on the parent, and given to
  // every chunk.
  const indexes = schema.indexDdl(storage);
  for (const sql of indexes) await client.query(sql);
  await client.query(ddl[1]);
  // Before the first window: no background job may fall due in one (tsbs/jobs.js).
  return { created: `${ddl.join('; ')}; ${describeJobs(await jobs(target))}`, indexes };
}

async function count(target, storage) {
  // Every column of the count query is a count or a byte size (bigint text from pg).
  const { rows } = await target.handle().query(schema.countQuery());
  const n = Object.fromEntries(Object.entries(rows[0]).map(([k, v]) => [k, Number(v)]));
  return {
    ...n,
    // after each phase, outside the windows: the background jobs read again and any scheduled one
    // unscheduled (a job created since init would otherwise fall due in a later window)
    jobs: await jobs(target),
    rows: n.documents,
    model: storage.model,
    note: 'documents = rows = events; sizes = hypertable_detailed_size (the chunks\' heap, indexes, TOAST, compressed copies included)',
  };
}

// COMPRESS=after:<n><s|m|h|d> (the workload's count, after the ingest window): the table's
// compression settings (once: they cannot change once a chunk is compressed), then every chunk
// older than the interval compressed. Returns what was run and how many chunks it compressed.
async function compress(target, storage, setting) {
  const [settings, chunks] = schema.compressionDdl(storage, setting);
  const client = target.handle();
  // The Apache-2.0 edition (Debian's package, the stand-in) has no compression: said, not an error
  // from inside ALTER TABLE.
  const { rows: [lic] } = await client.query("select current_setting('timescaledb.license', true) as license");
  if (lic.license === 'apache') {
    throw new InputError(`COMPRESS=${setting}: this TimescaleDB is the Apache-2.0 edition (timescaledb.license=apache), which has `
      + 'no compression; allowed on it: COMPRESS=none (compression needs the edition with the TSL code, e.g. the official image)');
  }
  const { rows } = await client.query(`select compression_enabled from timescaledb_information.hypertables
    where hypertable_name = '${schema.TABLE}'`);
  const statements = [];
  if (!rows[0] || !rows[0].compression_enabled) {
    await client.query(settings);
    statements.push(settings);
  }
  const r = await client.query(chunks);
  statements.push(chunks);
  return { setting, interval: schema.compressInterval(setting), statements, chunks_compressed_now: r.rows[0].n };
}

// What client/src/workloads/tsbs*.js ask of this database (docs/contracts.md §2a, "Workload files");
// its one model's statement and step are PostgreSQL's.
module.exports = {
  init, prepare: postgres.prepare, models: { native: postgres.models.native }, count, compress,
};
