'use strict';
// Read I/O on a real PostgreSQL (runs[].read_io's sources, analysis/figures/read_io.py): a sequential
// scan of a table several times larger than shared_buffers reads the blocks shared_buffers does not
// hold, so server-stats' blks_read moves by at least the table's pages less shared_buffers' and by at
// most the table's pages (plus a few catalog blocks), and block_size_bytes turns it into bytes. The
// kernel's side, the probe's /proc/<pid>/io summed over the container's processes: every such block
// is one read call returning block_size bytes, page cache or not, so rchar moves by at least
// blks_read x block_size (read_bytes may be 0: the OS page cache holds the table the test just wrote,
// which is why blks_read is said to count misses of PostgreSQL's cache, not storage reads).
const test = require('node:test');
const assert = require('node:assert/strict');
const { startPostgres } = require('../helpers/postgres-server');
const { runCli } = require('../helpers/run-cli');
const { containerIo, ioDelta } = require('../helpers/container-io');

const SHARED_BUFFERS_MB = 16;
const ROWS = 50000; // ~1 kB each: ~60 MB, about 4 x shared_buffers

const stats = async (uri) => {
  const r = await runCli(['server-stats', '--uri', uri]);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
};

test.describe('read I/O: PostgreSQL blks_read and the kernel\'s /proc/<pid>/io', () => {
  let pg;
  test.before(async () => { pg = await startPostgres({ args: ['-c', `shared_buffers=${SHARED_BUFFERS_MB}MB`] }); });
  test.after(async () => { if (pg) await pg.cleanup(); });

  test('a scan of a table 4x shared_buffers: blks_read within what its size predicts; rchar >= its bytes', async () => {
    await pg.query(`create table big as select i as id, repeat(md5(i::text), 30) as pad from generate_series(1, ${ROWS}) i`);
    await pg.query('vacuum analyze big');
    await pg.query('checkpoint');
    const { rows: [t] } = await pg.query(`select pg_relation_size('big') / current_setting('block_size')::int as pages,
      current_setting('shared_buffers') as sb, current_setting('block_size')::int as bs`);
    const pages = Number(t.pages);
    const buffers = (SHARED_BUFFERS_MB * 1024 * 1024) / t.bs;
    assert.equal(t.sb, `${SHARED_BUFFERS_MB}MB`);
    assert.ok(pages > 3 * buffers, `the table (${pages} pages) is several times shared_buffers (${buffers})`);

    const io0 = containerIo(pg.id);
    const a = await stats(pg.uri);
    // one session, no parallel workers: the scan's reads are its backend's
    const { rows: [c] } = await pg.query(`set max_parallel_workers_per_gather = 0;
      select count(*) as n from big where pad like 'x%'`).then((r) => r[1]);
    const b = await stats(pg.uri);
    const io1 = containerIo(pg.id);
    assert.equal(Number(c.n), 0);

    assert.equal(b.counters.block_size_bytes, t.bs);
    const blks = b.counters.blks_read - a.counters.blks_read;
    assert.ok(blks >= pages - buffers, `blks_read +${blks} >= ${pages} - ${buffers}`);
    assert.ok(blks <= pages + 200, `blks_read +${blks} <= ${pages} pages + catalog blocks`);
    const rchar = ioDelta(io0, io1, 'rchar');
    assert.ok(rchar >= blks * t.bs, `rchar +${rchar} >= blks_read x block_size = ${blks * t.bs}`);
    assert.ok(rchar < (pages + 2000) * t.bs, `rchar +${rchar}: the scan's blocks and little else`);
    assert.ok(io1.processes.some((p) => p.comm === 'postgres'), 'the container\'s processes are the server\'s');
  });
});
