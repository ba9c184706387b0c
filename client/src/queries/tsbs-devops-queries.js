'use strict';
// The TSBS devops query types over the tsbs data set, as a query set (docs/contracts.md "Query
// sets"; each query's definition in docs/datasets.md "The TSBS query set"), for the two document
// models the lab ingests into the one table/collection `jsonbench`:
//   MODEL=event:  one document per event {time, tags: {...}, usage_user, ...};
//   MODEL=bucket: one document per host and UTC hour {hour, tags, events: [{time, usage_*...}]}.
// Each query has the form real MongoDB runs (aggregation pipeline: $dateTrunc, $max, $avg,
// $first: MongoDB 5.0+) and a PostgreSQL form in SQL over the jsonb column `data`; both return
// the same columns under the same names (a group key MongoDB returns in _id is read from there:
// digest.mongodbPaths), so one digest definition serves both databases and both models.
// Why these PostgreSQL spellings:
// - filters use exactly the declared index expressions (`data #>> '{time}'` compared as ISO text,
//   which sorts as time: every `time`/`hour` the generator writes has the same form
//   YYYY-MM-DDTHH:MM:SS.sssZ), so the indexes below are usable (checked with EXPLAIN in
//   test/integration/tsbs-queries.test.js);
// - time buckets are date_bin(interval, time::timestamptz, epoch) (PostgreSQL 14+; TimescaleDB's
//   time_bucket), a timestamptz that does not depend on the session's time zone;
// - grouped text is COLLATE "C", so an ORDER BY on it is byte order, MongoDB's simple collation.
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
const EPOCH = '2000-01-01T00:00:00Z'; // date_bin's origin: bins of 1 min / 1 h fall on whole minutes/hours UTC

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
function refusal(data, names) {
  if (!names.length) return null;
  if (!MODELS.includes(data.model)) {
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

const date = (iso) => new Date(iso);
const hourFloorIso = (iso) => { const ms = Date.parse(iso); return new Date(ms - (ms % HOUR_MS)).toISOString(); };
const stat = (fn, m) => `${fn}_${m}`;

// ---- MongoDB ----------------------------------------------------------------------------------
// Stages that select the events of the window (and hosts); on the bucket model, the buckets that
// can hold them, unwound to one document per event under `events`.
function mongoEvents(p, data, { usageAbove } = {}) {
  const hosts = p.hostnames ? { 'tags.hostname': { $in: p.hostnames } } : {};
  const time = {};
  if (p.from) time.$gte = date(p.from);
  time.$lt = date(p.to);
  if (modelOf(data) === 'event') {
    const usage = usageAbove === undefined ? {} : { usage_user: { $gt: usageAbove } };
    return { prefix: '', stages: [{ $match: { ...hosts, time, ...usage } }] };
  }
  const hour = { ...(p.from ? { $gte: date(hourFloorIso(p.from)) } : {}), $lt: time.$lt };
  const usage = usageAbove === undefined ? {} : { 'events.usage_user': { $gt: usageAbove } };
  return {
    prefix: 'events.',
    stages: [
      { $match: { ...hosts, hour, ...usage } }, // buckets that can hold a matching event
      { $unwind: '$events' },
      { $match: { 'events.time': time, ...usage } },
    ],
  };
}

function mongoMaxPerMinute(p, data) {
  const { prefix, stages } = mongoEvents(p, data);
  const group = { _id: { $dateTrunc: { date: `$${prefix}time`, unit: 'minute' } } };
  for (const m of p.metrics) group[stat('max', m)] = { $max: `$${prefix}${m}` };
  return [...stages, { $group: group }];
}

// ---- PostgreSQL -------------------------------------------------------------------------------
// FROM and WHERE over the events of the window; `e` is the expression of an event's JSON object's
// field text (`e('time')`), `ev` its jsonb value. Values are pushed to `values`.
function pgEvents(p, data, values, { usageAbove } = {}) {
  const arg = (v) => { values.push(v); return `$${values.length}`; };
  const where = [];
  if (p.hostnames) where.push(`data #>> '{tags,hostname}' = any(${arg(p.hostnames)}::text[])`);
  if (modelOf(data) === 'event') {
    if (p.from) where.push(`data #>> '{time}' >= ${arg(p.from)}`);
    where.push(`data #>> '{time}' < ${arg(p.to)}`);
    if (usageAbove !== undefined) where.push(`(data #>> '{usage_user}')::numeric > ${arg(usageAbove)}`);
    return {
      from: 'jsonbench',
      where: where.join(' and '),
      e: (f) => `data #>> '{${f}}'`,
      ev: (f) => `data -> '${f}'`,
      hostname: "data #>> '{tags,hostname}'",
    };
  }
  // Buckets first, by the indexed (hostname, hour), then their events.
  if (p.from) where.push(`data #>> '{hour}' >= ${arg(hourFloorIso(p.from))}`);
  where.push(`data #>> '{hour}' < ${arg(p.to)}`);
  if (p.from) where.push(`ev ->> 'time' >= ${arg(p.from)}`);
  where.push(`ev ->> 'time' < ${arg(p.to)}`);
  if (usageAbove !== undefined) where.push(`(ev ->> 'usage_user')::numeric > ${arg(usageAbove)}`);
  return {
    from: "jsonbench cross join lateral jsonb_array_elements(data -> 'events') as ev",
    where: where.join(' and '),
    e: (f) => `ev ->> '${f}'`,
    ev: (f) => `ev -> '${f}'`,
    hostname: "data #>> '{tags,hostname}'",
  };
}

const minuteOf = (s) => `date_bin('1 minute', (${s.e('time')})::timestamptz, timestamptz '${EPOCH}')`;
const numeric = (s, m) => `(${s.e(m)})::numeric`;

// ---- The queries ------------------------------------------------------------------------------
function singleGroupby(name) {
  const q = QUERY_TYPES[name];
  const [, metrics, hosts, hours] = /^single-groupby-(\d+)-(\d+)-(\d+)$/.exec(name);
  const columns = ['minute', ...FIELD_NAMES.slice(0, q.metrics).map((m) => stat('max', m))];
  return {
    about: `max of ${metrics === '1' ? 'usage_user' : `the first ${metrics} usage_* fields`} per minute over ${hosts} random host${hosts === '1' ? '' : 's'} `
      + `in a random ${hours} h window, by minute (TSBS ${name})`,
    params: paramsOf(name),
    mongodb: (p, data) => ({ aggregate: [...mongoMaxPerMinute(p, data), { $sort: { _id: 1 } }] }),
    postgres: (p, data) => {
      const values = [];
      const s = pgEvents(p, data, values);
      const maxes = p.metrics.map((m) => `max(${numeric(s, m)}) as ${stat('max', m)}`).join(', ');
      return { text: `select ${minuteOf(s)} as minute, ${maxes} from ${s.from} where ${s.where} group by 1 order by 1`, values };
    },
    digest: { columns, ordered: true, mongodbPaths: { minute: '_id' } },
  };
}

function doubleGroupby(name) {
  const q = QUERY_TYPES[name];
  return {
    about: `average of ${q.metrics === 1 ? 'usage_user' : q.metrics === 10 ? 'all 10 usage_* fields' : `the first ${q.metrics} usage_* fields`} `
      + `per host and hour over all hosts in a random 12 h window, by hour then host (TSBS ${name})`,
    params: paramsOf(name),
    mongodb: (p, data) => {
      const { prefix, stages } = mongoEvents(p, data);
      // The bucket's hour is the hour of every event it holds: no $dateTrunc needed.
      const hour = modelOf(data) === 'event' ? { $dateTrunc: { date: '$time', unit: 'hour' } } : '$hour';
      const group = { _id: { hour, hostname: '$tags.hostname' } };
      for (const m of p.metrics) group[stat('avg', m)] = { $avg: `$${prefix}${m}` };
      return { aggregate: [...stages, { $group: group }, { $sort: { '_id.hour': 1, '_id.hostname': 1 } }] };
    },
    postgres: (p, data) => {
      const values = [];
      const s = pgEvents(p, data, values);
      const hour = modelOf(data) === 'event'
        ? `date_bin('1 hour', (${s.e('time')})::timestamptz, timestamptz '${EPOCH}')` : "data #>> '{hour}'";
      const avgs = p.metrics.map((m) => `avg(${numeric(s, m)}) as ${stat('avg', m)}`).join(', ');
      return {
        text: `select ${hour} as hour, ${s.hostname} collate "C" as hostname, ${avgs} from ${s.from} where ${s.where} group by 1, 2 order by 1, 2`,
        values,
      };
    },
    digest: {
      columns: ['hour', 'hostname', ...FIELD_NAMES.slice(0, q.metrics).map((m) => stat('avg', m))],
      ordered: true,
      mongodbPaths: { hour: '_id.hour', hostname: '_id.hostname' },
    },
  };
}

// high-cpu rows: {time, tags: {hostname}, usage_user, ..., usage_guest_nice}, in no order.
function highCpu(name) {
  const q = QUERY_TYPES[name];
  return {
    about: `every event with usage_user > ${THRESHOLD} ${q.hosts ? 'of one random host' : 'of all hosts'} in a random 12 h window (TSBS ${name})`,
    params: (data, k) => ({ ...paramsOf(name)(data, k), threshold: THRESHOLD }),
    mongodb: (p, data) => {
      const { stages } = mongoEvents(p, data, { usageAbove: p.threshold });
      if (modelOf(data) === 'event') {
        const projection = { _id: 0, time: 1, 'tags.hostname': 1 };
        for (const m of FIELD_NAMES) projection[m] = 1;
        return { aggregate: [...stages, { $project: projection }] };
      }
      const projection = { _id: 0, time: '$events.time', tags: { hostname: '$tags.hostname' } };
      for (const m of FIELD_NAMES) projection[m] = `$events.${m}`;
      return { aggregate: [...stages, { $project: projection }] };
    },
    postgres: (p, data) => {
      const values = [];
      const s = pgEvents(p, data, values, { usageAbove: p.threshold });
      const fields = FIELD_NAMES.map((m) => `${s.ev(m)} as ${m}`).join(', ');
      return {
        text: `select ${s.e('time')} as time, jsonb_build_object('hostname', ${s.hostname}) as tags, ${fields} from ${s.from} where ${s.where}`,
        values,
      };
    },
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
  mongodb: (p, data) => ({ aggregate: [...mongoMaxPerMinute(p, data), { $sort: { _id: -1 } }, { $limit: p.limit }] }),
  postgres: (p, data) => {
    const values = [];
    const s = pgEvents(p, data, values);
    values.push(p.limit);
    return {
      text: `select ${minuteOf(s)} as minute, max(${numeric(s, 'usage_user')}) as max_usage_user from ${s.from} where ${s.where} `
        + `group by 1 order by 1 desc limit $${values.length}`,
      values,
    };
  },
  digest: { columns: ['minute', 'max_usage_user'], ordered: true, mongodbPaths: { minute: '_id' } },
};

// lastpoint rows: {hostname, time, usage_user, ..., usage_guest_nice}, by hostname.
queries.lastpoint = {
  about: 'the latest event of every host, all 10 usage_* fields, by host (TSBS lastpoint)',
  params: paramsOf('lastpoint'),
  mongodb: (p, data) => {
    const last = (prefix) => {
      const g = { _id: '$_id', time: { $first: `$${prefix}time` } };
      for (const m of FIELD_NAMES) g[m] = { $first: `$${prefix}${m}` };
      return g;
    };
    if (modelOf(data) === 'event') {
      // Sorted as the (hostname, time) index read backwards, so $sort + $group $first can be a
      // DISTINCT_SCAN of the index on real MongoDB.
      const g = last('');
      g._id = '$tags.hostname';
      return { aggregate: [{ $sort: { 'tags.hostname': -1, time: -1 } }, { $group: g }, { $sort: { _id: 1 } }] };
    }
    // A host's latest event is in its latest bucket: that bucket's events, the latest of them.
    return {
      aggregate: [
        { $sort: { 'tags.hostname': -1, hour: -1 } },
        { $group: { _id: '$tags.hostname', events: { $first: '$events' } } },
        { $unwind: '$events' },
        { $sort: { _id: 1, 'events.time': -1 } },
        { $group: last('events.') },
        { $sort: { _id: 1 } },
      ],
    };
  },
  postgres: (p, data) => {
    const fields = (ev) => FIELD_NAMES.map((m) => `${ev(m)} as ${m}`).join(', ');
    if (modelOf(data) === 'event') {
      return {
        text: `select hostname, time, ${FIELD_NAMES.join(', ')} from (
          select distinct on (data #>> '{tags,hostname}') data #>> '{tags,hostname}' as hostname, data #>> '{time}' as time,
            ${fields((m) => `data -> '${m}'`)}
          from jsonbench order by data #>> '{tags,hostname}' desc, data #>> '{time}' desc) last
          order by hostname collate "C"`,
        values: [],
      };
    }
    return {
      text: `select hostname, time, ${FIELD_NAMES.join(', ')} from (
        select distinct on (b.hostname) b.hostname, ev ->> 'time' as time, ${fields((m) => `ev -> '${m}'`)}
        from (select distinct on (data #>> '{tags,hostname}') data #>> '{tags,hostname}' as hostname, data -> 'events' as events
              from jsonbench order by data #>> '{tags,hostname}' desc, data #>> '{hour}' desc) b
          cross join lateral jsonb_array_elements(b.events) as ev
        order by b.hostname, ev ->> 'time' desc) last
        order by hostname collate "C"`,
      values: [],
    };
  },
  digest: { columns: ['hostname', 'time', ...FIELD_NAMES], ordered: true, mongodbPaths: { hostname: '_id' } },
};

// In the phases' order (client/src/queries/index.js names them).
const ORDER = Object.keys(QUERY_TYPES);
const ordered = Object.fromEntries(ORDER.map((n) => [n, queries[n]]));

module.exports = { dataOf, indexes, queries: ordered, refusal, MODELS, THRESHOLD, LIMIT };
