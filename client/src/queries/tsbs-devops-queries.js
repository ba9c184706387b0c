'use strict';
// The TSBS devops query types over the tsbs data set, as a query set (docs/contracts.md "Query
// sets"; each query's definition in docs/datasets.md "The TSBS query set"), for the two document
// models the lab ingests into the one table/collection `jsonbench`:
//   MODEL=event:  one document per event {time, tags: {...}, usage_user, ...};
//   MODEL=bucket: one document per host and UTC hour {hour, tags, events: [{time, usage_*...}]}.
// This file holds each query's name, parameters and digest, and what the forms share (modelOf,
// stat, ...); each database's form of it is in the database's folder
// (databases/<name>/client/queries/tsbs.js, joined by ./index.js). Every form returns the same
// columns under the same names (a column a form returns under another path, e.g. a group key in
// _id, is read from there: its forms file's `paths`), so one digest definition serves every
// database and both models.
// The bucket model's hour is the bucket's own `hour` field (the $dateTrunc of its events' times),
// which is the bucket model's point: no per-event truncation for hourly groups.
// dataOf takes the client's parsed options (camelCase: seed, hosts, start, intervalS, spanS,
// model) or validateBenchText's values (SEED, HOSTS, START, INTERVAL_S, SPAN_S, MODEL).
const { queryParams, QUERY_TYPES } = require('../datasets/tsbs-query-params');
const { FIELD_NAMES } = require('../datasets/tsbs-devops');

const HOUR_MS = 3600 * 1000;
const MODELS = ['event', 'bucket'];
const THRESHOLD = 90; // high-cpu: usage_user > 90 (TSBS's "> 90.0")
const LIMIT = 5; // groupby-orderby-limit: the 5 latest minutes

function dataOf(o) {
  const pick = (camel, upper) => (o[camel] !== undefined ? o[camel] : o[upper]);
  return {
    seed: pick('seed', 'SEED'),
    hosts: pick('hosts', 'HOSTS'),
    start: pick('start', 'START'),
    intervalSeconds: pick('intervalS', 'INTERVAL_S'),
    spanSeconds: pick('spanS', 'SPAN_S'),
    model: pick('model', 'MODEL'),
  };
}

const generatorOf = (data) => ({
  seed: data.seed, hosts: data.hosts, start: data.start, intervalSeconds: data.intervalSeconds, spanSeconds: data.spanSeconds,
});

function modelOf(data) {
  if (MODELS.includes(data.model)) return data.model;
  throw new Error(`tsbs queries: MODEL=${data.model} has no query forms; allowed with QUERIES: MODEL=${MODELS.join(' or ')} `
    + '(the native model is an ingest comparison only)');
}

// Why a bench's QUERIES cannot run on its data set, or null: checked with the bench file, before
// anything starts (bench-schema.js checkCombination).
// ownModels: models whose forms every database of the run brings itself (their manifests'
// offers.tsbs_query_models, e.g. TimescaleDB's hypertable: MODEL=native), allowed besides MODELS.
function refusal(data, names, ownModels = []) {
  if (!names.length) return null;
  if (!MODELS.includes(data.model) && !ownModels.includes(data.model)) {
    return { key: 'MODEL', message: `MODEL=${data.model} has no TSBS query forms (queries run on MODEL=event or bucket); allowed: QUERIES=none with MODEL=${data.model}` };
  }
  for (const name of names) {
    const q = QUERY_TYPES[name];
    if (!q) return { key: 'QUERIES', message: `unknown TSBS query ${name}; allowed: ${Object.keys(QUERY_TYPES).join(', ')}` };
    if (q.hosts > data.hosts) {
      return { key: 'HOSTS', message: `HOSTS=${data.hosts} is fewer than the ${q.hosts} hosts query ${name} picks; allowed: HOSTS >= ${q.hosts}, or QUERIES without ${name}` };
    }
    if (q.windowMs && q.windowMs > data.spanSeconds * 1000) {
      return { key: 'SPAN_S', message: `SPAN_S=${data.spanSeconds} is shorter than the ${q.windowMs / HOUR_MS} h window of query ${name}; allowed: SPAN_S >= ${q.windowMs / 1000}, or QUERIES without ${name}` };
    }
  }
  return null;
}

