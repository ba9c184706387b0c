'use strict';
// TimescaleDB's forms of the TSBS devops query set (client/src/queries/tsbs-devops-queries.js names
// the 13 queries, their parameters and their digests), over the hypertable of MODEL=native (a row
// per event, a column per tag and field: ../workloads/tsbs/schema.js). Each is the SQL TSBS's TimescaleDB
// generator writes (timescale/tsbs cmd/tsbs_generate_queries/databases/timescaledb/devops.go, with
// --use-time-bucket, the default, and hostname in the row, --in-table-partition-tag), read for
// its facts: time_bucket('60 seconds' | '3600 seconds', time), hostname IN (...), time >= from
// and time < to, usage_user > 90.0, GROUP BY / ORDER BY as TSBS, LIMIT 5, DISTINCT ON (hostname).
// Where they differ from TSBS's text, and why:
// - times and hostnames are parameters ($n), not literals (the lab's forms all bind values);
// - aggregates are named as the set's digest reads them (avg_*: TSBS says mean_*; groupby-orderby-
//   limit's max(usage_user) is named max_usage_user);
// - double-groupby orders hostname COLLATE "C" (byte order, as the PostgreSQL and MongoDB forms);
// - high-cpu returns TSBS's SELECT * plus the hostname under `tags`, the set's answer shape.
// The digests are the set's own, so an answer here digests equal to PostgreSQL's and MongoDB's.
// the set module itself, not queries/index.js: that one loads this file (databases/<db>/client/queries/<set>.js)
const { queries: SET } = require('../../../../client/src/sdk').tsbsQuerySet;

const TABLE = 'jsonbench';
const MINUTE_S = 60;
const HOUR_S = 3600;

const timeBucket = (seconds) => `time_bucket('${seconds} seconds', time)`;

function checkModel(data) {
  if (data.model !== 'native') {
    throw new Error(`tsbs queries on TimescaleDB: MODEL=${data.model} has no TimescaleDB forms; allowed: MODEL=native (the hypertable)`);
  }
}

// Builds the WHERE of one execution; values gets the parameters.
// In TSBS's order: the threshold, then the hosts (high-cpu: after the time range), then the time range.
function where(p, values, { hosts = true, from = true, usageAbove } = {}) {
  const arg = (v) => { values.push(v); return `$${values.length}`; };
  const out = [];
  const hostIn = () => (hosts && p.hostnames ? [`hostname in (${p.hostnames.map(arg).join(', ')})`] : []);
  if (usageAbove !== undefined) {
    if (!Number.isFinite(usageAbove)) throw new Error(`high-cpu threshold ${usageAbove}: allowed: a number`);
    out.push(`usage_user > ${Number(usageAbove).toFixed(1)}`);
  } else out.push(...hostIn());
  if (from && p.from) out.push(`time >= ${arg(p.from)}`);
  out.push(`time < ${arg(p.to)}`);
  if (usageAbove !== undefined) out.push(...hostIn());
  return out.join(' and ');
}

const aggs = (fn, metrics, as = fn) => metrics.map((m) => `${fn}(${m}) as ${as}_${m}`).join(', ');

function singleGroupby(p, data) {
  checkModel(data);
  const values = [];
  return {
    text: `select ${timeBucket(MINUTE_S)} as minute, ${aggs('max', p.metrics)} from ${TABLE} `
      + `where ${where(p, values)} group by minute order by minute asc`,
    values,
  };
}

function doubleGroupby(p, data) {
  checkModel(data);
  const values = [];
  return {
    text: `with cpu_avg as (select ${timeBucket(HOUR_S)} as hour, hostname, ${aggs('avg', p.metrics)} from ${TABLE} `
      + `where ${where(p, values)} group by 1, 2) `
      + `select hour, hostname, ${p.metrics.map((m) => `avg_${m}`).join(', ')} from cpu_avg order by hour, hostname collate "C"`,
    values,
  };
}

function highCpu(p, data) {
  checkModel(data);
  const values = [];
  return {
    text: `select *, json_build_object('hostname', hostname) as tags from ${TABLE} where ${where(p, values, { usageAbove: p.threshold })}`,
    values,
  };
}

function groupbyOrderbyLimit(p, data) {
  checkModel(data);
  if (!Number.isInteger(p.limit) || p.limit < 1) throw new Error(`groupby-orderby-limit limit ${p.limit}: allowed: an integer >= 1`);
  const values = [];
  return {
    text: `select ${timeBucket(MINUTE_S)} as minute, max(usage_user) as max_usage_user from ${TABLE} `
      + `where ${where(p, values, { hosts: false, from: false })} group by minute order by minute desc limit ${p.limit}`,
    values,
  };
}

function lastpoint(p, data) {
  checkModel(data);
  return { text: `select distinct on (hostname) * from ${TABLE} order by hostname, time desc`, values: [] };
}

function formOf(name) {
  if (name.startsWith('single-groupby-')) return singleGroupby;
  if (name.startsWith('double-groupby-')) return doubleGroupby;
  if (name.startsWith('high-cpu-')) return highCpu;
  if (name === 'groupby-orderby-limit') return groupbyOrderbyLimit;
  if (name === 'lastpoint') return lastpoint;
  throw new Error(`TSBS query ${name} has no TimescaleDB form`);
}

// { name: form(params, data) } for every query of the set, in its order.
const forms = Object.fromEntries(Object.keys(SET).map((n) => [n, formOf(n)]));

module.exports = { forms, timeBucket };
