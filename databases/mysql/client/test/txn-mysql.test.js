'use strict';
// The transaction workloads on a real MySQL (mysql-server.js: the official image when present, else
// the lab's stand-in, Debian's MySQL 9.7) beside a real PostgreSQL: booking's static data and
// oltp's rows the same on both; a contended booking run (one day, two flights, transactions held
// open, four clients) at each isolation level commits every booking and loses nothing by id; the
// readings' per-table row operations (performance_schema), InnoDB's row counters and the
// transaction statements (Com_begin/commit/rollback) equal what the clients sent; a foreign
// transaction holding the audit row makes bookings time out on their lock waits (1205) and, holding
// it while it reaches for their seats, deadlock (1213): each rolled back, retried and counted by
// reason; a tampered table fails the check; a server restarted mid-run loses no committed booking;
// OLTP 50/50 runs every shape as a transaction and, from the same seed, leaves sbtest as PostgreSQL's.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { CLIENT_DIR, clientRequire } = require('./deps');
const { startMysql, unavailable, IMAGE } = require('./mysql-server');

const { startPostgres } = require(path.join(CLIENT_DIR, 'test/helpers/postgres-server'));
const { runCli, startCli } = require(path.join(CLIENT_DIR, 'test/helpers/run-cli'));
const { writeOutcomes } = require(path.join(CLIENT_DIR, 'test/helpers/txn-outcomes'));

const mysql = clientRequire('mysql2/promise');

const skip = unavailable();
const sleep = (ms) => new Promise((r) => { setTimeout(r, ms); });
const BASE = { WORKLOAD: 'booking', KEY: 'uuidv7', LAYOUT: 'heap', SEED: '5' };
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'jsonbench-mysql-txn-'));
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

const last = (stdout) => JSON.parse(stdout.trim().split('\n').pop());
const sum = (rs, f) => rs.reduce((a, r) => a + f(r.result), 0);

async function runClients(uri, env, clients, { during } = {}) {
  const runs = [];
  for (let c = 1; c <= clients; c++) {
    const result = path.join(tmp, `${Date.now()}-${Math.random().toString(16).slice(2)}-${c}.json`);
    runs.push({ result, run: startCli(['run'], { env: { ...BASE, ...env, URI: uri, CLIENTS: String(clients), CLIENT_ID: String(c), RESULT: result }, timeoutMs: 300000 }) });
  }
  if (during) await during();
  const done = await Promise.all(runs.map((r) => r.run.done));
  return done.map((d, k) => ({ ...d, result: fs.existsSync(runs[k].result) ? JSON.parse(fs.readFileSync(runs[k].result, 'utf8')) : null }));
}

async function init(uri, env) {
  const r = await runCli(['init'], { env: { ...BASE, ...env, URI: uri }, timeoutMs: 180000 });
  assert.equal(r.code, 0, r.stderr + r.stdout);
  return r;
}

async function count(uri, env = {}) {
  const r = await runCli(['count'], { env: { WORKLOAD: 'booking', URI: uri, ...env }, timeoutMs: 120000 });
  return { ...r, json: r.stdout.trim() ? last(r.stdout) : null };
}

async function serverStats(uri, workload) {
  const r = await runCli(['server-stats'], { env: { URI: uri, WORKLOAD: workload } });
  assert.equal(r.code, 0, r.stderr);
  return last(r.stdout);
}

const delta = (a, b, k) => b.counters[k] - a.counters[k];

