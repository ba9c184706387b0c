'use strict';
// Per operation type: counts, latency histograms and the per-second timeline
// (docs/contracts.md §2 `operations`, `timeline`). Histograms are HDR in
// microseconds, encoded as the top-level ones, so analysis merges them
// exactly across clients; a second's histogram is encoded when the second
// is over and the histogram reused, so a long run holds only short strings.
const hdr = require('hdr-histogram-js');
const { newHistogram, summarize } = require('./stats');

class OpStats {
  // shared: { latency, service } histograms to record into instead of own
  // ones (the insert workload's only operation shares the top-level ones,
  // so nothing is recorded twice on the hot path).
  constructor(name, shared = null) {
    this.name = name;
    this.ok = 0;
    this.errors = 0;
    this.dropped = 0;
    this.docs = 0;
    this.latency = shared ? shared.latency : newHistogram();
    this.service = shared ? shared.service : newHistogram();
    this.second = -1; // unix second being collected
    this.secOk = 0;
    this.secErrors = 0;
    this.secLatency = newHistogram();
  }

  // The second a settled operation belongs to; flushes the previous one.
  at(second, timeline) {
    if (second === this.second) return;
    this.flush(timeline);
    this.second = second;
  }

  flush(timeline) {
    if (this.second < 0 || (this.secOk === 0 && this.secErrors === 0)) return;
    let entry = timeline.get(this.second);
    if (!entry) { entry = {}; timeline.set(this.second, entry); }
    entry[this.name] = {
      ok: this.secOk,
      errors: this.secErrors,
      latency_us: hdr.encodeIntoCompressedBase64(this.secLatency),
    };
    this.secOk = 0;
    this.secErrors = 0;
    this.secLatency.reset();
  }

  result() {
    const latency = summarize(this.latency);
    latency.mean = this.latency.totalCount ? this.latency.mean / 1000 : null;
    return {
      ok: this.ok,
      errors: this.errors,
      dropped: this.dropped,
      docs: this.docs,
      latency_ms: latency,
      histograms: {
        latency_us: hdr.encodeIntoCompressedBase64(this.latency),
        service_us: hdr.encodeIntoCompressedBase64(this.service),
      },
    };
  }
}

// { interval_s: 1, seconds: [{ t, ops: { op: { ok, errors, latency_us } } }] } in time order.
function timelineResult(timeline, stats) {
  for (const s of stats) s.flush(timeline);
  const seconds = [...timeline.keys()].sort((a, b) => a - b).map((t) => ({ t, ops: timeline.get(t) }));
  return { interval_s: 1, seconds };
}

module.exports = { OpStats, timelineResult };
