'use strict';
// FIT against XL on the MongoDB stand-in SecantusDB (ycsb-c-fit/ and ycsb-c-xl/ at CI scale,
// client/test/helpers/fit-xl.js): WiredTiger's cache 8 MiB for the files' 256, the records scaled
// alike (1,563 and 31,250 documents of 10 x 100 B). SecantusDB keeps no WiredTiger bytes-read
// counter: the figure is the server process's /proc/<pid>/io as the lab's probe reads it
// (runs[].read_io.server.server_process_read, lab/driver/cgroup_processes.py process_counters), around
// the run stage. This host's page cache is not limited as the lab's container memory limits it, so
// the data files' pages are dropped from it just before the run (posix_fadvise DONTNEED; a cold page
// cache, where the lab's run starts warm): then a read that misses WiredTiger's cache is a storage
// read. Data within the cache misses it hardly at all; data ~5x the cache misses it on a share of the
// reads: read_bytes and rchar per read must be several times FIT's.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');

const CLIENT_DIR = path.resolve(__dirname, '../../../../client');
const { startSecantus } = require(path.join(CLIENT_DIR, 'test/helpers/secantus-server'));
const { processCounters: counters, dropPageCache } = require(path.join(CLIENT_DIR, 'test/helpers/process-io'));
const { readBytesPerOp } = require(path.join(CLIENT_DIR, 'test/helpers/fit-xl'));

const CACHE_MB = 8;

test('SecantusDB: the server process\'s read I/O per read, ycsb-c-xl many times ycsb-c-fit (cache 8 MiB)', { timeout: 900000 }, async (t) => {
  const got = {};
  for (const bench of ['ycsb-c-fit', 'ycsb-c-xl']) {
    const db = await startSecantus({ args: ['--cache-size', `${CACHE_MB}M`] });
    let a;
    try {
      got[bench] = await readBytesPerOp({
        uri: db.uri,
        bench,
        cacheMb: CACHE_MB,
        bytes: () => 0, // no server counter: the kernel's reading below
        beforeRun: () => { dropPageCache(path.join(db.dir, 'data')); a = counters(db.pid); },
        afterRun: () => {
          const b = counters(db.pid);
          return { read_bytes: b.read_bytes - a.read_bytes, rchar: b.rchar - a.rchar };
        },
      });
    } finally {
      await db.cleanup();
    }
    got[bench].readBytesPerOp = got[bench].read_bytes / got[bench].reads;
    got[bench].rcharPerOp = got[bench].rchar / got[bench].reads;
  }
  const fit = got['ycsb-c-fit'];
  const xl = got['ycsb-c-xl'];
  t.diagnostic(`server process per read: read_bytes FIT ${fit.readBytesPerOp.toFixed(1)} B, XL ${xl.readBytesPerOp.toFixed(1)} B; `
    + `rchar FIT ${fit.rcharPerOp.toFixed(1)} B, XL ${xl.rcharPerOp.toFixed(1)} B (${JSON.stringify(got)})`);
  assert.ok(xl.readBytesPerOp >= 1024, `XL reads at least 1 kB per read from storage (${xl.readBytesPerOp})`);
  assert.ok(xl.readBytesPerOp >= 4 * fit.readBytesPerOp, `XL (${xl.readBytesPerOp} B/read) several times FIT (${fit.readBytesPerOp} B/read)`);
  assert.ok(xl.rcharPerOp >= 4 * fit.rcharPerOp, `rchar: XL (${xl.rcharPerOp}) several times FIT (${fit.rcharPerOp})`);
});
