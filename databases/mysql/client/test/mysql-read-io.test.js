'use strict';
// Read I/O on a real MySQL (runs[].read_io's sources, analysis/figures/read_io.py): InnoDB reads its
// data files with O_DIRECT (innodb_flush_method, MySQL 8.4 and 9.7's default on Linux), bypassing
// the OS page cache, so the kernel's read_bytes of the container's processes (the probe's
// /proc/<pid>/io) and the server's own Innodb_data_read must agree on a scan of a table larger than
// the buffer pool (64 MiB here): each at least the table's size less the pool's, and within a few
// percent of each other. Innodb_buffer_pool_reads x Innodb_page_size is at most Innodb_data_read
// (read-ahead is counted in the latter only).
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');
const { CLIENT_DIR } = require('./deps');
const { startMysql, unavailable, IMAGE } = require('./mysql-server');

const { runCli } = require(path.join(CLIENT_DIR, 'test/helpers/run-cli'));
const { containerIo, ioDelta } = require(path.join(CLIENT_DIR, 'test/helpers/container-io'));

const MiB = 1024 * 1024;
const ROWS = 160000; // ~1 kB each: ~170 MiB, more than twice the 64 MiB buffer pool

const stats = async (uri) => {
  const r = await runCli(['server-stats', '--uri', uri], { timeoutMs: 60000 });
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
};

test.describe(`MySQL (${IMAGE}): read I/O, Innodb_data_read against the kernel's read_bytes`, { skip: unavailable() }, () => {
  let db;
  test.before(async () => { db = await startMysql(); });
  test.after(async () => { if (db) await db.cleanup(); });

  test('a scan of a table 2x the buffer pool: O_DIRECT reads, the server\'s bytes and the kernel\'s agree', { timeout: 240000 }, async () => {
    const [[method, pool]] = await db.query('SELECT @@innodb_flush_method, @@innodb_buffer_pool_size');
    assert.equal(method, 'O_DIRECT', 'MySQL 9.7 reads its data files with O_DIRECT (no OS page cache)');
    await db.query('CREATE TABLE big (id INT PRIMARY KEY, pad VARCHAR(1024)) ENGINE=InnoDB');
    await db.query(`INSERT /*+ SET_VAR(cte_max_recursion_depth = ${ROWS}) */ INTO big
      WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ${ROWS}) SELECT i, REPEAT(LPAD(i, 32, 'abcdefgh'), 30) FROM s`);
    await db.query('ANALYZE TABLE big'); // DATA_LENGTH from fresh statistics
    const [[size]] = await db.query("SELECT DATA_LENGTH FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'jsonbench' AND TABLE_NAME = 'big'");
    assert.ok(Number(size) > 2 * Number(pool), `the table (${size} B) is more than twice the pool (${pool} B)`);

    const io0 = containerIo(db.id);
    const a = await stats(db.uri);
    const [[n]] = await db.query("SELECT COUNT(*) FROM big WHERE pad LIKE 'x%'");
    const b = await stats(db.uri);
    const io1 = containerIo(db.id);
    assert.equal(Number(n), 0);

    const d = (k) => b.counters[k] - a.counters[k];
    const dataRead = d('innodb_data_read_bytes');
    const kernel = ioDelta(io0, io1, 'read_bytes');
    assert.ok(dataRead >= Number(size) - Number(pool), `Innodb_data_read +${dataRead} >= table - pool`);
    assert.ok(Math.abs(kernel - dataRead) <= 0.05 * dataRead + 2 * MiB,
      `the kernel's read_bytes +${kernel} agrees with Innodb_data_read +${dataRead}`);
    assert.equal(b.counters.innodb_page_size_bytes, 16384);
    assert.ok(d('innodb_buffer_pool_reads') * b.counters.innodb_page_size_bytes <= dataRead);
    assert.ok(d('innodb_buffer_pool_reads') > 0);
  });
});
