'use strict';
// FIT against XL on a real PostgreSQL (ycsb-c-fit/ and ycsb-c-xl/ at CI scale, client/test/helpers/fit-xl.js):
// shared_buffers 16 MiB for the files' 256, the records scaled alike (3,125 and 62,500 documents of
// 10 x 100 B). Data within the cache misses it hardly at all; data ~5x the cache misses it on a
// share of the reads: blks_read x block_size per read must be several times FIT's. About 30 s.
const test = require('node:test');
const assert = require('node:assert/strict');
const { startPostgres } = require('../helpers/postgres-server');
const { readBytesPerOp } = require('../helpers/fit-xl');

const CACHE_MB = 16;
const blksRead = (a, b) => (b.blks_read - a.blks_read) * b.block_size_bytes;

test('PostgreSQL: read I/O per read, ycsb-c-xl many times ycsb-c-fit (shared_buffers 16 MiB)', { timeout: 600000 }, async (t) => {
  const got = {};
  for (const bench of ['ycsb-c-fit', 'ycsb-c-xl']) {
    const pg = await startPostgres({ args: ['-c', `shared_buffers=${CACHE_MB}MB`] });
    try {
      got[bench] = await readBytesPerOp({ uri: pg.uri, bench, cacheMb: CACHE_MB, bytes: blksRead });
    } finally {
      await pg.cleanup();
    }
  }
  const fit = got['ycsb-c-fit'].perOp;
  const xl = got['ycsb-c-xl'].perOp;
  t.diagnostic(`blks_read x block_size per read: FIT ${fit.toFixed(1)} B, XL ${xl.toFixed(1)} B (${JSON.stringify(got)})`);
  assert.ok(xl >= 2048, `XL reads at least 2 kB per read from outside shared_buffers (${xl})`);
  assert.ok(xl >= 4 * fit, `XL (${xl} B/read) several times FIT (${fit} B/read)`);
});