test(`booking and oltp on MySQL (${IMAGE})`, { skip, timeout: 1500000 }, async (t) => {
  const my = await startMysql();
  const pg = await startPostgres();
  t.after(async () => { await my.cleanup(); await pg.cleanup(); });

  await t.test('init loads the same aircraft and 14,000 flights as on PostgreSQL, and declares the audit index', async () => {
    const a = await init(my.uri, {});
    await init(pg.uri, {});
    assert.deepEqual(a.stdout.split('\n').filter((l) => l.startsWith('index: ')), ['index: CREATE UNIQUE INDEX audit_schedule_day ON audit (schedule_id, day)']);
    for (const [table, cols] of [['aircraft', 'id, model, seats'], ['schedule', 'id, flight, origin, destination, departure_min, duration_min, aircraft_id']]) {
      const x = (await my.query(`SELECT ${cols} FROM ${table} ORDER BY id`)).map((r) => r.map(String));
      const y = (await pg.query(`select ${cols} from ${table} order by id`)).rows.map((r) => Object.values(r).map(String));
      assert.equal(x.length, table === 'aircraft' ? 200 : 14000);
      assert.deepEqual(x, y, `${table} differs`);
    }
    // InnoDB clusters audit (no primary key, as on PostgreSQL) by its unique index
    const [[clustered]] = await my.query(`SELECT i.NAME FROM information_schema.INNODB_INDEXES i JOIN information_schema.INNODB_TABLES t
      ON t.TABLE_ID = i.TABLE_ID WHERE t.NAME = 'jsonbench/audit' AND (i.TYPE & 1) = 1`);
    assert.equal(clustered, 'audit_schedule_day');
  });

  // Two flights, one day, each transaction held open 20 ms, four clients: the audit rows are hot.
  const HOT = { FLIGHTS: '2', DAY_RANGE: '1', BOOKING_SLEEP_MS: '20', OPS: '25', RATE: '10', MAX_ATTEMPTS: '100' };
  const retried = {};
  let contended = null;
  for (const isolation of ['read-committed', 'repeatable-read', 'serializable']) {
    await t.test(`contention at ${isolation}: every booking committed, every attempt counted by reason, nothing lost by id; `
      + 'the per-table row operations and transaction statements are what the clients sent', async () => {
      await init(my.uri, { FLIGHTS: HOT.FLIGHTS });
      const settle = await runCli(['settle'], { env: { ...BASE, URI: my.uri } });
      assert.equal(settle.code, 0, settle.stderr);
      const before = await serverStats(my.uri, 'booking');
      const rs = await runClients(my.uri, { ...HOT, ISOLATION: isolation }, 4);
      const after = await serverStats(my.uri, 'booking');
      for (const r of rs) assert.equal(r.code, 0, r.stderr + r.stdout);
      const tx = rs.map((r) => r.result.transactions);
      const committed = sum(rs, (x) => x.docs_ok);
      assert.equal(committed, 100);
      for (const x of tx) {
        assert.equal(x.isolation, isolation);
        assert.equal(x.attempts, x.committed + Object.values(x.aborts).reduce((a, b) => a + b, 0), JSON.stringify(x));
        assert.deepEqual(Object.keys(x.aborts).filter((k) => k !== 'deadlock' && k !== 'lock_wait_timeout'), [], JSON.stringify(x.aborts));
      }
      const aborts = {};
      for (const x of tx) for (const [k, v] of Object.entries(x.aborts)) aborts[k] = (aborts[k] || 0) + v;
      retried[isolation] = aborts;
      const attempts = tx.reduce((a, x) => a + x.attempts, 0);
      const aborted = attempts - committed;
      const writes = (table) => tx.reduce((a, x) => a + x.writes[table].ok + x.writes[table].failed, 0);
      // the transaction statements: one START TRANSACTION per attempt, a COMMIT per committed booking,
      // a ROLLBACK per aborted attempt
      assert.equal(delta(before, after, 'com_begin'), attempts);
      assert.equal(delta(before, after, 'com_commit'), committed);
      assert.equal(delta(before, after, 'com_rollback'), aborted);
      // one execution per step sent: every attempt's lookup and each write it reached
      assert.equal(delta(before, after, 'com_stmt_execute'), attempts + writes('seat') + writes('payment') + writes('audit'));
      // performance_schema's row operations: seat and payment one insert per insert the server answered
      for (const table of ['seat', 'payment']) {
        const ok = tx.reduce((a, x) => a + x.writes[table].ok, 0);
        assert.equal(delta(before, after, `table_${table}_count_insert`), ok, table);
        assert.equal(delta(before, after, `table_${table}_count_update`) + delta(before, after, `table_${table}_count_delete`), 0, table);
      }
      // audit: every upsert asks the engine to insert (COUNT_INSERT), one that finds its row also to
      // update it (COUNT_UPDATE): the difference is the rows created, one per (flight, day) booked
      const upserts = tx.reduce((a, x) => a + x.writes.audit.ok, 0);
      assert.equal(delta(before, after, 'table_audit_count_insert'), upserts);
      assert.equal(delta(before, after, 'table_audit_count_insert') - delta(before, after, 'table_audit_count_update'), 2);
      // InnoDB's server-wide row counters: one row inserted or updated per write answered
      assert.equal(delta(before, after, 'innodb_rows_inserted') + delta(before, after, 'innodb_rows_updated')
        + delta(before, after, 'innodb_rows_deleted'), tx.reduce((a, x) => a + x.writes.seat.ok + x.writes.payment.ok + x.writes.audit.ok, 0));
      for (const table of ['aircraft', 'schedule']) {
        assert.equal(['insert', 'update', 'delete'].reduce((a, op) => a + delta(before, after, `table_${table}_count_${op}`), 0), 0, table);
      }
      t.diagnostic(`${isolation}: ${committed} committed, ${attempts} attempts, aborts ${JSON.stringify(aborts)}; audit insert `
        + `${delta(before, after, 'table_audit_count_insert')} update ${delta(before, after, 'table_audit_count_update')} `
        + `(upserts answered ${tx.reduce((a, x) => a + x.writes.audit.ok, 0)}); Innodb_rows_inserted ${delta(before, after, 'innodb_rows_inserted')} `
        + `updated ${delta(before, after, 'innodb_rows_updated')}`);
      const c = await count(my.uri, { TXN_OUTCOMES: writeOutcomes(tmp, rs.map((r) => r.result)) });
      assert.equal(c.code, 0, c.stderr + c.stdout);
      assert.equal(c.json.booking_check.ok, true);
      assert.equal(c.json.booking_check.seats, committed);
      assert.equal(c.json.booking_check.audit_seats, committed);
      assert.equal(c.json.booking_check.ids_checked, committed);
      // the sizes settled on booking's own five tables (its .workload.js tables: the flush step kind's tables)
      const five = 'aircraft, schedule, seat, payment, audit';
      assert.equal(c.json.settle.command, `FLUSH TABLES ${five} FOR EXPORT; UNLOCK TABLES; ANALYZE LOCAL TABLE ${five}`);
      contended = rs;
    });
  }

  await t.test('a foreign transaction holding the audit row: lock wait timeouts (1205), then deadlocks (1213), each '
    + 'rolled back, retried and counted by reason; nothing lost', async () => {
    t.diagnostic(`the contended runs' aborts by reason per isolation: ${JSON.stringify(retried)}`);
    await init(my.uri, { FLIGHTS: '1' });
    await my.query('DROP TABLE IF EXISTS ballast');
    await my.query('CREATE TABLE ballast (n INT NOT NULL PRIMARY KEY) ENGINE=InnoDB');
    // the sessions the clients open from now on wait 1 s for a lock, not 50
    await my.query('SET GLOBAL innodb_lock_wait_timeout = 1');
    const foreign = await mysql.createConnection({ host: '127.0.0.1', port: my.port, user: 'root', database: 'jsonbench' });
    try {
      const rs = await runClients(my.uri, {
        FLIGHTS: '1', DAY_RANGE: '1', OPS: '80', RATE: '10', MAX_ATTEMPTS: '1000', ISOLATION: 'repeatable-read',
      }, 2, {
        during: async () => {
          await sleep(2000); // bookings commit: the audit row is there
          // 1205: the audit row held 3 s; a booking waits 1 s for it and times out
          await foreign.query('SET SESSION innodb_lock_wait_timeout = 30');
          await foreign.query('START TRANSACTION');
          await foreign.query('SELECT * FROM audit FOR UPDATE');
          await sleep(3000);
          await foreign.query('ROLLBACK');
          await sleep(500);
          // 1213: a transaction heavier than a booking (50 rows written) holds the audit row, then
          // reaches for every seat: the bookings that inserted theirs and wait for the audit row close
          // a cycle, and InnoDB rolls back the lighter side, the booking
          await foreign.query('START TRANSACTION');
          await foreign.query(`INSERT INTO ballast VALUES ${Array.from({ length: 50 }, (_, k) => `(${k})`).join(', ')}`);
          await foreign.query('SELECT * FROM audit FOR UPDATE');
          await sleep(400);
          await foreign.query('SELECT COUNT(*) FROM (SELECT id FROM seat FOR UPDATE) s');
          await sleep(300);
          await foreign.query('ROLLBACK');
        },
      });
      for (const r of rs) assert.equal(r.code, 0, r.stderr + r.stdout);
      const aborts = {};
      for (const r of rs) for (const [k, v] of Object.entries(r.result.transactions.aborts)) aborts[k] = (aborts[k] || 0) + v;
      assert.ok(aborts.lock_wait_timeout > 0, JSON.stringify(aborts));
      assert.ok(aborts.deadlock > 0, JSON.stringify(aborts));
      assert.deepEqual(Object.keys(aborts).sort(), ['deadlock', 'lock_wait_timeout']);
      const tx = rs.map((r) => r.result.transactions);
      for (const x of tx) {
        assert.equal(x.retries, Object.values(x.aborts).reduce((a, b) => a + b, 0));
        assert.equal(x.gave_up, 0);
      }
      assert.equal(sum(rs, (x) => x.docs_ok), 160);
      const c = await count(my.uri, { TXN_OUTCOMES: writeOutcomes(tmp, rs.map((r) => r.result)) });
      assert.equal(c.code, 0, c.stderr + c.stdout);
      assert.equal(c.json.booking_check.ids_checked, 160);
      contended = rs; // the bookings now in the database (the tampering test checks against them)
      t.diagnostic(`foreign lock holder: aborts ${JSON.stringify(aborts)}, every booking committed`);
    } finally {
      await foreign.end().catch(() => {});
      await my.query('SET GLOBAL innodb_lock_wait_timeout = 50');
      await my.query('DROP TABLE IF EXISTS ballast');
    }
  });

  await t.test('a tampered audit row, a missing payment and a lost committed booking fail the check with the rows shown', async () => {
    await my.query('UPDATE audit SET seats_occupied = seats_occupied + 1 WHERE schedule_id = 1');
    await my.query('DELETE FROM payment ORDER BY id LIMIT 1');
    await my.query('DELETE FROM seat ORDER BY id DESC LIMIT 1');
    const c = await count(my.uri, { TXN_OUTCOMES: writeOutcomes(tmp, contended.map((r) => r.result)) });
    assert.equal(c.code, 1);
    assert.match(c.stderr, /seats without a payment: [0-9a-f]{32}/);
    assert.match(c.stderr, /payments without a seat: [0-9a-f]{32}/);
    assert.match(c.stderr, /\(1, 2025-01-01\) audit \d+ seats \d+/);
    assert.match(c.stderr, /committed bookings lost: 1 \(client \d booking \d+ id [0-9a-f-]{36}\)/);
  });

  await t.test('MySQL stopped mid-run (a clean shutdown) and started again: no committed booking lost', async () => {
    await init(my.uri, { FLIGHTS: '50' });
    const rs = await runClients(my.uri, {
      FLIGHTS: '50', DAY_RANGE: '3', OPS: '150', RATE: '30', RECONNECT_TIMEOUT_S: '90', ISOLATION: 'repeatable-read',
    }, 2, {
      during: async () => {
        await new Promise((r) => { setTimeout(r, 2000); });
        await my.restart();
      },
    });
    const committed = sum(rs, (x) => x.docs_ok);
    const inDoubt = sum(rs, (x) => x.transactions.in_doubt);
    assert.ok(sum(rs, (x) => x.errors + x.dropped + (x.reconnects || 0)) > 0, 'the restart cost nothing: the test did not test');
    assert.ok(committed > 0);
    const c = await count(my.uri, { TXN_OUTCOMES: writeOutcomes(tmp, rs.map((r) => r.result)) });
    assert.equal(c.code, 0, c.stderr + c.stdout);
    assert.equal(c.json.booking_check.ids_checked, committed + inDoubt);
    assert.equal(c.json.booking_check.seats, committed + c.json.booking_check.in_doubt_landed);
    t.diagnostic(`restart: ${committed} committed, ${inDoubt} in doubt, ${c.json.booking_check.seats} seats, errors ${sum(rs, (x) => x.errors)}`);
  });

  const OLTP = { WORKLOAD: 'oltp', KEY: 'uuidv7', LAYOUT: 'heap', SEED: '9', TABLE_ROWS: '2000' };
  const myRows = async () => (await my.query('SELECT id, k, c, pad FROM sbtest ORDER BY id')).map((r) => r.map(String).join('|'));
  // PostgreSQL's text keeps c's trailing space, MySQL's CHAR(120) (sysbench's type) strips it on reading
  const pgRows = async () => (await pg.query('select id, k, c, pad from sbtest order by id')).rows.map((r) => [r.id, r.k, r.c.trimEnd(), r.pad.trimEnd()].map(String).join('|'));

  await t.test('oltp init: sysbench\'s table on InnoDB, the same rows as PostgreSQL\'s', async () => {
    for (const uri of [my.uri, pg.uri]) {
      const r = await runCli(['init'], { env: { ...OLTP, URI: uri }, timeoutMs: 120000 });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^index: .*k_idx/m);
    }
    const [a, b] = [await myRows(), await pgRows()];
    assert.equal(a.length, 2000);
    assert.deepEqual(a, b);
  });

  // Both mixes the workload offers (OLTP_MIX, 95/5 its default), each from the table the one before
  // left, equal on both servers.
  for (const mix of ['50/50', '95/5']) {
    await t.test(`oltp ${mix}: every shape a transaction, the same answers as PostgreSQL, and the same table after`, async () => {
      const results = {};
      for (const [name, uri] of [['mysql', my.uri], ['postgres', pg.uri]]) {
        const file = path.join(tmp, `oltp-${mix.replace('/', '-')}-${name}.json`);
        const before = name === 'mysql' ? await serverStats(uri, 'oltp') : null;
        const r = await runCli(['run'], {
          env: {
            ...OLTP, URI: uri, OLTP_MIX: mix, OPS: '168', RATE: '40', SESSIONS: '1', RESULT: file,
          },
          timeoutMs: 120000,
        });
        assert.equal(r.code, 0, r.stderr + r.stdout);
        results[name] = JSON.parse(fs.readFileSync(file, 'utf8'));
        if (before) {
          const after = await serverStats(uri, 'oltp');
          const ops = results[name].operations;
          assert.equal(delta(before, after, 'com_begin'), 168);
          assert.equal(delta(before, after, 'com_commit'), 168);
          assert.equal(delta(before, after, 'com_stmt_execute'), 168 + (ops['delete-insert'] ? ops['delete-insert'].ok : 0));
          assert.equal(delta(before, after, 'table_sbtest_count_insert'), ops['delete-insert'] ? ops['delete-insert'].ok : 0);
          assert.equal(delta(before, after, 'table_sbtest_count_delete'), ops['delete-insert'] ? ops['delete-insert'].ok : 0);
        }
      }
      const res = results.mysql;
      assert.equal(res.transactions.committed, 168);
      // 168 operations at 95/5 hold about 8 writes: only the reads are sure to all run there
      const kinds = ['point-select', 'simple-range', 'sum-range', 'order-range', 'distinct-range'];
      if (mix === '50/50') kinds.push('index-update', 'non-index-update', 'delete-insert');
      for (const op of kinds) {
        assert.ok(res.operations[op].ok > 0, `${op} never ran`);
      }
      const reads = kinds.slice(0, 5).reduce((n, op) => n + res.operations[op].ok, 0);
      assert.ok(mix === '50/50' ? reads < 168 * 0.75 : reads > 168 * 0.85, `${reads} reads of 168 at ${mix}`);
      assert.equal(res.operations['simple-range'].docs, 100 * res.operations['simple-range'].ok);
      assert.deepEqual(
        Object.fromEntries(Object.entries(results.mysql.operations).map(([k, v]) => [k, [v.ok, v.docs]])),
        Object.fromEntries(Object.entries(results.postgres.operations).map(([k, v]) => [k, [v.ok, v.docs]])),
      );
      assert.deepEqual(await myRows(), await pgRows());
      const c = await runCli(['count'], { env: { WORKLOAD: 'oltp', URI: my.uri } });
      assert.equal(c.code, 0, c.stderr);
      assert.equal(last(c.stdout).documents, 2000);
      assert.equal(last(c.stdout).settle.command, 'FLUSH TABLES sbtest FOR EXPORT; UNLOCK TABLES; ANALYZE LOCAL TABLE sbtest');
    });
  }
});
