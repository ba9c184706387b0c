'use strict';
// FIT against XL on a real MySQL (ycsb-c-fit/ and ycsb-c-xl/ at CI scale, client/test/helpers/fit-xl.js):
// an 8 MiB buffer pool for the files' 256 (one instance of one 8 MiB chunk, as databases/mysql/lab.py
// sizes CACHE_MB), the records scaled alike (1,563 and 31,250 documents of 10 x 100 B: ~2 kB each
// in InnoDB), and the page cleaner's free-page target scaled with it (innodb_lru_scan_depth 100, its
// minimum, for the default 1,024: at 256 MiB that keeps 6% of the pool free, at 8 MiB it would keep
// it all). InnoDB reads
// with O_DIRECT: Innodb_data_read is storage reads, and the kernel's read_bytes of the container's
// processes (the probe's /proc/<pid>/io) must say the same. Data several times the pool must read many times
// FIT's bytes per read. 70-95 s here (the machine shared).
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');
const { CLIENT_DIR } = require('./deps');
const { startMysql, unavailable, IMAGE } = require('./mysql-server');

const { readBytesPerOp } = require(path.join(CLIENT_DIR, 'test/helpers/fit-xl'));
const { containerIo, ioDelta } = require(path.join(CLIENT_DIR, 'test/helpers/container-io'));

const CACHE_MB = 8;
const dataRead = (a, b) => b.innodb_data_read_bytes - a.innodb_data_read_bytes;

test(`MySQL (${IMAGE}): read I/O per read, ycsb-c-xl many times ycsb-c-fit (8 MiB buffer pool)`, { skip: unavailable(), timeout: 900000 }, async (t) => {
  const got = {};
  for (const bench of ['ycsb-c-fit', 'ycsb-c-xl']) {
    const db = await startMysql({ durability: 'relaxed', bufferPoolMb: CACHE_MB, args: ['--innodb-lru-scan-depth=100'] });
    try {
      const [[pool]] = await db.query('SELECT @@innodb_buffer_pool_size');
      assert.equal(Number(pool), CACHE_MB * 1024 * 1024);
      let io0;
      got[bench] = await readBytesPerOp({
        uri: db.uri, bench, cacheMb: CACHE_MB,
        bytes: (a, b) => dataRead(a, b),
        // the kernel's reading brackets the same run stage (just inside the server's readings)
        beforeRun: () => { io0 = containerIo(db.id); },
        afterRun: () => ({ kernelReadBytes: ioDelta(io0, containerIo(db.id), 'read_bytes') }),
      });
    } finally {
      await db.cleanup();
    }
  }
  const fit = got['ycsb-c-fit'];
  const xl = got['ycsb-c-xl'];
  t.diagnostic(`Innodb_data_read per read: FIT ${fit.perOp.toFixed(1)} B, XL ${xl.perOp.toFixed(1)} B; /proc/<pid>/io read_bytes `
    + `per read: FIT ${(fit.kernelReadBytes / fit.reads).toFixed(1)} B, XL ${(xl.kernelReadBytes / xl.reads).toFixed(1)} B (${JSON.stringify(got)})`);
  assert.ok(xl.perOp >= 2048, `XL reads at least 2 kB per read from storage (${xl.perOp})`);
  assert.ok(xl.perOp >= 4 * fit.perOp, `XL (${xl.perOp} B/read) several times FIT (${fit.perOp} B/read)`);
  // O_DIRECT: the kernel's storage reads and the server's bytes agree (the readings' own statements aside)
  for (const r of [fit, xl]) assert.ok(Math.abs(r.kernelReadBytes - r.bytes) <= 0.1 * r.bytes + 1024 * 1024, JSON.stringify(r));
});
