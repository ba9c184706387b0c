'use strict';
// The query workload (src/workloads/query.js) driven by the real runner against an in-process
// target that records what it is asked (a unit test: the database side is covered by
// test/integration/github-events-queries.test.js): exactly K executions, k = 0..K-1 in order, paced
// at QUERY_RATE on the runner's absolute schedule (a slow execution is late, never skipped), the
// same parameters on both databases, and the result's digests.
const test = require('node:test');
const assert = require('node:assert/strict');
const { QueryWorkload, formOf, digestOptionsFor } = require('../../src/workloads/query');
const { querySet, queryNames } = require('../../src/queries');
const { Runner } = require('../../src/runner');

const OPTS = {
  workload: 'events', seed: 9, events: 5000, repos: 100, actors: 200, skew: 1, clients: 1, clientId: '1',
  stage: 'query', reconnectTimeoutS: 1,
};

// Answers a fixed set of rows per form, after `delayMs`; records every form and when it came.
function recordingTarget(database, { delayMs = 0, rows = null, refuse = null } = {}) {
  return {
    database,
    calls: [],
    query(form) {
      this.calls.push({ form, at: process.hrtime.bigint() });
      if (refuse) return Promise.reject(Object.assign(new Error(refuse), { code: 238, codeName: 'NotImplemented' }));
      const answer = rows || [{ _id: 'a/b', repo: 'a/b', n: 3 }];
      return new Promise((r) => setTimeout(() => r(database === 'postgres' ? { rows: answer, fields: [] } : answer), delayMs));
    },
    isUnsupported: (err) => err.code === 238,
    isConnectionLost: () => false,
  };
}

async function runPhase(database, query, extra = {}, targetOpts = {}) {
  const target = recordingTarget(database, targetOpts);
  const opts = { ...OPTS, database, query, queryRuns: 5, queryRate: 0, ...extra };
  const w = new QueryWorkload({ target, opts });
  const r = new Runner({ target, workload: w, opts, log: () => {}, label: database });
  const t0 = Date.now();
  await r.run();
  return { target, w, res: r.result({ server: {}, database }), q: w.result(), ms: Date.now() - t0 };
}

test('the events set names exactly the query names, and querySet checks it', () => {
  assert.deepEqual(Object.keys(querySet('events').queries), queryNames('events'));
  assert.throws(() => querySet('nope'), /no query set for WORKLOAD=nope/);
});

test('exactly K executions, k = 0..K-1, one digest each; the result says back to back', async () => {
  const { target, res, q } = await runPhase('mongodb', 'olap-a', { queryRuns: 7 });
  assert.equal(target.calls.length, 7);
  assert.equal(res.docs_ok, 7);
  assert.equal(res.operations['olap-a'].ok, 7);
  assert.equal(res.dropped, 0);
  assert.deepEqual(q.per_execution.map((e) => e.k), [0, 1, 2, 3, 4, 5, 6]);
  assert.equal(q.executions, 7);
  assert.equal(q.status, 'ok');
  assert.match(q.digest, /^[0-9a-f]{64}$/);
  assert.match(q.paced, /back to back/);
});

test('paced at QUERY_RATE on an absolute schedule: execution k starts at k / rate; a slow one is late, not dropped', async () => {
  const { target, res } = await runPhase('postgres', 'olap-b', { queryRuns: 5, queryRate: 20 });
  const t = target.calls.map((c) => Number(c.at - target.calls[0].at) / 1e6);
  for (let k = 1; k < 5; k++) assert.ok(t[k] >= k * 50 - 2, `execution ${k} at ${t[k].toFixed(1)} ms, due at ${k * 50} ms`);
  assert.equal(res.docs_ok, 5);
  // executions slower than the schedule: all K still run (late), none dropped
  const slow = await runPhase('postgres', 'olap-b', { queryRuns: 4, queryRate: 50 }, { delayMs: 60 });
  assert.equal(slow.target.calls.length, 4);
  assert.equal(slow.res.dropped, 0);
  assert.equal(slow.res.docs_ok, 4);
  assert.ok(slow.res.latency_ms.max >= 60 + 2 * 40 - 5, `the late ones carry their lateness: ${slow.res.latency_ms.max} ms`);
});

test('the same parameters on both databases, from the seed, for every query and k', () => {
  const set = querySet('events');
  const data = set.dataOf(OPTS);
  for (const [name, def] of Object.entries(set.queries)) {
    for (let k = 0; k < 6; k++) {
      const a = formOf(def, data, 'mongodb', k);
      const b = formOf(def, data, 'postgres', k);
      assert.deepEqual(a.params, b.params, `${name} k=${k}`);
      assert.deepEqual(JSON.parse(JSON.stringify(a.params)), a.params);
      assert.ok(a.form.aggregate || a.form.find, `${name}: a MongoDB form`);
      assert.equal(typeof b.form.text, 'string');
    }
  }
  // olap-lookup's repository varies with k and with the seed (drawn from the generated events)
  const repos = new Set([0, 1, 2, 3, 4, 5, 6, 7].map((k) => set.queries['olap-lookup'].params(data, k).repo));
  assert.ok(repos.size > 1);
  const other = set.dataOf({ ...OPTS, seed: 10 });
  assert.notEqual(set.queries['olap-lookup'].params(other, 0).repo + set.queries['olap-lookup'].params(other, 1).repo,
    set.queries['olap-lookup'].params(data, 0).repo + set.queries['olap-lookup'].params(data, 1).repo);
});

test('MongoDB reads a group key from _id, PostgreSQL from its column: the same normalisation', () => {
  const def = querySet('events').queries['olap-a'];
  assert.deepEqual(digestOptionsFor(def.digest, 'mongodb').columns, { repo: '_id', n: 'n' });
  assert.deepEqual(digestOptionsFor(def.digest, 'postgres').columns, ['repo', 'n']);
});

test('a refusal ends the phase after the first execution: unsupported, the server\'s message kept', async () => {
  const { target, res, q } = await runPhase('mongodb', 'olap-lookup', { queryRuns: 5 }, { refuse: '`aggregate` stage "$lookup" is not implemented yet' });
  assert.equal(target.calls.length, 1);
  assert.equal(res.errors, 1);
  assert.equal(res.not_sent, 4);
  assert.equal(q.status, 'unsupported');
  assert.match(q.reason, /\$lookup/);
  assert.equal(q.digest, null);
});

test('DATASET: olap-lookup says it has no parameters without the generator', () => {
  const set = querySet('events');
  const data = set.dataOf({ ...OPTS, dataset: '/dataset/x.ndjson' });
  assert.throws(() => set.queries['olap-lookup'].params(data, 0), /with DATASET it has none/);
  assert.deepEqual(set.queries['olap-d'].params(data, 1).type, 'IssuesEvent');
});

test('WORKLOAD=events refuses KEY=sequence, naming the key and the allowed values', () => {
  const { validateBenchText } = require('../../src/bench-schema');
  assert.throws(() => validateBenchText('DESCRIPTION=x\nWORKLOAD=events\nKEY=sequence\nLAYOUT=heap\nCLIENTS=1\n', 'b.env'),
    /b\.env:3: KEY=sequence cannot be used with WORKLOAD=events.*allowed with events: uuidv7, uuidv4/);
});
