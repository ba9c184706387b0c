'use strict';
// PostgreSQL's forms of the TSBS devops query set (the 13 query types; their names, parameters and
// digests: client/src/queries/tsbs-devops-queries.js), in SQL over the jsonb column `data`, on
// MODEL=event and MODEL=bucket. Why these spellings:
// - filters use exactly the declared index expressions (`data #>> '{time}'` compared as ISO text,
//   which sorts as time: every `time`/`hour` the generator writes has the same form
//   YYYY-MM-DDTHH:MM:SS.sssZ), so the set's indexes are usable (checked with EXPLAIN in
//   client/test/integration/tsbs-queries.test.js);
// - time buckets are date_bin(interval, time::timestamptz, epoch) (PostgreSQL 14+; TimescaleDB's
//   time_bucket), a timestamptz that does not depend on the session's time zone;
// - grouped text is COLLATE "C", so an ORDER BY on it is byte order, MongoDB's simple collation.
const { tsbsQueryTypes: QUERY_TYPES, tsbsFieldNames: FIELD_NAMES, tsbsQuerySet } = require('../../../../client/src/sdk');

const { modelOf, stat, hourFloorIso } = tsbsQuerySet;

const EPOCH = '2000-01-01T00:00:00Z'; // date_bin's origin: bins of 1 min / 1 h fall on whole minutes/hours UTC

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

// A form of each kind of query (the set names them: single-groupby-*, double-groupby-*, high-cpu-*).
const byKind = {
  'single-groupby-': (p, data) => {
    const values = [];
    const s = pgEvents(p, data, values);
    const maxes = p.metrics.map((m) => `max(${numeric(s, m)}) as ${stat('max', m)}`).join(', ');
    return { text: `select ${minuteOf(s)} as minute, ${maxes} from ${s.from} where ${s.where} group by 1 order by 1`, values };
  },
  'double-groupby-': (p, data) => {
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
  'high-cpu-': (p, data) => {
    const values = [];
    const s = pgEvents(p, data, values, { usageAbove: p.threshold });
    const fields = FIELD_NAMES.map((m) => `${s.ev(m)} as ${m}`).join(', ');
    return {
      text: `select ${s.e('time')} as time, jsonb_build_object('hostname', ${s.hostname}) as tags, ${fields} from ${s.from} where ${s.where}`,
      values,
    };
  },
};

// Each TSBS query type's form: the kinds above by name prefix (single-groupby-1-1-1, ...), then the
// two queries of their own kind.
const forms = {};
for (const name of Object.keys(QUERY_TYPES)) {
  const kind = Object.keys(byKind).find((prefix) => name.startsWith(prefix));
  if (kind) forms[name] = byKind[kind];
}
Object.assign(forms, {
  'groupby-orderby-limit': (p, data) => {
    const values = [];
    const s = pgEvents(p, data, values);
    values.push(p.limit);
    return {
      text: `select ${minuteOf(s)} as minute, max(${numeric(s, 'usage_user')}) as max_usage_user from ${s.from} where ${s.where} `
        + `group by 1 order by 1 desc limit $${values.length}`,
      values,
    };
  },
  lastpoint: (p, data) => {
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
});

module.exports = { forms };
