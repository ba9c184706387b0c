'use strict';
// The booking transactions (WORKLOAD=booking) on a real PostgreSQL and on SecantusDB started as a
// single-node replica set (MongoDB stand-in: protocol behaviour, not MongoDB results): the same
// static data on both; a contention run (one day, two flights, transactions held open) retries on
// both and loses nothing; a server stopped mid-run loses no committed booking; a tampered table
// fails the check with its rows; a standalone MongoDB-protocol server and bad keys are refused.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { startPostgres } = require('../helpers/postgres-server');
const { startSecantus } = require('../helpers/secantus-server');
const { runCli, startCli } = require('../helpers/run-cli');
const { writeOutcomes } = require('../helpers/txn-outcomes');

const BASE = { WORKLOAD: 'booking', KEY: 'uuidv7', LAYOUT: 'heap', SEED: '5' };
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'jsonbench-booking-'));
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

// CLIENTS clients of `env` at once; their result files.
async function runClients(uri, env, clients, { during } = {}) {
  const runs = [];
  for (let c = 1; c <= clients; c++) {
    const result = path.join(tmp, `${path.basename(uri).replace(/\W/g, '')}-${Date.now()}-${c}.json`);
    runs.push({ result, run: startCli(['run'], { env: { ...BASE, ...env, URI: uri, CLIENTS: String(clients), CLIENT_ID: String(c), RESULT: result }, timeoutMs: 180000 }) });
  }
  if (during) await during();
  const done = await Promise.all(runs.map((r) => r.run.done));
  return done.map((d, k) => ({ ...d, result: fs.existsSync(runs[k].result) ? JSON.parse(fs.readFileSync(runs[k].result, 'utf8')) : null }));
}

const sum = (rs, f) => rs.reduce((a, r) => a + f(r.result), 0);
const scraped = {};
// TXN_OUTCOMES for count: the runs' committed and in-doubt bookings
const outcomesOf = (rs) => ({ TXN_OUTCOMES: writeOutcomes(tmp, rs.map((r) => r.result)) });
// the last contention run's clients, per server (the tampering test checks against them)
const contended = {};

async function count(uri, env = {}) {
  const r = await runCli(['count'], { env: { WORKLOAD: 'booking', URI: uri, ...env }, timeoutMs: 120000 });
  return { ...r, json: r.stdout.trim() ? JSON.parse(r.stdout.trim().split('\n').pop()) : null };
}

async function init(uri, env) {
  const r = await runCli(['init'], { env: { ...BASE, ...env, URI: uri }, timeoutMs: 180000 });
  assert.equal(r.code, 0, r.stderr + r.stdout);
  return r;
}

