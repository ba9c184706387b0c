'use strict';
// The open-loop load: operations are due on an absolute schedule, sent one
// at a time on one connection, and every operation ends up exactly once as
// ok, error or dropped, counted per operation type. The loop never slows the
// schedule down. Rate 0 (the ycsb load stage's LOAD_RATE=0) is a closed
// loop instead: each operation as soon as the previous one settled, its
// intended start being its hand-off (latency = service time), never dropped.
// What an operation is comes from the workload (workloads/), which names no
// database; the runner names neither.
const { Schedule, queueBound } = require('./schedule');
const { LatencyRecorder } = require('./stats');
const { OpStats, timelineResult } = require('./op-stats');

const now = () => process.hrtime.bigint();

// Longest a stop signal waits for the in-flight insert before the result is
// written anyway (a frozen server must not hang the client).
const STOP_GRACE_MS = 15000;

// Waits up to this long block in Atomics.wait; longer ones first sleep on a
// timer armed to end at least TIMER_MARGIN_NS early (a timer fires up to
// ~1 ms late, and up to ~1 ms early, so what is left is at most ~3.5 ms).
const BLOCK_MAX_NS = 4e6;
const TIMER_MARGIN_NS = 1.5e6;
// Never notified: Atomics.wait on it is a plain timed sleep.
const SLEEP_CELL = new Int32Array(new SharedArrayBuffer(4));
// Blocks the thread for `ns` (sub-millisecond precision, no spinning).
const blockFor = (ns) => Atomics.wait(SLEEP_CELL, 0, 0, ns / 1e6);

class Runner {
  // target: connected, prepared target (reconnects); workload: workloads/
  // (opNames, total, rate, typeOf(i), build(i), exec(op, target), acknowledge(op));
  // opts: parsed run options; log(line): progress output; label: how
  // progress names the server; describe: extra result fields (workload, stage...).
  // lanes (optional): more connected targets beside `target`; then up to 1 + lanes.length
  // operations are in flight at once, each on its own connection (runLanes).
  constructor({ target, workload, opts, metrics, log, label, describe = {}, lanes = [] }) {
    Object.assign(this, { target, workload, opts, metrics, log, label, describe });
    // A lane: one connection and when its previous operation settled (or its reconnect ended).
    this.lanes = [target, ...lanes].map((t) => ({ target: t, freeNs: 0, busy: false }));
    this.total = workload.total;
    this.rate = workload.rate;
    this.closedLoop = workload.rate === 0;
    this.schedule = this.closedLoop ? null : new Schedule(workload.rate, workload.total);
    // A query phase's K executions all run, late if need be (workload.neverDrop).
    this.bound = this.closedLoop ? 0 : workload.neverDrop ? workload.total : queueBound(workload.rate);
    this.recorder = new LatencyRecorder();
    const single = workload.opNames.length === 1;
    this.stats = workload.opNames.map((name) => new OpStats(name, single ? this.recorder : null));
    this.timeline = new Map();
    this.opMetrics = metrics ? workload.opNames.map((name) => metrics.forOp(name)) : null;
    this.ok = 0;
    this.errors = 0;
    this.dropped = 0;
    this.next = 0; // next document index to send or drop
    this.reconnects = 0;
    this.gaveUp = null;
    this.stopping = false;
    this.interrupted = false;
    this.errorSamples = [];
    this.nextProgress = 1;
    this.wakers = new Set();
  }

  elapsedNs() {
    return Number(now() - this.t0);
  }

  // Sleep `ns` on a timer, or until stop() wakes us (reconnect backoff and
  // the bulk of long gaps in the schedule).
  // `cancel()` on the promise ends it early. With lanes several sleeps can be pending at once
  // (the schedule's and a lane's reconnect backoff): stop() wakes them all.
  sleep(ns) {
    let wake;
    const p = new Promise((resolve) => {
      const timer = setTimeout(resolve, Math.max(1, Math.floor(ns / 1e6)));
      wake = () => { clearTimeout(timer); resolve(); };
      this.wakers.add(wake);
    }).then(() => { this.wakers.delete(wake); });
    p.cancel = wake;
    return p;
  }

  // Wait until document `this.next` is due, `waitNs` from now.
  // A libuv timer counts whole milliseconds from a cached loop time, so it
  // fires anywhere up to ~1 ms early or late, and each wake-up runs the whole
  // event-loop turn (profiled here: ~50 us CPU per wake). So the last few
  // milliseconds are slept in a futex (Atomics.wait: sub-millisecond
  // timeout, ~15 us per wake, no spinning), and only longer gaps arm a timer
  // first, for whole milliseconds ending before the futex stretch. Nothing is
  // in flight while we wait (one insert at a time), so blocking the loop for
  // at most BLOCK_MAX_NS only delays a signal or a scrape by that much.
  waitForNext(waitNs) {
    if (waitNs <= BLOCK_MAX_NS) {
      blockFor(waitNs);
      return null;
    }
    return this.sleep(waitNs - TIMER_MARGIN_NS);
  }

