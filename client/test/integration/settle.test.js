'use strict';
// `settle` and `count` leave nothing for the next window (issue 16): against a real PostgreSQL, the
// checkpointer's own counter shows the CHECKPOINT each ran, pg_stat_user_tables the VACUUM, and
// `count` keeps the sizes read before its flush beside the ones after.
const test = require('node:test');
const assert = require('node:assert/strict');
const { startPostgres } = require('../helpers/postgres-server');
const { runCli } = require('../helpers/run-cli');

// The test server is the lab's PostgreSQL 17 (test/helpers/postgres-server.js), whose checkpointer
// counts requested checkpoints in pg_stat_checkpointer (pg_stat_bgwriter.checkpoints_req before 17).
async function requestedCheckpoints(pg) {
  return Number((await pg.query('select num_requested as n from pg_stat_checkpointer')).rows[0].n);
}

test.describe('PostgreSQL: settle and count flush outside the window', () => {
  let pg;
  test.before(async () => {
    pg = await startPostgres();
    assert.equal((await runCli(['init', '--uri', pg.uri, '--key', 'uuidv4', '--layout', 'heap'])).code, 0);
    await pg.query(`insert into jsonbench (id, data) select gen_random_uuid(), jsonb_build_object('f', repeat('x', 100))
                      from generate_series(1, 2000)`);
  });
  test.after(async () => { if (pg) await pg.cleanup(); });

  test('count: sizes before and after a CHECKPOINT it ran', async () => {
    const before = await requestedCheckpoints(pg);
    const r = await runCli(['count', '--uri', pg.uri]);
    assert.equal(r.code, 0, r.stderr);
    const c = JSON.parse(r.stdout);
    assert.equal(c.documents, 2000);
    assert.equal(c.settle.command, 'CHECKPOINT');
    assert.equal(c.settle.reason, null);
    for (const k of ['table_bytes', 'index_bytes', 'total_bytes']) assert.ok(c.settle.before[k] > 0, k);
    // pg_total_relation_size counts pages at once: the checkpoint changes no size
    assert.deepEqual(c.settle.before, { table_bytes: c.table_bytes, index_bytes: c.index_bytes, total_bytes: c.total_bytes });
    assert.ok(await requestedCheckpoints(pg) > before, 'count ran a CHECKPOINT');
  });

  test('settle: VACUUM (ANALYZE) then CHECKPOINT', async () => {
    const before = await requestedCheckpoints(pg);
    const r = await runCli(['settle', '--uri', pg.uri]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^settle: vacuum \(analyze\) jsonbench; CHECKPOINT$/m);
    const t = (await pg.query(`select last_vacuum, last_analyze from pg_stat_user_tables where relname = 'jsonbench'`)).rows[0];
    assert.ok(t.last_vacuum && t.last_analyze, JSON.stringify(t));
    assert.ok(await requestedCheckpoints(pg) > before, 'settle ran a CHECKPOINT');
  });
});

test.describe('PostgreSQL: WORK_MEM reaches the query sessions', () => {
  let pg;
  test.before(async () => { pg = await startPostgres(); });
  test.after(async () => { if (pg) await pg.cleanup(); });

  const { connectTarget } = require('../../src/commands/connect');
  const { parseOptions } = require('../../src/options');
  const workMemOf = async (opts) => {
    const { target } = await connectTarget({ database: 'postgres', uri: pg.uri, ...opts });
    try { return (await target.client.query('show work_mem')).rows[0].work_mem; } finally { await target.close(); }
  };

  test('a query session gets WORK_MEM in its start-up packet; other sessions keep the server default', async () => {
    assert.equal(await workMemOf({ query: 'olap-a', workMem: '64MB' }), '64MB');
    assert.equal(await workMemOf({ workMem: '64MB' }), '4MB', 'not a query session');
    // the default is the server's own 4MB: bench1..bench4 and query benches without the key are unchanged
    const o = parseOptions('explain', ['--uri', pg.uri, '--query', 'olap-a', '--key', 'uuidv7'], { WORKLOAD: 'events' });
    assert.equal(o.workMem, '4MB');
  });

  test('a WORK_MEM that is not a PostgreSQL size is refused with the allowed form', () => {
    assert.throws(() => parseOptions('explain', ['--uri', pg.uri, '--query', 'olap-a', '--key', 'uuidv7', '--work-mem', '64'], { WORKLOAD: 'events' }),
      /--work-mem.*an integer with kB, MB or GB/);
  });
});
