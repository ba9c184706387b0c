'use strict';
// The TSBS query set's module format (docs/contracts.md "Query sets") and its bench checks; the
// answers themselves are tested against the real databases (test/integration/tsbs-queries.test.js).
const test = require('node:test');
const assert = require('node:assert/strict');
const { queryNames, querySet } = require('../../src/queries');
// The set with every database's forms (databases/<name>/client/queries/tsbs.js).
const set = querySet('tsbs');
const { validateBenchText, InputError } = require('../../src/bench-schema');
const { queryParams } = require('../../src/datasets/tsbs-query-params');

const OPTS = { seed: 3, hosts: 10, start: '2016-01-01T00:00:00Z', intervalS: 10, spanS: 86400 };
const BENCH = 'DESCRIPTION=x\nWORKLOAD=tsbs\nKEY=uuidv7\nLAYOUT=clustered\nCLIENTS=2\nRATE=10\n'; // 6 lines

test('dataOf reads the client options (camelCase) and the bench values (KEY names) alike', () => {
  const fromOpts = set.dataOf({ ...OPTS, model: 'bucket', rate: 10 });
  const fromBench = set.dataOf(validateBenchText(`${BENCH}MODEL=bucket\nSEED=3\nSPAN_S=86400\nINTERVAL_S=10\n`, 'f'));
  assert.deepEqual(fromOpts, { seed: 3, hosts: 10, start: '2016-01-01T00:00:00Z', intervalSeconds: 10, spanSeconds: 86400, model: 'bucket' });
  assert.deepEqual(fromBench, fromOpts);
});

test('every query: about, JSON-able params equal to tsbs-query-params, both forms per model, digest columns', () => {
  assert.deepEqual(Object.keys(set.queries), queryNames('tsbs'));
  for (const model of ['event', 'bucket']) {
    const data = set.dataOf({ ...OPTS, model });
    for (const [name, def] of Object.entries(set.queries)) {
      assert.ok(def.about.length > 20, name);
      for (const k of [0, 7]) {
        const p = def.params(data, k);
        assert.deepEqual(JSON.parse(JSON.stringify(p)), p, `${name}: params are JSON`);
        assert.deepEqual(def.params(data, k), p, `${name}: params depend only on (data, k)`);
        const ref = queryParams({ seed: 3, hosts: 10, start: OPTS.start, intervalSeconds: 10, spanSeconds: 86400 }, name, k);
        assert.deepEqual(p.hostnames, ref.hostnames);
        assert.equal(p.to, ref.to && ref.to.toISOString());
        const m = def.mongodb(p, data);
        assert.ok(Array.isArray(m.aggregate) && m.aggregate.length > 0, name);
        assert.doesNotMatch(JSON.stringify(m), /undefined|null/, `${name}: no empty values in the pipeline`);
        const pg = def.postgres(p, data);
        assert.match(pg.text, /\bfrom jsonbench\b/);
        assert.equal((pg.text.match(/\$\d+/g) || []).reduce((a, x) => Math.max(a, Number(x.slice(1))), 0), pg.values.length, `${name}: placeholders = values`);
        assert.ok(!pg.values.some((v) => v === null || v === undefined), name);
      }
      const cols = Array.isArray(def.digest.columns) ? def.digest.columns : Object.keys(def.digest.columns);
      for (const [db, own] of Object.entries(def.digest.paths || {})) {
        for (const c of Object.keys(own)) assert.ok(cols.includes(c), `${name}: ${db}'s paths name a column`);
      }
      assert.ok((def.standinGaps || []).every((g) => /\$[A-Za-z]+/.test(g)), `${name}: each gap names an operator`);
    }
  }
});

test('the forms follow the model: events vs buckets (unwound), hour from the bucket', () => {
  const ev = set.dataOf({ ...OPTS, model: 'event' });
  const bu = set.dataOf({ ...OPTS, model: 'bucket' });
  const dg = set.queries['double-groupby-1'];
  const p = dg.params(ev, 0);
  assert.match(JSON.stringify(dg.mongodb(p, ev)), /"\$dateTrunc"/);
  assert.doesNotMatch(JSON.stringify(dg.mongodb(p, bu)), /"\$dateTrunc"/);
  assert.match(JSON.stringify(dg.mongodb(p, bu)), /"\$unwind":"\$events"/);
  assert.match(dg.postgres(p, bu).text, /jsonb_array_elements\(data -> 'events'\)/);
  assert.doesNotMatch(dg.postgres(p, ev).text, /jsonb_array_elements/);
  // Buckets from the hour of `from` on: the first bucket holds events of the window.
  const bucketHour = dg.postgres(p, bu).values[0];
  assert.equal(bucketHour, new Date(Date.parse(p.from) - (Date.parse(p.from) % 3600000)).toISOString());
  assert.deepEqual(set.indexes(ev).map((i) => i.name), ['jsonbench_host_time', 'jsonbench_time']);
  assert.deepEqual(set.indexes(bu).map((i) => i.name), ['jsonbench_host_hour', 'jsonbench_hour']);
  assert.deepEqual(set.indexes({ ...ev, model: 'native' }), [], 'init of a native ingest bench creates no query index');
  assert.throws(() => set.indexes({ ...ev, model: 'columns' }), /MODEL=columns has no query forms/);
});

test('bench checks: QUERIES with MODEL=native, too few hosts, too short a span are refused naming the key', () => {
  const refused = [
    ['MODEL=native\nSPAN_S=86400\nQUERIES=lastpoint\n', /f:7: MODEL=native has no TSBS query forms.*allowed: QUERIES=none/],
    ['HOSTS=4\nSPAN_S=86400\nQUERIES=all\n', /f:7: HOSTS=4 is fewer than the 8 hosts query single-groupby-1-8-1 picks; allowed: HOSTS >= 8/],
    ['QUERIES=double-groupby-1\n', /f: SPAN_S=3600 is shorter than the 12 h window of query double-groupby-1; allowed: SPAN_S >= 43200/],
  ];
  for (const [extra, re] of refused) assert.throws(() => validateBenchText(BENCH + extra, 'f'), (e) => e instanceof InputError && re.test(e.message), re);
  assert.deepEqual(validateBenchText(`${BENCH}MODEL=native\n`, 'f').QUERIES, []);
  assert.equal(validateBenchText(`${BENCH}MODEL=bucket\nSPAN_S=43200\nHOSTS=8\nQUERIES=all\n`, 'f').QUERIES.length, 13);
  assert.deepEqual(validateBenchText(`${BENCH}QUERIES=lastpoint single-groupby-1-1-1\n`, 'f').QUERIES, ['single-groupby-1-1-1', 'lastpoint']);
});
