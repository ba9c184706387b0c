'use strict';
// TimescaleDB's server-stats reading: PostgreSQL's (databases/postgres/client/postgres-stats.js, the
// same counters read the same way), named as TimescaleDB's server, with what the extension changes.
//
// - The user tables: pg_stat_user_tables holds TimescaleDB's own catalog too (the tables of its
//   schemas _timescaledb_catalog, _timescaledb_config, _timescaledb_cache, and the job statistics in
//   _timescaledb_internal): each INSERT into the hypertable looks its hypertable and chunk up there,
//   a chunk created in the window writes rows there (chunk, dimension_slice, chunk_constraint, ...),
//   and its job scheduler reads them; none of it is the lab's rows. The chunks, which hold the lab's
//   rows, are in _timescaledb_internal too: so the catalog is the tables of TimescaleDB's schemas
//   (`_timescaledb_*`) that are not chunks (_timescaledb_catalog.chunk), and user_* counters are the
//   rest (the hypertable and its chunks: every inserted row lands in a chunk). The catalog's own
//   counters are kept apart (timescaledb_catalog_*), its rows read summed as pg_stat_database counts
//   them (seq_tup_read, its indexes' idx_tup_read, idx_tup_fetch).
// - The chunks and the indexes on them (a chunk created in the window builds each index of the
//   hypertable on its empty table: one sequential scan of it per index, no row read).
// - The extension's version (pg_extension), in `server` beside PostgreSQL's.
// - The background jobs of this database at the reading (timescaledb_information.jobs): how many are
//   scheduled, and their runs so far (job_stats.total_runs), so that analysis sees a job that ran in
//   the window (workloads/tsbs/jobs.js unschedules them outside the windows).
// Membership by pg_depend (the extension's member tables) would be exact too, but reads thousands of
// its rows per reading; this statement reads about 900 (measured on 2.19.3).
const { readPostgresStats } = require('../../postgres/client/postgres-stats');

const SUMS = ['seq_scan', 'seq_tup_read', 'idx_scan', 'idx_tup_fetch', 'n_tup_ins', 'n_tup_upd', 'n_tup_del'];
const sums = SUMS.map((c) => `'${c}', coalesce(sum(${c}), 0)`).join(', ');

// One statement, so every sum comes from one snapshot of the statistics.
const TIMESCALEDB_SQL = `with chunks as (
  select format('%I.%I', schema_name, table_name)::regclass as relid from _timescaledb_catalog.chunk where not dropped),
t as (
  select s.*, s.schemaname like '\\_timescaledb\\_%' and s.relid not in (select relid from chunks) as catalog
    from pg_stat_user_tables s)
select (select extversion from pg_extension where extname = 'timescaledb') as extversion,
       current_setting('server_version') as pg_version,
       (select jsonb_build_object(${sums}) from t where not catalog) as user_tables,
       (select jsonb_build_object(${sums}) from t where catalog) as catalog_tables,
       (select coalesce(sum(i.idx_tup_read), 0) from pg_stat_user_indexes i join t using (relid) where t.catalog)::bigint as catalog_idx_tup_read,
       (select count(*) from chunks)::int as chunks,
       (select count(*) from pg_index i join chunks c on c.relid = i.indrelid)::int as chunk_indexes,
       (select count(*) filter (where scheduled) from timescaledb_information.jobs)::int as jobs_scheduled,
       (select coalesce(sum(total_runs), 0) from timescaledb_information.job_stats)::bigint as job_runs`;

// The statement above, counted by analysis as the reading's own work.
const EXTRA_STATEMENTS = 1;

async function readTimescaledbStats(client) {
  const stats = await readPostgresStats(client);
  const { rows: [r] } = await client.query(TIMESCALEDB_SQL);
  if (!r.extversion) throw new Error(`PostgreSQL ${r.pg_version} has no timescaledb extension in this database: not a TimescaleDB reading`);
  const c = stats.counters;
  for (const k of SUMS) {
    c[`user_${k}`] = Number(r.user_tables[k]);
    c[`timescaledb_catalog_${k}`] = Number(r.catalog_tables[k]);
  }
  c.timescaledb_catalog_rows_read = c.timescaledb_catalog_seq_tup_read + Number(r.catalog_idx_tup_read) + c.timescaledb_catalog_idx_tup_fetch;
  c.timescaledb_chunks = r.chunks;
  c.timescaledb_chunk_indexes = r.chunk_indexes;
  c.timescaledb_jobs_scheduled = r.jobs_scheduled;
  c.timescaledb_job_runs = Number(r.job_runs);
  return {
    ...stats,
    server: {
      name: 'timescaledb',
      version: `${r.extversion} (PostgreSQL ${stats.server.version})`,
      product: 'TimescaleDB',
      extension_version: r.extversion,
      postgres_version: stats.server.version,
      stand_in: false,
    },
    raw: { ...stats.raw, user_tables: r.user_tables, timescaledb_catalog_tables: r.catalog_tables },
    reading: {
      ...stats.reading,
      statements: stats.reading.statements + EXTRA_STATEMENTS,
      about: `${stats.reading.about}; select of TimescaleDB's version, tables, chunks and jobs`,
    },
  };
}

module.exports = { readTimescaledbStats, TIMESCALEDB_SQL };
