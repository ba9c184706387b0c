'use strict';
// TimescaleDB's storage of the TSBS devops events (MODEL=native): PostgreSQL's native table (one row
// per event, a text column per tag, a bigint column per field) made a hypertable on the event time, with the indexes
// TSBS's TimescaleDB loader creates (timescale/tsbs pkg/targets/timescaledb/creator.go, its default
// flags with --in-table-partition-tag, which keeps hostname in the row as this model does):
//   - partition-index (default on):  CREATE INDEX ON cpu(hostname, "time" DESC)
//   - time-index (default on):       CREATE INDEX ON cpu("time" DESC)
//   - field-index-count 0 (default): no index on a field
//   - create_hypertable(..., chunk_time_interval => --chunk-time (default 12h), create_default_indexes => FALSE)
// The loader creates the indexes on the empty table, then the hypertable; TimescaleDB gives every
// chunk the parent's indexes. Native compression is an option (compressionDdl, COMPRESS), off by default.

// The table itself is PostgreSQL's tsbs native model (databases/postgres/client/workloads/tsbs/models.js
// ddlOf, TABLE), taken from PostgreSQL's folder on purpose rather than written again: TimescaleDB is
// PostgreSQL with an extension, and a comparison of the two must store the same rows with the same
// column types, so one DDL serves both (the ingest's statement and step are PostgreSQL's too: ../tsbs.js).
const { ddlOf, TABLE } = require('../../../../postgres/client/workloads/tsbs/models');
const { InputError } = require('../../../../../client/src/sdk');

// TSBS's default --chunk-time: a chunk holds 12 h of every host's events.
const CHUNK_INTERVAL = '12 hours';

const quoteIdent = (name) => `"${String(name).replace(/"/g, '""')}"`;

// Only the TSBS devops native model has a TimescaleDB layout; anything else is refused, naming it.
function checkStorage(storage) {
  if (!storage || storage.model !== 'native') {
    const what = storage ? `MODEL=${storage.model}` : 'a document workload (no time-series model)';
    throw new InputError(`TimescaleDB binding: ${what} has no TimescaleDB layout; allowed: WORKLOAD=tsbs MODEL=native `
      + '(a hypertable with a column per tag and field)');
  }
}

// The statements that make the hypertable, in order (the same text init prints).
function tableDdl(storage, { chunkInterval = CHUNK_INTERVAL } = {}) {
  checkStorage(storage);
  return [
    ddlOf(storage),
    `select create_hypertable('${TABLE}', '${storage.series.timeField}', chunk_time_interval => interval '${chunkInterval}', `
      + 'create_default_indexes => false)',
  ];
}

// TSBS's two indexes, named (TSBS lets PostgreSQL name them; names make init's lines stable).
function indexDdl(storage) {
  checkStorage(storage);
  const time = quoteIdent(storage.series.timeField);
  const host = storage.series.metaColumns[0]; // hostname: TSBS's partition column
  return [
    `create index ${TABLE}_${host}_time on ${TABLE} (${quoteIdent(host)}, ${time} desc)`,
    `create index ${TABLE}_time on ${TABLE} (${time} desc)`,
  ];
}

// Native compression (COMPRESS=after:<n><s|m|h|d>, off by default): chunks segmented by host (each
// segment's rows one host's, as TSBS's queries select by host) and ordered by time descending
// (lastpoint and the time windows read the newest first); every chunk whose events are older than
// the interval compressed at once, as add_compression_policy's job would once it ran. No policy is
// added: its background job would wake inside later windows, work no other database does there.
// The interval counts back from now(), as the policy's does: the TSBS data (2016) is older than any
// interval up to years, so every chunk is compressed.
const UNITS = { s: 'seconds', m: 'minutes', h: 'hours', d: 'days' };

// 'after:12h' -> '12 hours'; the bench key's form is checked by client/src/bench-schema.js too.
function compressInterval(compress) {
  const m = /^after:([0-9]+)([smhd])$/.exec(String(compress));
  if (!m) throw new InputError(`COMPRESS=${compress}: allowed: none, or after:<n><s|m|h|d> (e.g. after:12h)`);
  return `${m[1]} ${UNITS[m[2]]}`;
}

// [the table's compression settings, the compression of the chunks older than the interval]; the
// second returns how many chunks it compressed now (already compressed ones are left out).
function compressionDdl(storage, compress) {
  checkStorage(storage);
  const host = storage.series.metaColumns[0];
  return [
    `alter table ${TABLE} set (timescaledb.compress, timescaledb.compress_segmentby = '${host}', `
      + `timescaledb.compress_orderby = '${storage.series.timeField} desc')`,
    // compress_chunk returns a chunk it skips too: only the ones not yet compressed are counted
    `select count(compress_chunk(c, if_not_compressed => true))::int as n from show_chunks('${TABLE}', `
      + `older_than => interval '${compressInterval(compress)}') c where c not in (select format('%I.%I', chunk_schema, `
      + `chunk_name)::regclass from timescaledb_information.chunks where hypertable_name = '${TABLE}' and is_compressed)`,
  ];
}

// Events, chunks and sizes after a load (count): hypertable_detailed_size sums the chunks (and
// their compressed copies), which pg_total_relation_size of the empty parent would not.
function countQuery() {
  return `select (select count(*) from ${TABLE})::bigint as documents,
                 (select count(*) from timescaledb_information.chunks where hypertable_name = '${TABLE}')::bigint as chunks,
                 (select count(*) from timescaledb_information.chunks where hypertable_name = '${TABLE}' and is_compressed)::bigint as compressed_chunks,
                 s.table_bytes, s.index_bytes, s.toast_bytes, s.total_bytes
            from hypertable_detailed_size('${TABLE}') s`;
}

module.exports = { tableDdl, indexDdl, compressionDdl, compressInterval, countQuery, checkStorage, CHUNK_INTERVAL, TABLE };
