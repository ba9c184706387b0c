'use strict';
// MongoDB's read I/O on the stand-in SecantusDB (runs[].read_io.server.server_process_read,
// analysis/figures/read_io.py): SecantusDB keeps no WiredTiger bytes-read counter, so the figure is
// the server process's /proc/<pid>/io read_bytes, read as the lab's probe reads it
// (lab/driver/cgroup_processes.py process_counters). Held against an independent reading: a
// collection of incompressible documents, several times WiredTiger's cache (8 MiB here), is written,
// the server restarted (its cache empty; with a cache larger than the data SecantusDB reads the
// whole collection at start) and the data files' pages dropped from the OS page cache
// (posix_fadvise DONTNEED), so a full scan must fetch the collection's file from storage: read_bytes
// moves by at least the bytes the collection file holds on disk less the cache's size and by not much
// more than the whole data folder. A second scan finds the file in the page cache: rchar moves by about as much again,
// read_bytes by almost nothing (what read_bytes counts: storage reads, not the server's cache misses). The process's name
// is the manifest's stand-in server process (databases/mongodb/database.json standin.processes), the
// name the analysis picks the server's process by.
const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');
const CLIENT_DIR = path.resolve(__dirname, '../../../../client');

const { startSecantus } = require(path.join(CLIENT_DIR, 'test/helpers/secantus-server'));
const { processCounters: counters, dropPageCache } = require(path.join(CLIENT_DIR, 'test/helpers/process-io'));

const ROOT = path.resolve(CLIENT_DIR, '..');
const MANIFEST = JSON.parse(fs.readFileSync(path.join(ROOT, 'databases/mongodb/database.json'), 'utf8'));
const DOCS = 6000;
const CACHE_MB = 8;
const PAD = 4096; // random bytes: WiredTiger's snappy cannot shrink them, so the file holds ~DOCS x PAD

const comm = (pid) => fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim();

function filesBytes(dir, pick = () => true) {
  let n = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) n += filesBytes(p, pick);
    else if (pick(e.name)) n += fs.statSync(p).size;
  }
  return n;
}

test.describe('MongoDB stand-in: read I/O from the server process\'s /proc/<pid>/io', () => {
  let db;
  test.before(async () => { db = await startSecantus({ args: ['--cache-size', `${CACHE_MB}M`] }); });
  test.after(async () => { if (db) await db.cleanup(); });

  test('a cold scan of a collection of known size shows in the server process\'s read_bytes', async () => {
    await db.withDb(async (d) => {
      const c = d.collection('cold');
      for (let i = 0; i < DOCS; i += 500) {
        await c.insertMany(Array.from({ length: 500 }, (_, j) => ({ _id: i + j, pad: crypto.randomBytes(PAD) })));
      }
    });
    // a clean shutdown writes the checkpoint; the pages are dropped while no process maps the files
    // (the kernel keeps a mapped page), and the new process's cache is empty
    await db.stop();
    const data = path.join(db.dir, 'data');
    const dataBytes = filesBytes(data);
    // the collection's own file: the largest .wt file (the padding is nearly all of the data)
    const sizes = [];
    (function walk(dir) {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) walk(p); else if (e.name.endsWith('.wt')) sizes.push(fs.statSync(p).size);
      }
    }(data));
    const collectionBytes = Math.max(...sizes);
    assert.ok(collectionBytes >= DOCS * PAD, `the collection's file (${collectionBytes} B) holds the ${DOCS} x ${PAD} B of padding`);
    dropPageCache(data);
    await db.restart();
    dropPageCache(data); // what the new process read as it opened its files

    assert.equal(comm(db.pid), MANIFEST.standin.processes[0], 'the server process has the manifest\'s name');
    const a = counters(db.pid);
    const n = await db.withDb((d) => d.collection('cold').countDocuments({ pad: { $type: 'string' } })); // no index: a full scan
    const b = counters(db.pid);
    assert.equal(n, 0);
    const read = b.read_bytes - a.read_bytes;
    console.log(`SecantusDB cold scan: read_bytes +${read}, rchar +${b.rchar - a.rchar}, collection file ${collectionBytes} B, data ${dataBytes} B`);
    // WiredTiger's cache may hold what the new process read at start: at most its size of the file
    const floor = collectionBytes - CACHE_MB * 1024 * 1024;
    assert.ok(read >= floor, `read_bytes +${read} >= the collection's ${collectionBytes} B on disk less the ${CACHE_MB} MiB cache`);
    assert.ok(read <= dataBytes + 16 * 1024 * 1024, `read_bytes +${read} <= the data folder's ${dataBytes} B and a little`);

    // warm: the page cache holds the file now, WiredTiger's 8 MiB cache does not
    const m = await db.withDb((d) => d.collection('cold').countDocuments({ pad: { $type: 'string' } }));
    const c = counters(db.pid);
    assert.equal(m, 0);
    console.log(`SecantusDB warm scan: read_bytes +${c.read_bytes - b.read_bytes}, rchar +${c.rchar - b.rchar}`);
    assert.ok(c.rchar - b.rchar >= 0.9 * collectionBytes, `rchar +${c.rchar - b.rchar}: the file read again, from the page cache`);
    // from storage only what the first scan found in WiredTiger's cache (not in the page cache)
    assert.ok(c.read_bytes - b.read_bytes <= (CACHE_MB + 1) * 1024 * 1024,
      `read_bytes +${c.read_bytes - b.read_bytes}: at most the ${CACHE_MB} MiB the cold scan did not read from storage`);
  });
});
