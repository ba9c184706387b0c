'use strict';
// Seeded generator of TSBS "devops cpu" data (the cpu-only use case of
// timescale/tsbs): per host, every interval, ten usage_* fields as clamped
// random walks in 0..100 and the host's ten tags. Written from TSBS's
// published definition (docs/datasets.md), not from its code.
//
// Why each host has its own PRNG stream: a host's events then depend only on
// (seed, host id, tick), so the per-event order (time-major, as TSBS emits)
// and the bucket order (hour by hour, host by host) produce exactly the same
// events, and a client that owns a subset of hosts produces exactly those
// hosts' events of the full data set.
// Why no Math.log/Math.cos: the walk's step is an Irwin-Hall normal (sum of 12
// uniforms - 6), only IEEE additions, so the bytes are the same on every
// platform and Node version.
const { Sfc32 } = require('../prng');

const REGIONS = [
  ['us-east-1', ['us-east-1a', 'us-east-1b', 'us-east-1c', 'us-east-1e']],
  ['us-west-1', ['us-west-1a', 'us-west-1b']],
  ['us-west-2', ['us-west-2a', 'us-west-2b', 'us-west-2c']],
  ['eu-west-1', ['eu-west-1a', 'eu-west-1b', 'eu-west-1c']],
  ['eu-central-1', ['eu-central-1a', 'eu-central-1b']],
  ['ap-southeast-1', ['ap-southeast-1a', 'ap-southeast-1b']],
  ['ap-southeast-2', ['ap-southeast-2a', 'ap-southeast-2b']],
  ['ap-northeast-1', ['ap-northeast-1a', 'ap-northeast-1c']],
  ['sa-east-1', ['sa-east-1a', 'sa-east-1b', 'sa-east-1c']],
];
const OS = ['Ubuntu16.10', 'Ubuntu16.04LTS', 'Ubuntu15.10'];
const ARCH = ['x64', 'x86'];
const TEAM = ['SF', 'NYC', 'LON', 'CHI'];
const SERVICE_ENVIRONMENT = ['production', 'staging', 'test'];
const RACKS = 100;
const SERVICES = 20;
const SERVICE_VERSIONS = 2;

const TAG_NAMES = ['hostname', 'region', 'datacenter', 'rack', 'os', 'arch', 'team', 'service',
  'service_version', 'service_environment'];
const FIELD_NAMES = ['usage_user', 'usage_system', 'usage_idle', 'usage_nice', 'usage_iowait',
  'usage_irq', 'usage_softirq', 'usage_steal', 'usage_guest', 'usage_guest_nice'];

const HOUR_MS = 3600 * 1000;
const DEFAULTS = Object.freeze({
  seed: 1, hosts: 10, start: '2016-01-01T00:00:00Z', intervalSeconds: 10, spanSeconds: 3600,
});

// Stream words: a host's tags and its walk come from different streams so a
// change to one never shifts the other.
const STREAM_TAGS = 0x7a675301;
const STREAM_CPU = 0x63707501;
const TWO_32 = 4294967296;

// Uniform index in 0..n-1 from one 32-bit draw (multiply-high: bias < n/2^32).
const pick = (rng, n) => Math.floor((rng.next() * n) / TWO_32);
// Uniform double in [0, 1) with 53 bits from two draws.
const uniform53 = (rng) => ((rng.next() >>> 5) * 67108864 + (rng.next() >>> 6)) / 9007199254740992;

function hostTags(seed, hostId) {
  const rng = new Sfc32(0, 0, 0, 0).reseed(seed, hostId, STREAM_TAGS);
  const [region, datacenters] = REGIONS[pick(rng, REGIONS.length)];
  // Draw order is part of the definition (docs/datasets.md): region,
  // datacenter, rack, os, arch, team, service, service_version, environment.
  const datacenter = datacenters[pick(rng, datacenters.length)];
  const rack = String(pick(rng, RACKS));
  const os = OS[pick(rng, OS.length)];
  const arch = ARCH[pick(rng, ARCH.length)];
  const team = TEAM[pick(rng, TEAM.length)];
  const service = String(pick(rng, SERVICES));
  const serviceVersion = String(pick(rng, SERVICE_VERSIONS));
  const serviceEnvironment = SERVICE_ENVIRONMENT[pick(rng, SERVICE_ENVIRONMENT.length)];
  return {
    hostname: `host_${hostId}`, region, datacenter, rack, os, arch, team, service,
    service_version: serviceVersion, service_environment: serviceEnvironment,
  };
}

// One host's ten clamped random walks. value() is what an event carries: the
// walk's state truncated to an integer, as TSBS writes cpu fields as int64.
class HostWalk {
  constructor(seed, hostId) {
    this.rng = new Sfc32(0, 0, 0, 0).reseed(seed, hostId, STREAM_CPU);
    this.state = new Float64Array(FIELD_NAMES.length);
    for (let f = 0; f < FIELD_NAMES.length; f++) this.state[f] = uniform53(this.rng) * 100;
  }

  // Step N(0,1) approximated by Irwin-Hall(12) - 6: mean 0, variance 1.
  step() {
    for (let f = 0; f < FIELD_NAMES.length; f++) {
      let s = 0;
      for (let i = 0; i < 12; i++) s += this.rng.next() / TWO_32;
      let x = this.state[f] + (s - 6);
      if (x < 0) x = 0; else if (x > 100) x = 100;
      this.state[f] = x;
    }
  }

  // Fields of the current tick, then advance (tick 0 carries the start state).
  fieldsThenStep(out) {
    for (let f = 0; f < FIELD_NAMES.length; f++) out[FIELD_NAMES[f]] = Math.trunc(this.state[f]);
    this.step();
    return out;
  }
}