test('booking transactions', { timeout: 900000 }, async (t) => {
  const pg = await startPostgres();
  const sec = await startSecantus({ replset: true });
  t.after(async () => { await pg.cleanup(); await sec.cleanup(); });

  await t.test('init loads the same aircraft and 14,000 flights on both, and declares one index', async () => {
    const a = await init(pg.uri, {});
    const b = await init(sec.uri, {});
    for (const r of [a, b]) assert.equal(r.stdout.split('\n').filter((l) => l.startsWith('index: ')).length, 1, r.stdout);
    const pgRows = async (table) => (await pg.query(`select * from ${table} order by id`)).rows;
    const mgRows = (table) => sec.withDb(async (db) => (await db.collection(table).find({}).sort({ _id: 1 }).toArray())
      .map(({ _id, ...rest }) => ({ id: _id, ...rest })));
    for (const table of ['aircraft', 'schedule']) {
      const [x, y] = [await pgRows(table), await mgRows(table)];
      assert.equal(x.length, table === 'aircraft' ? 200 : 14000);
      assert.equal(JSON.stringify(x), JSON.stringify(y), `${table} differs`);
    }
  });

  // Two flights, one day, each transaction held open 20 ms, four clients: the audit rows are hot.
  const HOT = { FLIGHTS: '2', DAY_RANGE: '1', BOOKING_SLEEP_MS: '20', OPS: '25', RATE: '10', MAX_ATTEMPTS: '100' };
  for (const [name, server, env] of [
    ['PostgreSQL serializable', () => pg, { ISOLATION: 'serializable' }],
    ['SecantusDB snapshot/majority', () => sec, {}],
  ]) {
    await t.test(`contention on ${name}: retries, every attempt counted, nothing lost`, async () => {
      const { uri } = server();
      await init(uri, { FLIGHTS: HOT.FLIGHTS });
      const rs = await runClients(uri, { ...HOT, ...env }, 4);
      for (const r of rs) assert.equal(r.code, 0, r.stderr + r.stdout);
      const committed = sum(rs, (x) => x.docs_ok);
      const tx = rs.map((r) => r.result.transactions);
      const retries = tx.reduce((a, x) => a + x.retries, 0);
      assert.equal(committed, 100);
      assert.ok(retries > 0, `no retries under contention: ${JSON.stringify(tx)}`);
      for (const x of tx) {
        assert.equal(x.attempts, x.committed + Object.values(x.aborts).reduce((a, b) => a + b, 0), JSON.stringify(x));
        assert.equal(x.retries, Object.values(x.aborts).reduce((a, b) => a + b, 0));
        assert.ok(x.last_attempt_ms.p50 > 0);
      }
      // Latency from the intended start includes the retries; the last attempt alone does not.
      const worst = rs.map((r) => r.result).sort((p, q) => q.transactions.retries - p.transactions.retries)[0];
      assert.ok(worst.latency_ms.max >= worst.transactions.last_attempt_ms.max);
      const c = await count(uri, outcomesOf(rs));
      assert.equal(c.code, 0, c.stderr + c.stdout);
      assert.equal(c.json.booking_check.seats, committed);
      assert.equal(c.json.booking_check.audit_seats, committed);
      assert.equal(c.json.booking_check.ids_checked, committed);
      contended[name] = rs;
      t.diagnostic(`${name}: ${committed} committed, ${retries} retries, aborts ${JSON.stringify(tx.map((x) => x.aborts))}`);
    });
  }

  // The same bookings on both servers store the same seats: the seat number comes from the flight's
  // aircraft (a join on PostgreSQL, a $lookup on MongoDB), so a lookup that loses the aircraft's
  // seats shows here (SecantusDB resolved no field path through the looked-up array: every seat_no was 1).
  await t.test('the contention runs stored the same seats on both servers: flight, day, user and seat number', async () => {
    const day = (d) => d.toISOString().slice(0, 10);
    const key = (s) => `${s.schedule_id} ${day(s.day)} ${s.user_id} ${s.seat_no}`;
    const pgSeats = (await pg.query('select schedule_id, day, user_id, seat_no from seat')).rows.map(key).sort();
    const mgSeats = (await sec.withDb((db) => db.collection('seat').find({}).toArray())).map(key).sort();
    assert.equal(pgSeats.length, 100);
    assert.ok(new Set(pgSeats.map((s) => s.split(' ')[3])).size > 10, `seat numbers barely vary: ${pgSeats.slice(0, 5)}`);
    assert.deepEqual(mgSeats, pgSeats);
  });

  await t.test('a tampered audit row or a missing payment fails the check with the rows shown', async () => {
    await pg.query("update audit set seats_occupied = seats_occupied + 1 where schedule_id = 1");
    await pg.query('delete from payment where id = (select id from payment order by id limit 1)');
    const c = await count(pg.uri);
    assert.equal(c.code, 1);
    assert.match(c.stderr, /seats without a payment: [0-9a-f-]{36}/);
    assert.match(c.stderr, /\(1, 2025-01-01\) audit \d+ seats \d+/);
    await sec.withDb((db) => db.collection('seat').deleteOne({}));
    const m = await count(sec.uri, outcomesOf(contended['SecantusDB snapshot/majority']));
    assert.equal(m.code, 1);
    assert.match(m.stderr, /payments without a seat: [0-9a-f]{32}/);
    assert.match(m.stderr, /committed bookings lost: 1 \(client \d booking \d+ id [0-9a-f-]{36}\)/);
  });

  // A server stopped mid-run (PostgreSQL: fast shutdown; SecantusDB: killed) and started again on
  // the same data: every booking a client counted as committed is there.
  for (const [name, server, env, signal] of [
    ['PostgreSQL', () => pg, { ISOLATION: 'repeatable-read' }, 'SIGINT'],
    ['SecantusDB', () => sec, {}, 'SIGKILL'],
  ]) {
    await t.test(`${name} stopped mid-run: no committed booking lost`, async () => {
      const s = server();
      await init(s.uri, { FLIGHTS: '50' });
      const rs = await runClients(s.uri, {
        FLIGHTS: '50', DAY_RANGE: '3', OPS: '150', RATE: '30', RECONNECT_TIMEOUT_S: '60', ...env,
      }, 2, {
        during: async () => {
          await new Promise((r) => { setTimeout(r, 2000); });
          await s.stop(signal);
          await new Promise((r) => { setTimeout(r, 1000); });
          await s.restart(signal);
        },
      });
      const committed = sum(rs, (x) => x.docs_ok);
      const inDoubt = sum(rs, (x) => x.transactions.in_doubt);
      // The server was away for over a second: a transaction due then failed, or waited for it
      // (the MongoDB driver waits up to serverSelectionTimeoutMS for the server to come back).
      const waited = Math.max(...rs.map((r) => r.result.latency_ms.max));
      assert.ok(sum(rs, (x) => x.errors + x.dropped) > 0 || waited >= 1000, `the stop cost nothing (latency max ${waited} ms): the test did not test`);
      assert.ok(committed > 0);
      const c = await count(s.uri, outcomesOf(rs));
      assert.equal(c.code, 0, c.stderr + c.stdout);
      assert.ok(c.json.booking_check.seats >= committed);
      assert.equal(c.json.booking_check.ids_checked, committed + inDoubt);
      assert.equal(c.json.booking_check.seats, committed + c.json.booking_check.in_doubt_landed);
      t.diagnostic(`fault on ${name}: ${committed} committed, ${inDoubt} in doubt, ${c.json.booking_check.seats} seats, `
        + `errors ${sum(rs, (x) => x.errors)}, latency max ${waited} ms, aborts ${JSON.stringify(rs.map((r) => r.result.transactions.aborts))}`);
    });
  }

  // The client's /metrics: attempts, commits and aborts by reason as Prometheus counters, read once
  // the phase has ended (its target-rate series gone, /metrics kept up for the last scrape): they
  // equal the result file's counts, on both databases, retries included.
  await t.test('Prometheus series: transaction attempts, commits and aborts by reason equal the result file', async () => {
    const { freePort } = require('../helpers/processes');
    for (const [name, s] of [['postgres', pg], ['mongodb', sec]]) {
      await init(s.uri, { FLIGHTS: '1' });
      const port = await freePort();
      const [r] = await runClients(s.uri, {
        // each transaction held 60 ms while one is due every 25 ms on 3 sessions: always two or more on
        // the one audit row at once, so conflicts happen (held 20 ms, a run once had none on PostgreSQL)
        FLIGHTS: '1', DAY_RANGE: '1', BOOKING_SLEEP_MS: '60', ISOLATION: 'serializable', MAX_ATTEMPTS: '100', SESSIONS: '3',
        OPS: '40', RATE: '40', METRICS_PORT: String(port), METRICS_LINGER_S: '3', BENCH: 'bench-txn',
      }, 1, {
        during: async () => {
          let body = '';
          for (let i = 0; i < 300 && !/jsonbench_client_txn_commits_total\{[^}]*\} 40\n/.test(body); i++) {
            await new Promise((res) => { setTimeout(res, 100); });
            body = await fetch(`http://127.0.0.1:${port}/metrics`).then((res) => res.text()).catch(() => body);
          }
          scraped[name] = body;
        },
      });
      assert.equal(r.code, 0, r.stderr + r.stdout);
      const tx = r.result.transactions;
      const body = scraped[name];
      const labels = `bench="bench-txn",database="${name}",client_id="1"`;
      assert.match(body, new RegExp(`^jsonbench_client_txn_commits_total\\{${labels}\\} ${tx.committed}$`, 'm'));
      assert.match(body, new RegExp(`^jsonbench_client_txn_attempts_total\\{${labels}\\} ${tx.attempts}$`, 'm'));
      assert.ok(Object.keys(tx.aborts).length > 0, `${name}: no conflict, the aborts series is untested`);
      const series = [...body.matchAll(/^jsonbench_client_txn_aborts_total\{reason="([^"]+)",[^}]*\} (\d+)$/gm)]
        .map((m) => [m[1], Number(m[2])]);
      assert.deepEqual(Object.fromEntries(series), tx.aborts);
      t.diagnostic(`${name}: ${tx.attempts} attempts, ${tx.committed} commits, aborts ${JSON.stringify(tx.aborts)}`);
    }
  });

  // Each transaction holds 250 ms and one is due every 100 ms: one connection falls behind (each
  // starts when the one before committed), six start every transaction when it is due.
  await t.test('open loop: with SESSIONS, a transaction starts when due while earlier ones are still open', async () => {
    await init(pg.uri, { FLIGHTS: '100' });
    const env = { FLIGHTS: '100', DAY_RANGE: '30', BOOKING_SLEEP_MS: '250', OPS: '12', RATE: '10' };
    const [one] = await runClients(pg.uri, { ...env, SESSIONS: '1' }, 1);
    await init(pg.uri, { FLIGHTS: '100' });
    const [six] = await runClients(pg.uri, { ...env, SESSIONS: '6' }, 1);
    for (const r of [one, six]) assert.equal(r.code, 0, r.stderr + r.stdout);
    assert.equal(six.result.transactions.sessions, 6);
    assert.ok(one.result.start_lag_ms.max > 1000, `one session: start lag ${JSON.stringify(one.result.start_lag_ms)}`);
    assert.ok(six.result.start_lag_ms.max < 200, `six sessions: start lag ${JSON.stringify(six.result.start_lag_ms)}`);
    assert.ok(six.result.latency_ms.p50 >= 250);
    t.diagnostic(`start lag max: 1 session ${one.result.start_lag_ms.max} ms, 6 sessions ${six.result.start_lag_ms.max} ms`);
  });
});