  stop() {
    if (this.stopping) return;
    this.stopping = true;
    this.interrupted = true;
    for (const wake of [...this.wakers]) wake();
  }

  async run() {
    this.startedAt = new Date();
    this.t0 = now();
    this.t0Ms = this.startedAt.getTime();
    if (this.metrics) this.metrics.targetRate.set(this.rate);
    if (this.lanes.length > 1 && !this.closedLoop) return this.runLanes();
    const total = this.total;
    // workload.halted: the server refused the workload's form (a query phase ends `unsupported`).
    while (this.next < total && !this.stopping && !this.gaveUp && !this.workload.halted) {
      if (this.closedLoop) {
        await this.sendOne(this.next++);
        this.progress();
        continue;
      }
      const elapsed = this.elapsedNs();
      const due = this.schedule.dueCount(elapsed);
      if (this.next >= due) {
        const timer = this.waitForNext(this.schedule.intendedNs(this.next) - elapsed);
        if (timer) await timer;
        continue;
      }
      if (due - this.next > this.bound) this.drop(due - this.next - this.bound);
      await this.sendOne(this.next++);
      this.progress();
    }
    this.endNs = this.elapsedNs();
    this.endedAt = new Date();
    if (this.metrics) this.metrics.endPhase();
  }

  // The open loop over several connections: an operation due at t starts at t on a free lane,
  // whatever the operations before it are still doing (a transaction retrying with backoff holds
  // its own lane only). With every lane busy it waits (start lag) or, beyond the queue bound, is
  // dropped as in run(). While anything is in flight the wait is a timer (a blocking wait would
  // hold up the replies), so starts are up to ~1 ms late then.
  async runLanes() {
    const inFlight = new Set();
    const total = this.total;
    while (this.next < total && !this.stopping && !this.gaveUp && !this.workload.halted) {
      const elapsed = this.elapsedNs();
      const due = this.schedule.dueCount(elapsed);
      if (this.next >= due) {
        const waitNs = this.schedule.intendedNs(this.next) - elapsed;
        if (inFlight.size === 0) {
          const timer = this.waitForNext(waitNs);
          if (timer) await timer;
        } else {
          const nap = this.sleep(Math.max(1e6, waitNs));
          await Promise.race([nap, ...inFlight]);
          nap.cancel();
        }
        continue;
      }
      if (due - this.next > this.bound) this.drop(due - this.next - this.bound);
      const lane = this.lanes.find((l) => !l.busy);
      if (!lane) {
        await Promise.race(inFlight);
        continue;
      }
      lane.busy = true;
      const sent = this.sendOne(this.next++, lane).then(() => {
        lane.busy = false;
        inFlight.delete(sent);
        this.progress();
      });
      inFlight.add(sent);
    }
    await Promise.all(inFlight);
    this.endNs = this.elapsedNs();
    this.endedAt = new Date();
    if (this.metrics) this.metrics.endPhase();
  }

  // Oldest waiting documents go first: they are the latest already.
  drop(n) {
    this.dropped += n;
    for (let k = this.next; k < this.next + n; k++) {
      const t = this.workload.typeOf(k);
      this.stats[t].dropped++;
      if (this.opMetrics) this.opMetrics[t].dropped.inc();
    }
    this.next += n;
  }

  // Unix second of a moment `ns` after t0 (the timeline's bucket).
  secondOf(ns) {
    return Math.floor((this.t0Ms + ns / 1e6) / 1000);
  }

  async sendOne(i, lane = this.lanes[0]) {
    const w = this.workload;
    const t = w.typeOf(i);
    const st = this.stats[t];
    const op = w.build(i);
    const handed = this.elapsedNs();
    const intended = this.closedLoop ? handed : this.schedule.intendedNs(i);
    this.recorder.recordStart(handed - intended, handed - Math.max(intended, lane.freeNs));
    try {
      const docs = await w.exec(op, lane.target);
      const done = this.elapsedNs();
      lane.freeNs = done;
      this.ok++;
      st.ok++;
      // A read or scan resolves to the documents it returned; an insert to the driver's reply (one document).
      st.docs += typeof docs === 'number' ? docs : 1;
      w.acknowledge(op);
      const latencyUs = LatencyRecorder.toUs(done - intended);
      const serviceUs = LatencyRecorder.toUs(done - handed);
      this.recorder.latency.recordValue(latencyUs);
      this.recorder.service.recordValue(serviceUs);
      if (st.latency !== this.recorder.latency) {
        st.latency.recordValue(latencyUs);
        st.service.recordValue(serviceUs);
      }
      st.at(this.secondOf(done), this.timeline);
      st.secOk++;
      st.secLatency.recordValue(latencyUs);
      if (this.opMetrics) {
        const m = this.opMetrics[t];
        m.ok.inc();
        m.latency.observe((done - intended) / 1e9);
        m.service.observe((done - handed) / 1e9);
      }
    } catch (err) {
      this.errors++;
      st.errors++;
      st.at(this.secondOf(this.elapsedNs()), this.timeline);
      st.secErrors++;
      if (this.opMetrics) this.opMetrics[t].errors.inc();
      if (this.errorSamples.length < 5) this.errorSamples.push(`${st.name}: ${String(err.message || err)}`);
      if (lane.target.isConnectionLost(err)) await this.reconnect(err, lane.target);
      lane.freeNs = this.elapsedNs();
    }
  }

