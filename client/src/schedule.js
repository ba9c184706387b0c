'use strict';
// Open-loop schedule arithmetic. Document i is due at t0 + i/rate on an
// absolute timeline: intended times never depend on when earlier inserts
// finished, so a slow database cannot slow the offered load down.
// Times are nanoseconds since t0 as Numbers (exact to 2^53 ns, 104 days).

class Schedule {
  constructor(rate, total) {
    this.rate = rate;
    this.total = total;
    this.nsPerDoc = 1e9 / rate;
  }

  intendedNs(i) {
    return Math.round(i * this.nsPerDoc);
  }

  // How many documents are due at `elapsedNs` (intended time <= elapsed).
  dueCount(elapsedNs) {
    if (elapsedNs < 0) return 0;
    let k = Math.min(this.total, Math.floor(elapsedNs / this.nsPerDoc) + 1);
    // Settle float rounding at the boundary so dueCount agrees with intendedNs.
    while (k < this.total && this.intendedNs(k) <= elapsedNs) k++;
    while (k > 0 && this.intendedNs(k - 1) > elapsedNs) k--;
    return k;
  }
}

// Due inserts may wait in the client for about one second of load (at
// least 100); beyond that the database is not keeping up and the oldest
// waiting documents are dropped and counted.
function queueBound(rate) {
  return Math.max(Math.ceil(rate), 100);
}

module.exports = { Schedule, queueBound };
