'use strict';
// PostgreSQL storage of the time-series ingest models (docs/contracts.md §2, "storage models"), a module
// of its tsbs workload file (../tsbs.js), not of the binding (TimescaleDB's reuses ddlOf and TABLE):
//   event  - jsonbench(id uuid primary key, data jsonb): one row per event, data = its JSON text;
//   bucket - the same table, one row per bucket; an event is ONE statement:
//            INSERT (the bucket as its first event creates it) ON CONFLICT (id) DO UPDATE
//            SET data = jsonb_set(data, '{events}', data->'events' || entry) (PostgreSQL writes a
//            new version of the whole row, TOAST included, on every append: the cost measured);
//   native - a plain table with a column per tag (text) and per field (bigint), no key, and the
//            index MongoDB gives its time-series collection (seriesIndexDdl).
// Each model has one statement, prepared once per session (SQL PREPARE, like the insert workload's),
// and executed as one pre-serialized Bind/Execute/Sync message on pg's own connection (the
// submittable of pg-prepared-insert.js's kind), one round trip per event.
const { clientRequire } = require('../../../../../client/src/sdk');
const { serialize } = clientRequire('pg-protocol');
const { StatementSubmittable } = require('../../pg-prepared-insert');

const TABLE = 'jsonbench';
const STATEMENT = 'jsonbench_insert'; // the name the insert workload's statement has too
const JSONB_BINARY_VERSION = 1;

const quoteIdent = (name) => `"${String(name).replace(/"/g, '""')}"`;

function ddlOf({ model, series }) {
  if (model === 'native') {
    const cols = [`${quoteIdent(series.timeField)} timestamptz not null`,
      ...series.metaColumns.map((c) => `${quoteIdent(c)} text`),
      ...series.valueColumns.map((c) => `${quoteIdent(c)} bigint`)];
    return `create table ${TABLE} (${cols.join(', ')})`;
  }
  return `create table ${TABLE} (id uuid primary key, data jsonb not null)`;
}

// MongoDB 6.3+ creates a compound index on metaField and timeField with every new time-series
// collection ("Starting in MongoDB 6.3, MongoDB creates a default compound index on both the
// metaField and timeField of a time series collection", MongoDB 8.0 manual, Time Series Indexes:
// https://www.mongodb.com/docs/v8.0/core/timeseries/timeseries-index/). The native table gets the
// equivalent at creation, so both sides maintain one index during the ingest: the meta document's
// fields in their order (MongoDB compares the metaField document field by field), then the time.
function seriesIndexDdl({ model, series }) {
  if (model !== 'native') return null;
  const cols = [...series.metaColumns, series.timeField];
  return `create index ${TABLE}_${series.metaField}_${series.timeField} on ${TABLE} (${cols.map(quoteIdent).join(', ')})`;
}

// { types, sql } of the model's one statement.
function statementOf({ model, series, arrayField }) {
  if (model === 'native') {
    const cols = [series.timeField, ...series.metaColumns, ...series.valueColumns];
    return {
      types: ['timestamptz', ...series.metaColumns.map(() => 'text'), ...series.valueColumns.map(() => 'bigint')],
      sql: `insert into ${TABLE} (${cols.map(quoteIdent).join(', ')}) values (${cols.map((_, i) => `$${i + 1}`).join(', ')})`,
    };
  }
  if (model === 'bucket') {
    const path = `'{${arrayField}}'`;
    return {
      types: ['uuid', 'jsonb', 'jsonb'],
      sql: `insert into ${TABLE} (id, data) values ($1, $2) on conflict (id) do update `
        + `set data = jsonb_set(${TABLE}.data, ${path}, (${TABLE}.data -> '${arrayField}') || $3)`,
    };
  }
  return { types: ['uuid', 'jsonb'], sql: `insert into ${TABLE} (id, data) values ($1, $2)` };
}

// jsonb in its binary wire form: version byte 1, then the JSON text (parsed by the server exactly
// like the text form).
function jsonbParam(json) {
  const text = Buffer.from(json, 'utf8');
  const b = Buffer.allocUnsafe(1 + text.length);
  b[0] = JSONB_BINARY_VERSION;
  text.copy(b, 1);
  return b;
}

function execute(client, values) {
  const message = Buffer.concat([serialize.bind({ statement: STATEMENT, values }), serialize.execute(), serialize.sync()]);
  return new Promise((resolve, reject) => client.query(new StatementSubmittable(message, resolve, reject))).then((tag) => {
    // "INSERT 0 1": the last number is the rows inserted or updated.
    const rows = Number(/([0-9]+)$/.exec(tag || '')?.[1] ?? NaN);
    if (rows !== 1) throw new Error(`${STATEMENT}: expected 1 row written, the server said ${rows}`);
    return 1;
  });
}

// The model's parameters for one event.
const eventValues = (key, json) => [key, jsonbParam(json)];
const bucketValues = (key, insertJson, entryJson) => [key, jsonbParam(insertJson), jsonbParam(entryJson)];
function seriesValues(doc, series) {
  const out = [doc[series.timeField].toISOString()];
  const meta = doc[series.metaField];
  for (const c of series.metaColumns) out.push(meta[c] === undefined || meta[c] === null ? null : String(meta[c]));
  for (const c of series.valueColumns) out.push(doc[c] === undefined || doc[c] === null ? null : String(doc[c]));
  return out;
}

// The events a table holds (bucket: the sum of the buckets' arrays, each bucket also counted as a
// row) and its sizes, as `count` reports them.
function countQuery({ model, arrayField }) {
  const events = model === 'bucket' ? `coalesce(sum(jsonb_array_length(data -> '${arrayField}')), 0)` : 'count(*)';
  return `select ${events}::bigint as documents, count(*)::bigint as rows,
                 pg_table_size('${TABLE}') as table_bytes, pg_indexes_size('${TABLE}') as index_bytes,
                 pg_total_relation_size('${TABLE}') as total_bytes
            from ${TABLE}`;
}

module.exports = {
  ddlOf, seriesIndexDdl, statementOf, execute, eventValues, bucketValues, seriesValues, countQuery, jsonbParam, STATEMENT, TABLE,
};