  // Reconnect with exponential backoff; inserts are not retried (a retry
  // could duplicate a sequence key). Documents falling due meanwhile wait
  // in the bounded queue or are dropped, so the schedule carries on.
  async reconnect(err, target = this.target) {
    const lostAt = this.elapsedNs();
    const limitNs = this.opts.reconnectTimeoutS * 1e9;
    this.log(`[client-${this.opts.clientId}] ${this.label}: connection lost (${err.message}); reconnecting`);
    let delayNs = 100e6;
    while (!this.stopping) {
      try {
        await target.reconnect();
        this.reconnects++;
        this.log(`[client-${this.opts.clientId}] ${this.label}: reconnected after ${((this.elapsedNs() - lostAt) / 1e9).toFixed(2)} s`);
        return;
      } catch (e) {
        const waited = this.elapsedNs() - lostAt;
        if (waited >= limitNs) {
          this.gaveUp = `no connection for ${(waited / 1e9).toFixed(1)} s (limit ${this.opts.reconnectTimeoutS} s): ${e.message}`;
          this.log(`[client-${this.opts.clientId}] ${this.label}: giving up: ${this.gaveUp}`);
          return;
        }
        await this.sleep(Math.min(delayNs, limitNs - waited));
        delayNs = Math.min(delayNs * 2, 5e9);
      }
    }
  }

  // A line every 10% of the operations (ok + errors + dropped).
  progress() {
    const settled = this.ok + this.errors + this.dropped;
    const total = this.total;
    if (settled * 10 < this.nextProgress * total) return;
    while (settled * 10 >= this.nextProgress * total) this.nextProgress++;
    const pct = Math.min(100, Math.floor((settled * 100) / total));
    const seconds = this.elapsedNs() / 1e9;
    // Only the two percentiles printed: each one scans its histogram, and at
    // high rates all eight (x4 histograms) stalled the loop ~3 ms.
    const p99 = (h) => (h.totalCount ? (h.getValueAtPercentile(99) / 1000).toFixed(2) : 'n/a');
    this.log(`[client-${this.opts.clientId}] ${this.label} (${pct}%) - Throughput: ${(this.ok / seconds).toFixed(2)} ${this.unit()}/sec`
      + ` - start lag p99: ${p99(this.recorder.startLag)} ms - latency p99: ${p99(this.recorder.latency)} ms`
      + (this.errors || this.dropped ? ` - errors: ${this.errors} - dropped: ${this.dropped}` : ''));
  }

  // What the progress and summary lines count: documents for inserts, else operations.
  unit() {
    return this.workload.opNames.length === 1 && this.workload.opNames[0] === 'insert' ? 'docs' : 'ops';
  }

  // The result document (docs/contracts.md §2).
  result({ server, database }) {
    const o = this.opts;
    const elapsedS = (this.endNs ?? this.elapsedNs()) / 1e9;
    const operations = {};
    for (const st of this.stats) operations[st.name] = st.result();
    const achieved = elapsedS > 0 ? this.ok / elapsedS : 0;
    return {
      bench: o.bench,
      database,
      server,
      key: o.key,
      layout: o.layout,
      key_format: o.keyFormat,
      durability: o.durability,
      fields: o.fields,
      field_bytes: o.fieldBytes,
      // the storage form of the generated documents (<NAME>_FORM, forms.js); other workloads keep their own tables
      ...(o.form && require('./workloads/registry').workload(o.workload || 'insert').documents ? { form: o.form } : {}),
      seed: o.seed,
      client_id: o.clientId,
      ...this.describe,
      // what only the end of the run knows (tsbs: host-hours ingested)
      ...(this.workload.resultFields ? this.workload.resultFields() : {}),
      target_rate: this.rate,
      docs_target: this.total,
      ops_target: this.total,
      docs_ok: this.ok,
      errors: this.errors,
      dropped: this.dropped,
      not_sent: this.total - this.ok - this.errors - this.dropped,
      queue_bound: this.bound,
      reconnects: this.reconnects,
      gave_up: this.gaveUp,
      error_samples: this.errorSamples,
      started_at: this.startedAt.toISOString(),
      ended_at: (this.endedAt || new Date()).toISOString(),
      elapsed_s: elapsedS,
      achieved_rate: achieved,
      target_sustained: this.dropped === 0 && !this.gaveUp,
      interrupted: this.interrupted,
      ...this.recorder.summaries(),
      histograms: this.recorder.encoded(),
      operations,
      timeline: timelineResult(this.timeline, this.stats),
      client: { node: process.version, pid: process.pid },
    };
  }
}

module.exports = { Runner, STOP_GRACE_MS, BLOCK_MAX_NS, TIMER_MARGIN_NS, blockFor };