function fail(key, value, allowed) {
  throw new Error(`tsbs-devops: ${key}=${JSON.stringify(value)} is not allowed; ${key} must be ${allowed}`);
}

const isInt = (v, min) => Number.isSafeInteger(v) && v >= min;

// Checked, filled-in parameters. start may be a Date or an ISO string; time
// is whole milliseconds. hostIds (optional) restricts to a subset of 0..hosts-1.
function normaliseOptions(options = {}) {
  const o = { ...DEFAULTS, ...options };
  const known = new Set([...Object.keys(DEFAULTS), 'hostIds']);
  for (const k of Object.keys(options)) if (!known.has(k)) fail(k, options[k], `one of ${[...known].join(', ')} (unknown parameter)`);
  if (!isInt(o.seed, 0) || o.seed > 0xffffffff) fail('seed', o.seed, 'an integer in 0..4294967295');
  if (!isInt(o.hosts, 1)) fail('hosts', o.hosts, 'an integer >= 1');
  const startMs = o.start instanceof Date ? o.start.getTime() : Date.parse(o.start);
  if (!Number.isFinite(startMs)) fail('start', o.start, 'a Date or an ISO 8601 date-time such as 2016-01-01T00:00:00Z');
  const intervalMs = o.intervalSeconds * 1000;
  if (!(o.intervalSeconds > 0) || !Number.isSafeInteger(intervalMs)) fail('intervalSeconds', o.intervalSeconds, 'a number > 0 in whole milliseconds');
  const spanMs = o.spanSeconds * 1000;
  if (!(o.spanSeconds > 0) || !Number.isSafeInteger(spanMs)) fail('spanSeconds', o.spanSeconds, 'a number > 0 in whole milliseconds');
  let hostIds = o.hostIds;
  if (hostIds === undefined) hostIds = Array.from({ length: o.hosts }, (_, i) => i);
  else if (!Array.isArray(hostIds) || hostIds.some((h) => !isInt(h, 0) || h >= o.hosts)) fail('hostIds', hostIds, `an array of integers in 0..${o.hosts - 1}`);
  hostIds = [...new Set(hostIds)].sort((a, b) => a - b);
  return {
    seed: o.seed, hosts: o.hosts, start: new Date(startMs).toISOString(), startMs, intervalMs, spanMs,
    ticks: Math.ceil(spanMs / intervalMs), hostIds,
  };
}

// The hosts a client owns when CLIENTS clients share the hosts: host h
// belongs to client index h % clients (0-based), like the lab's records.
function hostsOfClient(hosts, clients, clientIndex) {
  const ids = [];
  for (let h = clientIndex; h < hosts; h += clients) ids.push(h);
  return ids;
}

function makeEvent(timeMs, tags, walk) {
  const e = { time: new Date(timeMs), tags };
  return walk.fieldsThenStep(e);
}

// Per-event form, in TSBS order: for each tick, every host (ascending id).
// Memory is O(hosts), whatever the span: events are made as they are read.
function* events(options) {
  const o = normaliseOptions(options);
  const hosts = o.hostIds.map((h) => ({ tags: Object.freeze(hostTags(o.seed, h)), walk: new HostWalk(o.seed, h) }));
  for (let k = 0; k < o.ticks; k++) {
    const t = o.startMs + k * o.intervalMs;
    for (const h of hosts) yield makeEvent(t, h.tags, h.walk);
  }
}

// The bucket an event belongs to: one per host and clock hour (UTC).
function hourOf(timeMs) { return timeMs - (((timeMs % HOUR_MS) + HOUR_MS) % HOUR_MS); }
function bucketId(hostname, hourMs) { return `${hostname}@${new Date(hourMs).toISOString()}`; }
function bucketOf(event) {
  const hour = hourOf(event.time.getTime());
  return { _id: bucketId(event.tags.hostname, hour), hour: new Date(hour), tags: event.tags };
}
// What a bucket's events array holds for an event: the event minus its tags.
function bucketEntry(event) {
  const { tags, ...rest } = event; // eslint-disable-line no-unused-vars
  return rest;
}
// Back from a bucket to its events (the inverse of bucketEntry).
function eventsOfBucket(bucket) {
  return bucket.events.map((e) => {
    const { time, ...fields } = e;
    return { time, tags: bucket.tags, ...fields };
  });
}

// Bucket form: one document per host and hour holding that hour's events,
// hour by hour, host by host. Memory is O(hosts + one bucket).
function* buckets(options) {
  const o = normaliseOptions(options);
  const hosts = o.hostIds.map((h) => ({ tags: Object.freeze(hostTags(o.seed, h)), walk: new HostWalk(o.seed, h) }));
  let k = 0;
  while (k < o.ticks) {
    const hour = hourOf(o.startMs + k * o.intervalMs);
    let kEnd = k;
    while (kEnd < o.ticks && o.startMs + kEnd * o.intervalMs < hour + HOUR_MS) kEnd++;
    for (const h of hosts) {
      const list = [];
      for (let j = k; j < kEnd; j++) list.push(bucketEntry(makeEvent(o.startMs + j * o.intervalMs, h.tags, h.walk)));
      yield { _id: bucketId(h.tags.hostname, hour), hour: new Date(hour), tags: h.tags, events: list };
    }
    k = kEnd;
  }
}

// The canonical JSON text of an event or bucket: key order is fixed by
// construction and Dates serialise as ISO 8601 with milliseconds, so the
// same seed gives the same bytes.
const toJson = (doc) => JSON.stringify(doc);

module.exports = {
  events, buckets, hostTags, hostsOfClient, normaliseOptions, bucketOf, bucketEntry, bucketId, hourOf,
  eventsOfBucket, toJson, TAG_NAMES, FIELD_NAMES, DEFAULTS,
};
