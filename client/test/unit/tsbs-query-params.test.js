'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { queryParams, QUERY_TYPES } = require('../../src/datasets/tsbs-query-params');

const DATA = { seed: 3, hosts: 20, intervalSeconds: 10, spanSeconds: 24 * 3600 };
const START = Date.parse('2016-01-01T00:00:00Z');

test('execution k gets the same parameters every time, whatever ran before; k and seed change them', () => {
  const a = queryParams(DATA, 'single-groupby-1-8-1', 5);
  queryParams(DATA, 'single-groupby-1-8-1', 4);
  assert.deepEqual(queryParams(DATA, 'single-groupby-1-8-1', 5), a);
  const others = [0, 1, 2, 3].map((k) => JSON.stringify(queryParams(DATA, 'single-groupby-1-8-1', k)));
  assert.ok(new Set([...others, JSON.stringify(a)]).size === 5);
  assert.notDeepEqual(queryParams({ ...DATA, seed: 4 }, 'single-groupby-1-8-1', 5), a);
});

test('hosts distinct, in range, sorted; windows inside the span on whole seconds', () => {
  for (const [name, q] of Object.entries(QUERY_TYPES)) {
    for (let k = 0; k < 200; k++) {
      const p = queryParams(DATA, name, k);
      assert.equal(p.metrics.length, q.metrics);
      if (q.hosts) {
        assert.equal(new Set(p.hostnames).size, q.hosts);
        const ids = p.hostnames.map((h) => Number(h.slice(5)));
        assert.deepEqual(ids, [...ids].sort((x, y) => x - y));
        assert.ok(ids.every((i) => i >= 0 && i < 20));
      } else assert.equal(p.hostnames, null);
      if (q.windowMs === null) { assert.equal(p.to, null); continue; }
      const to = p.to.getTime();
      assert.ok(to % 1000 === 0 && to <= START + 24 * 3600e3);
      if (q.windowMs) {
        assert.equal(to - p.from.getTime(), q.windowMs);
        assert.ok(p.from.getTime() >= START);
      } else assert.equal(p.from, null);
    }
  }
});

test('windows cover the span (first and last hour both drawn)', () => {
  const froms = Array.from({ length: 2000 }, (_, k) => queryParams(DATA, 'single-groupby-1-1-1', k).from.getTime() - START);
  assert.ok(Math.min(...froms) < 3600e3 && Math.max(...froms) > 22 * 3600e3);
});

test('bad input names the key', () => {
  assert.throws(() => queryParams(DATA, 'single-groupby-9', 0), /queryType="single-groupby-9" .*one of single-groupby-1-1-1/);
  assert.throws(() => queryParams(DATA, 'lastpoint', -1), /index=-1/);
  assert.throws(() => queryParams({ ...DATA, hosts: 4 }, 'single-groupby-1-8-1', 0), /hosts=4 .*>= 8/);
  assert.throws(() => queryParams({ ...DATA, spanSeconds: 3600 }, 'double-groupby-1', 0), /spanSeconds=3600 .*>= 43200/);
});
