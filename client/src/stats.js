'use strict';
// Latency bookkeeping in HdrHistograms (microseconds), so per-client
// results can be merged exactly by decoding and adding the histograms.
const hdr = require('hdr-histogram-js');

const HISTOGRAM_OPTIONS = {
  lowestDiscernibleValue: 1, // 1 us
  highestTrackableValue: 3600 * 1e6, // 1 h
  numberOfSignificantValueDigits: 3,
  useWebAssembly: false,
};

const newHistogram = () => hdr.build(HISTOGRAM_OPTIONS);

const PERCENTILES = { p50: 50, p90: 90, p99: 99, p999: 99.9 };

// {p50, p90, p99, p999, max} in milliseconds (null when nothing was recorded).
// getValueAtPercentile answers the top of the value's bucket (3 significant digits), maxValue the exact
// largest value recorded: a p99.9 in the top bucket read 14.007 ms beside a max of 14.005 ms. No
// percentile is above the largest value, so each is capped at it.
function summarize(h) {
  const out = {};
  for (const [name, p] of Object.entries(PERCENTILES)) {
    out[name] = h.totalCount ? Math.min(h.getValueAtPercentile(p), h.maxValue) / 1000 : null;
  }
  out.max = h.totalCount ? h.maxValue / 1000 : null;
  return out;
}

class LatencyRecorder {
  constructor() {
    this.latency = newHistogram(); // completion - intended start
    this.service = newHistogram(); // completion - handed to the driver
    this.startLag = newHistogram(); // handed to the driver - intended start
    // handed to the driver - max(intended start, previous insert settled):
    // the client's own lateness, without the wait behind the insert before
    // (start lag = that wait + this).
    this.schedulerLag = newHistogram();
  }

  static toUs(ns) {
    return Math.min(HISTOGRAM_OPTIONS.highestTrackableValue, Math.max(1, Math.round(ns / 1000)));
  }

  recordStart(lagNs, schedulerLagNs) {
    this.startLag.recordValue(LatencyRecorder.toUs(lagNs));
    this.schedulerLag.recordValue(LatencyRecorder.toUs(schedulerLagNs));
  }

  recordDone(latencyNs, serviceNs) {
    this.latency.recordValue(LatencyRecorder.toUs(latencyNs));
    this.service.recordValue(LatencyRecorder.toUs(serviceNs));
  }

  summaries() {
    return {
      latency_ms: summarize(this.latency),
      service_ms: summarize(this.service),
      start_lag_ms: summarize(this.startLag),
      scheduler_lag_ms: summarize(this.schedulerLag),
    };
  }

  encoded() {
    return {
      latency_us: hdr.encodeIntoCompressedBase64(this.latency),
      service_us: hdr.encodeIntoCompressedBase64(this.service),
      start_lag_us: hdr.encodeIntoCompressedBase64(this.startLag),
      scheduler_lag_us: hdr.encodeIntoCompressedBase64(this.schedulerLag),
    };
  }
}

module.exports = { LatencyRecorder, summarize, newHistogram };