test('a standalone MongoDB-protocol server is refused before any transaction', { timeout: 120000 }, async (t) => {
  const sec = await startSecantus();
  t.after(() => sec.cleanup());
  const r = await runCli(['run'], { env: { ...BASE, URI: sec.uri, RATE: '10', OPS: '5' } });
  assert.equal(r.code, 2, r.stderr + r.stdout);
  assert.match(r.stderr, /WORKLOAD=booking runs multi-document transactions.*standalone.*TOPOLOGY=replset/);
});

test('bad booking keys are refused naming the file or flag, the key and the allowed values', async () => {
  const file = path.join(tmp, 'bench.env');
  const bench = (extra) => `DESCRIPTION=x\nKEY=uuidv7\nLAYOUT=heap\nCLIENTS=2\nRATE=10\nWORKLOAD=booking\n${extra}\nTOPOLOGY=replset\n`;
  const cases = [
    ['ISOLATION=snapshot', /bench\.env:7: ISOLATION: invalid value "snapshot"; allowed: one of read-committed, repeatable-read, serializable/],
    ['RETRY=later', /bench\.env:7: RETRY: invalid value "later"; allowed: one of backoff, immediate/],
    ['MAX_ATTEMPTS=0', /bench\.env:7: MAX_ATTEMPTS: invalid value "0"; allowed: an integer >= 1 and <= 1000/],
    ['DAY_RANGE=0', /bench\.env:7: DAY_RANGE: invalid value "0"; allowed: an integer >= 1/],
    ['BOOKING_SLEEP_MS=-1', /bench\.env:7: BOOKING_SLEEP_MS: invalid value "-1"/],
    ['MIX=A', /bench\.env:7: MIX applies only with WORKLOAD=ycsb or globalsign/],
  ];
  for (const [line, re] of cases) {
    fs.writeFileSync(file, bench(line));
    const r = await runCli(['validate-bench', file]);
    assert.equal(r.code, 2, line);
    assert.match(r.stderr, re);
  }
  // A standalone MongoDB is refused before anything starts; PostgreSQL alone needs no TOPOLOGY.
  fs.writeFileSync(file, bench('DATABASES=mongodb postgres').replace('TOPOLOGY=replset', 'TOPOLOGY=standalone'));
  assert.match((await runCli(['validate-bench', file])).stderr,
    /bench\.env:8: WORKLOAD=booking runs multi-document transactions, which MongoDB allows only on a replica set, and this file has TOPOLOGY=standalone; allowed/);
  fs.writeFileSync(file, bench('DATABASES=postgres').replace('TOPOLOGY=replset', ''));
  assert.equal((await runCli(['validate-bench', file])).code, 0);
  fs.writeFileSync(file, bench('OPS=300'));
  assert.match((await runCli(['plan', file])).stdout, /^phase=mongodb database=mongodb stage=run ops=300 rate=10 expected_s=30 clients=2 query=-$/m);
  fs.writeFileSync(file, bench('DAY_RANGE=7').replace('KEY=uuidv7', 'KEY=sequence'));
  assert.match((await runCli(['validate-bench', file])).stderr, /KEY=sequence cannot be used with WORKLOAD=booking/);
  const r = await runCli(['run'], { env: { ...BASE, URI: 'postgres://u@127.0.0.1:1/x', RATE: '1', RETRY: 'soon' } });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /RETRY \(environment\): invalid value "soon"; allowed: one of backoff, immediate/);
  const s = await runCli(['run'], { env: { ...BASE, URI: 'postgres://u@127.0.0.1:1/x', RATE: '1', STAGE: 'load' } });
  assert.match(s.stderr, /the booking workload has only a run stage/);
});
