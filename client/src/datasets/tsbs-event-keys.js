'use strict';
// The (host, time) of every event of a tsbs-devops data set, in events()
// order, without drawing a single value: what a test or a load check counts
// back from a database (per event or per bucket) after ingest. Pure
// arithmetic on the normalised options, so it can never disagree with the
// generator about which events exist.
const { normaliseOptions, hourOf, bucketId } = require('./tsbs-devops');

// {hostname, hostId, time (ISO text, as the JSON carries it), timeMs}.
function* eventKeys(options) {
  const o = normaliseOptions(options);
  for (let k = 0; k < o.ticks; k++) {
    const timeMs = o.startMs + k * o.intervalMs;
    const time = new Date(timeMs).toISOString();
    for (const h of o.hostIds) yield { hostname: `host_${h}`, hostId: h, time, timeMs };
  }
}

function eventCount(options) {
  const o = normaliseOptions(options);
  return o.ticks * o.hostIds.length;
}

// Map bucket _id -> number of events it holds once the ingest is complete.
function bucketCounts(options) {
  const o = normaliseOptions(options);
  const counts = new Map();
  for (let k = 0; k < o.ticks; k++) {
    const hour = hourOf(o.startMs + k * o.intervalMs);
    for (const h of o.hostIds) {
      const id = bucketId(`host_${h}`, hour);
      counts.set(id, (counts.get(id) || 0) + 1);
    }
  }
  return counts;
}

module.exports = { eventKeys, eventCount, bucketCounts };
