'use strict';
// The Runner's open loop over several connections (runLanes, every run with SESSIONS > 1): an
// operation due starts on a free lane while earlier ones are still in flight, never two at once on
// one lane, never before its intended start; with every lane busy past the queue bound the oldest
// due operations are dropped, each counted once; a lost connection is reconnected on its own lane
// while the others carry on. The lanes here are in-process stand-ins whose operations end when the
// test says (real databases: the booking integration tests' SESSIONS runs).
const test = require('node:test');
const assert = require('node:assert/strict');
const { Runner } = require('../../src/runner');
const { queueBound } = require('../../src/schedule');

// A lane: a connection stand-in that records what ran on it and when it reconnected.
function lane(name) {
  return {
    name, running: 0, maxRunning: 0, reconnects: 0, isConnectionLost: (err) => Boolean(err && err.lost), async reconnect() { this.reconnects++; },
  };
}

// A one-operation workload whose operation i ends when finish(i) returns a promise that resolves.
function gatedWorkload(total, rate, finish) {
  const w = {
    opNames: ['booking'],
    total,
    rate,
    started: [], // [i, lane name, elapsed ns at hand-over, operations in flight then]
    inFlight: 0,
    maxInFlight: 0,
    typeOf: () => 0,
    build: (i) => i,
    async exec(i, target) {
      w.inFlight++;
      target.running++;
      w.maxInFlight = Math.max(w.maxInFlight, w.inFlight);
      target.maxRunning = Math.max(target.maxRunning, target.running);
      w.started.push([i, target.name, w.runner.elapsedNs(), w.inFlight]);
      try {
        await finish(i, target);
        return 1;
      } finally {
        w.inFlight--;
        target.running--;
      }
    },
    acknowledge() {},
  };
  return w;
}

function runnerOf(workload, lanes) {
  const runner = new Runner({
    target: lanes[0], lanes: lanes.slice(1), workload, opts: { clientId: 't', reconnectTimeoutS: 5 }, metrics: null, log: () => {}, label: 'test',
  });
  workload.runner = runner;
  return runner;
}

test('each operation starts when due on a free lane while the one before is still in flight', async () => {
  // operation i ends only once i + 1 has started (the last at once): with one connection this would
  // never end; with three, every operation overlaps the next
  const begun = new Map();
  const started = (i) => {
    if (!begun.has(i)) { let r; begun.set(i, { p: new Promise((res) => { r = res; }), r }); }
    return begun.get(i);
  };
  const total = 60;
  const lanes = [lane('a'), lane('b'), lane('c')];
  const w = gatedWorkload(total, 400, async (i) => {
    started(i).r();
    if (i + 1 < total) await started(i + 1).p;
  });
  const runner = runnerOf(w, lanes);
  await runner.run();
  const r = runner.result({ server: {}, database: 'postgres' });
  assert.deepEqual([r.docs_ok, r.errors, r.dropped, r.not_sent], [total, 0, 0, 0]);
  assert.deepEqual(w.started.map(([i]) => i), Array.from({ length: total }, (_, i) => i), 'in order, each once');
  for (const [i, , ns] of w.started) {
    assert.ok(ns >= runner.schedule.intendedNs(i), `operation ${i} handed over ${ns} ns, intended ${runner.schedule.intendedNs(i)}`);
  }
  assert.ok(w.started.slice(1).every(([, , , n]) => n >= 2), 'every operation after the first started beside the one before');
  assert.ok(w.maxInFlight <= lanes.length, `${w.maxInFlight} in flight on ${lanes.length} lanes`);
  // (a lane may stay unused: each operation ends once the next has started, so two can carry them)
  for (const l of lanes) assert.ok(l.maxRunning <= 1, `lane ${l.name} ran two operations at once`);
  // consecutive operations never share a lane (the one before still holds its own)
  assert.ok(w.started.slice(1).every(([, name], k) => name !== w.started[k][1]));
});

test('every lane busy past the queue bound: the oldest due operations are dropped, each counted once', async () => {
  const rate = 200;
  const bound = queueBound(rate);
  const total = bound + 60;
  let release;
  const gate = new Promise((r) => { release = r; });
  const lanes = [lane('a'), lane('b')];
  const w = gatedWorkload(total, rate, () => gate);
  const runner = runnerOf(w, lanes);
  const running = runner.run();
  // hold both lanes until every operation is due (then the loop, waiting for a lane, has dropped none yet)
  while (w.started.length < 2 || runner.elapsedNs() < runner.schedule.intendedNs(total - 1)) {
    await new Promise((r) => { setTimeout(r, 5); });
  }
  assert.equal(runner.dropped, 0);
  release();
  await running;
  const r = runner.result({ server: {}, database: 'postgres' });
  // 2 in flight, then `bound` of the 58 waiting kept, the oldest 58 - bound... of them dropped
  assert.deepEqual([r.docs_ok, r.dropped, r.errors, r.not_sent], [2 + bound, total - 2 - bound, 0, 0]);
  assert.equal(r.operations.booking.dropped, total - 2 - bound);
  const sent = w.started.map(([i]) => i);
  assert.deepEqual(sent, [0, 1, ...Array.from({ length: bound }, (_, k) => total - bound + k)], 'the newest kept, in order');
  assert.equal(r.target_sustained, false);
});

test('a lost connection is reconnected on its own lane; the other lanes carry on; the operation is not retried', async () => {
  const lanes = [lane('a'), lane('b'), lane('c')];
  let lostOn = null;
  const w = gatedWorkload(30, 300, async (i, target) => {
    await new Promise((r) => { setTimeout(r, 4); });
    if (i === 7) {
      lostOn = target;
      throw Object.assign(new Error('connection lost'), { lost: true });
    }
  });
  const runner = runnerOf(w, lanes);
  await runner.run();
  const r = runner.result({ server: {}, database: 'postgres' });
  assert.deepEqual([r.docs_ok, r.errors, r.dropped, r.reconnects], [29, 1, 0, 1]);
  assert.equal(lostOn.reconnects, 1);
  assert.deepEqual(lanes.filter((l) => l !== lostOn).map((l) => l.reconnects), [0, 0]);
  assert.equal(w.started.filter(([i]) => i === 7).length, 1, 'operation 7 ran once');
  assert.match(r.error_samples[0], /booking: connection lost/);
});
