'use strict';
// The OLTP mixes: sysbench's per-transaction proportions (10 point selects, one of each range
// query, one of each write) scaled to 95/5 and 50/50, exact over every block of operations.
const test = require('node:test');
const assert = require('node:assert/strict');
const { OltpWorkload } = require('../../src/workloads/oltp');

const opts = (mix) => ({
  ops: 1, rate: 1, seed: 1, clientId: '1', clients: 1, retry: 'backoff', maxAttempts: 3, isolation: 'read-committed', oltpMix: mix, tableRows: 1000,
});

for (const [mix, reads] of [['95/5', 95], ['50/50', 50]]) {
  test(`OLTP_MIX=${mix}: reads ${reads}% (10:1:1:1:1), writes ${100 - reads}% (1:1:1) over a block`, () => {
    const w = new OltpWorkload({ target: { database: 'postgres' }, opts: opts(mix) });
    const n = w.mix.size * 2;
    const counts = {};
    for (let i = 0; i < n; i++) counts[w.opNames[w.typeOf(i)]] = (counts[w.opNames[w.typeOf(i)]] || 0) + 1;
    const readN = ['point-select', 'simple-range', 'sum-range', 'order-range', 'distinct-range'].reduce((a, k) => a + counts[k], 0);
    assert.equal(readN / n, reads / 100);
    assert.equal(counts['point-select'], 10 * counts['sum-range']);
    assert.equal(counts['simple-range'], counts['distinct-range']);
    assert.equal(counts['index-update'], counts['delete-insert']);
    const op = w.build(5);
    assert.ok(op.id >= 1 && op.id <= 1000 && op.hi - op.lo === 99 && op.hi <= 1000);
    assert.deepEqual(w.build(5), op); // a function of (seed, client, i)
  });
}