// What both databases need, per model (created by `init` before the load): a host and a time
// range (single-groupby, high-cpu-1, lastpoint), a time range alone (double-groupby, high-cpu-all,
// groupby-orderby-limit).
// MODEL=native has no query forms (bench-schema refuses QUERIES with it), so no indexes: `init`
// asks for them whatever QUERIES says, and the native model's tables are the ingest's own.
function indexes(data) {
  if (data.model === 'native') return [];
  const time = modelOf(data) === 'event' ? 'time' : 'hour';
  return [
    { name: `jsonbench_host_${time}`, fields: [{ path: 'tags.hostname', type: 'text' }, { path: time, type: 'time' }] },
    { name: `jsonbench_${time}`, fields: [{ path: time, type: 'time' }] },
  ];
}

// Execution k's parameters: tsbs-query-params.js, with times as ISO text (JSON-able).
function paramsOf(name) {
  return (data, k) => {
    const p = queryParams(generatorOf(data), name, k);
    return { ...p, from: p.from && p.from.toISOString(), to: p.to && p.to.toISOString() };
  };
}

// Shared with the databases' forms (databases/<name>/client/queries/tsbs.js).
const hourFloorIso = (iso) => { const ms = Date.parse(iso); return new Date(ms - (ms % HOUR_MS)).toISOString(); };
const stat = (fn, m) => `${fn}_${m}`;

// ---- The queries ------------------------------------------------------------------------------
function singleGroupby(name) {
  const q = QUERY_TYPES[name];
  const [, metrics, hosts, hours] = /^single-groupby-(\d+)-(\d+)-(\d+)$/.exec(name);
  const columns = ['minute', ...FIELD_NAMES.slice(0, q.metrics).map((m) => stat('max', m))];
  return {
    about: `max of ${metrics === '1' ? 'usage_user' : `the first ${metrics} usage_* fields`} per minute over ${hosts} random host${hosts === '1' ? '' : 's'} `
      + `in a random ${hours} h window, by minute (TSBS ${name})`,
    params: paramsOf(name),
    digest: { columns, ordered: true },
  };
}

function doubleGroupby(name) {
  const q = QUERY_TYPES[name];
  return {
    about: `average of ${q.metrics === 1 ? 'usage_user' : q.metrics === 10 ? 'all 10 usage_* fields' : `the first ${q.metrics} usage_* fields`} `
      + `per host and hour over all hosts in a random 12 h window, by hour then host (TSBS ${name})`,
    params: paramsOf(name),
    digest: {
      columns: ['hour', 'hostname', ...FIELD_NAMES.slice(0, q.metrics).map((m) => stat('avg', m))],
      ordered: true,
    },
  };
}

// high-cpu rows: {time, tags: {hostname}, usage_user, ..., usage_guest_nice}, in no order.
function highCpu(name) {
  const q = QUERY_TYPES[name];
  return {
    about: `every event with usage_user > ${THRESHOLD} ${q.hosts ? 'of one random host' : 'of all hosts'} in a random 12 h window (TSBS ${name})`,
    params: (data, k) => ({ ...paramsOf(name)(data, k), threshold: THRESHOLD }),
    digest: { columns: { time: 'time', hostname: 'tags.hostname', ...Object.fromEntries(FIELD_NAMES.map((m) => [m, m])) } },
  };
}

const queries = {};
for (const name of Object.keys(QUERY_TYPES)) {
  if (name.startsWith('single-groupby-')) queries[name] = singleGroupby(name);
  else if (name.startsWith('double-groupby-')) queries[name] = doubleGroupby(name);
  else if (name.startsWith('high-cpu-')) queries[name] = highCpu(name);
}

queries['groupby-orderby-limit'] = {
  about: `max of usage_user per minute over all hosts for the ${LIMIT} latest minutes before a random time (TSBS groupby-orderby-limit)`,
  params: (data, k) => ({ ...paramsOf('groupby-orderby-limit')(data, k), limit: LIMIT }),
  digest: { columns: ['minute', 'max_usage_user'], ordered: true },
};

// lastpoint rows: {hostname, time, usage_user, ..., usage_guest_nice}, by hostname.
queries.lastpoint = {
  about: 'the latest event of every host, all 10 usage_* fields, by host (TSBS lastpoint)',
  params: paramsOf('lastpoint'),
  digest: { columns: ['hostname', 'time', ...FIELD_NAMES], ordered: true },
};

// In the phases' order (client/src/queries/index.js names them).
const ORDER = Object.keys(QUERY_TYPES);
const ordered = Object.fromEntries(ORDER.map((n) => [n, queries[n]]));

module.exports = { dataOf, indexes, queries: ordered, refusal, MODELS, THRESHOLD, LIMIT, modelOf, stat, hourFloorIso };
