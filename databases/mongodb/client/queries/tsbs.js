'use strict';
// MongoDB's forms of the TSBS devops query set (the 13 query types; their names, parameters and
// digests: client/src/queries/tsbs-devops-queries.js): the aggregation pipelines real MongoDB runs
// ($dateTrunc, $max, $avg, $first: MongoDB 5.0+), on MODEL=event and MODEL=bucket. A group key
// comes back in _id: `paths` says where each form's answer holds such a column (the digest reads it
// there, client/src/queries/index.js).
const { tsbsQueryTypes: QUERY_TYPES, tsbsFieldNames: FIELD_NAMES, tsbsQuerySet } = require('../../../../client/src/sdk');

const { modelOf, stat, hourFloorIso } = tsbsQuerySet;

const date = (iso) => new Date(iso);

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

// A form of each kind of query (the set names them: single-groupby-*, double-groupby-*, high-cpu-*).
const byKind = {
  'single-groupby-': (p, data) => ({ aggregate: [...mongoMaxPerMinute(p, data), { $sort: { _id: 1 } }] }),
  'double-groupby-': (p, data) => {
    const { prefix, stages } = mongoEvents(p, data);
    // The bucket's hour is the hour of every event it holds: no $dateTrunc needed.
    const hour = modelOf(data) === 'event' ? { $dateTrunc: { date: '$time', unit: 'hour' } } : '$hour';
    const group = { _id: { hour, hostname: '$tags.hostname' } };
    for (const m of p.metrics) group[stat('avg', m)] = { $avg: `$${prefix}${m}` };
    return { aggregate: [...stages, { $group: group }, { $sort: { '_id.hour': 1, '_id.hostname': 1 } }] };
  },
  'high-cpu-': (p, data) => {
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
};

// Each TSBS query type's form: the kinds above by name prefix (single-groupby-1-1-1, ...), then the
// two queries of their own kind.
const forms = {};
for (const name of Object.keys(QUERY_TYPES)) {
  const kind = Object.keys(byKind).find((prefix) => name.startsWith(prefix));
  if (kind) forms[name] = byKind[kind];
}
Object.assign(forms, {
  'groupby-orderby-limit': (p, data) => ({ aggregate: [...mongoMaxPerMinute(p, data), { $sort: { _id: -1 } }, { $limit: p.limit }] }),
  lastpoint: (p, data) => {
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
});

// Where a form's answer holds a column of the set's digest other than under its name: the group
// key in _id ($group), by query (the kinds by name prefix, as the forms).
const pathsByKind = {
  'single-groupby-': { minute: '_id' },
  'double-groupby-': { hour: '_id.hour', hostname: '_id.hostname' },
};
const paths = {};
for (const name of Object.keys(forms)) {
  const kind = Object.keys(pathsByKind).find((prefix) => name.startsWith(prefix));
  if (kind) paths[name] = pathsByKind[kind];
}
Object.assign(paths, {
  'groupby-orderby-limit': { minute: '_id' },
  lastpoint: { hostname: '_id' },
});

module.exports = { forms, paths };
