'use strict';
// Parameters of the k-th execution of a TSBS query type over a tsbs-devops
// data set: which hosts, which time window. Drawn from (seed, query type, k)
// alone, so execution k gets the same parameters on both databases whatever
// ran before it. The window and host counts follow TSBS's query types
// (docs/datasets.md); the draws are this lab's own.
const { Sfc32, hashString } = require('../prng');
const { normaliseOptions, FIELD_NAMES } = require('./tsbs-devops');

const HOUR_MS = 3600 * 1000;
// name -> {metrics: how many usage_* fields (the first n), hosts: how many
// distinct hosts (0 = all), windowMs: time window}.
const QUERY_TYPES = {
  'single-groupby-1-1-1': { metrics: 1, hosts: 1, windowMs: HOUR_MS },
  'single-groupby-1-1-12': { metrics: 1, hosts: 1, windowMs: 12 * HOUR_MS },
  'single-groupby-1-8-1': { metrics: 1, hosts: 8, windowMs: HOUR_MS },
  'single-groupby-5-1-1': { metrics: 5, hosts: 1, windowMs: HOUR_MS },
  'single-groupby-5-1-12': { metrics: 5, hosts: 1, windowMs: 12 * HOUR_MS },
  'single-groupby-5-8-1': { metrics: 5, hosts: 8, windowMs: HOUR_MS },
  'double-groupby-1': { metrics: 1, hosts: 0, windowMs: 12 * HOUR_MS },
  'double-groupby-5': { metrics: 5, hosts: 0, windowMs: 12 * HOUR_MS },
  'double-groupby-all': { metrics: 10, hosts: 0, windowMs: 12 * HOUR_MS },
  'high-cpu-1': { metrics: 1, hosts: 1, windowMs: 12 * HOUR_MS },
  'high-cpu-all': { metrics: 1, hosts: 0, windowMs: 12 * HOUR_MS },
  // groupby-orderby-limit: the 5 latest minutes before a random end time.
  'groupby-orderby-limit': { metrics: 1, hosts: 0, windowMs: 0 },
  // lastpoint: the latest event of every host; no window.
  lastpoint: { metrics: 10, hosts: 0, windowMs: null },
};

function fail(key, value, allowed) {
  throw new Error(`tsbs-query-params: ${key}=${JSON.stringify(value)} is not allowed; ${key} must be ${allowed}`);
}

// Uniform integer in 0..n-1 (n < 2^32) without modulo bias.
function below(rng, n) {
  const limit = Math.floor(4294967296 / n) * n;
  for (;;) { const x = rng.next(); if (x < limit) return x % n; }
}

// data: the tsbs-devops options of the loaded set; queryType: a QUERY_TYPES
// name; index: the execution number k (integer >= 0).
// Returns {query, metrics, hostnames (null = all), from, to (Dates, to
// exclusive; null for lastpoint)}. The window lies inside the data's span.
function queryParams(data, queryType, index) {
  const d = normaliseOptions(data);
  const q = QUERY_TYPES[queryType];
  if (!q) fail('queryType', queryType, `one of ${Object.keys(QUERY_TYPES).join(', ')}`);
  if (!Number.isSafeInteger(index) || index < 0) fail('index', index, 'an integer >= 0');
  if (q.hosts > d.hosts) fail('hosts', d.hosts, `>= ${q.hosts} for ${queryType}`);
  if (q.windowMs && q.windowMs > d.spanMs) fail('spanSeconds', d.spanMs / 1000, `>= ${q.windowMs / 1000} for ${queryType}`);
  const rng = new Sfc32(0, 0, 0, 0).reseed(d.seed, hashString(queryType), index);
  let hostnames = null;
  if (q.hosts) {
    // Partial Fisher-Yates over host ids: q.hosts distinct hosts, sorted.
    const ids = Array.from({ length: d.hosts }, (_, i) => i);
    for (let i = 0; i < q.hosts; i++) {
      const j = i + below(rng, d.hosts - i);
      [ids[i], ids[j]] = [ids[j], ids[i]];
    }
    hostnames = ids.slice(0, q.hosts).sort((a, b) => a - b).map((i) => `host_${i}`);
  }
  const out = { query: queryType, metrics: FIELD_NAMES.slice(0, q.metrics), hostnames, from: null, to: null };
  if (q.windowMs === null) return out;
  // Window start on a whole second, uniform over the starts that keep the
  // window inside [start, start + span).
  const slots = Math.floor((d.spanMs - q.windowMs) / 1000) + 1;
  const from = d.startMs + below(rng, slots) * 1000;
  // groupby-orderby-limit has only an end time (to); its query looks back.
  out.from = q.windowMs ? new Date(from) : null;
  out.to = new Date(from + q.windowMs);
  return out;
}

module.exports = { queryParams, QUERY_TYPES };
