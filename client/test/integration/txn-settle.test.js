'use strict';
// What the lab runs around a transaction workload's phase (lab/driver/bench.py, phase.py), against a
// real PostgreSQL and SecantusDB as a replica set (the MongoDB stand-in): `settle` after `init`
// vacuums the workload's own tables (booking's five; there is no jsonbench table to vacuum), and
// `server-stats` with WORKLOAD says what each of a client's SESSIONS sends besides its transactions,
// which reconciliation multiplies by the sessions (analysis/figures/reconcile.py).
const test = require('node:test');
const assert = require('node:assert/strict');
const { startPostgres } = require('../helpers/postgres-server');
const { startSecantus } = require('../helpers/secantus-server');
const { runCli } = require('../helpers/run-cli');

const BOOKING = { WORKLOAD: 'booking', KEY: 'uuidv7', LAYOUT: 'heap', SEED: '3', FLIGHTS: '20' };

test('transaction workloads: settle after init, run_session per workload', { timeout: 300000 }, async (t) => {
  const pg = await startPostgres();
  const sec = await startSecantus({ replset: true });
  t.after(async () => { await pg.cleanup(); await sec.cleanup(); });

  await t.test('PostgreSQL: settle after a booking init vacuums the five booking tables, then checkpoints', async () => {
    const init = await runCli(['init'], { env: { ...BOOKING, URI: pg.uri }, timeoutMs: 120000 });
    assert.equal(init.code, 0, init.stderr);
    const r = await runCli(['settle'], { env: { WORKLOAD: 'booking', URI: pg.uri }, timeoutMs: 120000 });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), 'settle: vacuum (analyze) aircraft, schedule, seat, payment, audit; CHECKPOINT');
    // VACUUM ANALYZE gave the planner its statistics for the loaded tables
    const { rows } = await pg.query("select relname from pg_stat_user_tables where last_analyze is not null order by relname");
    assert.deepEqual(rows.map((x) => x.relname), ['aircraft', 'audit', 'payment', 'schedule', 'seat']);
  });

  await t.test('SecantusDB: settle after a booking init is the flush alone', async () => {
    const init = await runCli(['init'], { env: { ...BOOKING, URI: sec.uri }, timeoutMs: 120000 });
    assert.equal(init.code, 0, init.stderr);
    const r = await runCli(['settle'], { env: { WORKLOAD: 'booking', URI: sec.uri }, timeoutMs: 120000 });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout.trim(), /^settle: \{fsync: 1\}/);
  });

  await t.test('server-stats: a booking session sends 2 statements on PostgreSQL (no prepare), 4 commands on MongoDB (the hello of the replica-set check)', async () => {
    const stats = async (uri, workload) => {
      const r = await runCli(['server-stats'], { env: { URI: uri, ...(workload ? { WORKLOAD: workload } : {}) }, timeoutMs: 60000 });
      assert.equal(r.code, 0, r.stderr);
      return JSON.parse(r.stdout.trim().split('\n').pop()).run_session;
    };
    assert.equal((await stats(pg.uri, 'booking')).statements, 2);
    assert.equal((await stats(pg.uri, 'oltp')).statements, 2);
    assert.equal((await stats(pg.uri)).statements, 3);
    assert.equal((await stats(sec.uri, 'booking')).statements, 4);
    assert.equal((await stats(sec.uri)).statements, 3);
  });

  await t.test('PostgreSQL: one booking session really sends 2 transactions besides its bookings', async () => {
    // pg_stat_database.xact_commit around one client of 5 bookings on 1 session: 5 commits, its
    // 2 set-up statements and 1 start-up transaction; the reading sessions' own are measured apart.
    const xacts = async () => Number((await pg.query('select xact_commit + xact_rollback as n from pg_stat_database where datname = current_database()')).rows[0].n);
    const idle0 = await xacts();
    const idle1 = await xacts();
    const perReading = idle1 - idle0; // what one of these readings costs (its own session)
    const before = await xacts();
    const r = await runCli(['run'], {
      env: {
        ...BOOKING, URI: pg.uri, CLIENTS: '1', CLIENT_ID: '1', OPS: '5', RATE: '50', SESSIONS: '1', DAY_RANGE: '30',
      },
      timeoutMs: 60000,
    });
    assert.equal(r.code, 0, r.stderr + r.stdout);
    // pg_stat_database is updated when a backend reports its statistics: give it the moment it takes
    await new Promise((res) => { setTimeout(res, 1500); });
    const after = await xacts();
    assert.equal(after - before - perReading, 5 + 2 + 1);
  });
});
