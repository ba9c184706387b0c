'use strict';
// Client CPU per committed transaction (WORKLOAD=booking, and oltp at 95/5), this client (the
// Runner, the workload and the binding's transaction step kind, back to back on one connection)
// next to a floor client of the same driver sending the same statements in a transaction with
// nothing around them, on a real PostgreSQL and on SecantusDB as a single-node replica set
// (started here, stopped by pid).
// Target: ours <= 1.5 x floor on both. After a warm-up round of each, rounds alternate and the
// median is kept.
const { MongoClient, Binary } = require('mongodb');
const { Client } = require('pg');
const { startPostgres } = require('../test/helpers/postgres-server');
const { startSecantus } = require('../test/helpers/secantus-server');
const { runCli } = require('../test/helpers/run-cli');
const { createTarget } = require('../src/targets');
const { BookingWorkload } = require('../src/workloads/booking');
const { OltpWorkload, runOp } = require('../src/workloads/oltp');
const pgOltp = require('../../databases/postgres/client/workloads/oltp');
const mongoOltp = require('../../databases/mongodb/client/workloads/oltp');
const { TXN_OPTIONS } = require('../../databases/mongodb/client/mongodb-txn');
const { Runner } = require('../src/runner');
const { KeyDeriver, ClientKeys, uuidString } = require('../src/keys');

const TXNS = { postgres: Number(process.env.BENCH_TXNS || 1000), mongodb: Number(process.env.BENCH_MONGO_TXNS || 300) };
const ROUNDS = Number(process.env.BENCH_ROUNDS || 3);
const FLIGHTS = 2000;
const TARGET = 1.5;

const cpuUs = async (fn) => {
  const c0 = process.cpuUsage();
  await fn();
  const c = process.cpuUsage(c0);
  return c.user + c.system;
};

const TABLE_ROWS = 10000;
const txnOpts = (database, n, round) => ({
  database, ops: n, rate: 0, seed: 1, clientId: String(round + 1), clients: 999, key: 'uuidv7', flights: FLIGHTS, dayRange: 30,
  bookingSleepMs: 0, isolation: 'read-committed', retry: 'backoff', maxAttempts: 10, durability: 'strict', reconnectTimeoutS: 5,
  tableRows: TABLE_ROWS, oltpMix: '95/5',
});

async function ours(database, uri, n, round, Workload = BookingWorkload) {
  const target = createTarget(database, uri);
  await target.connect();
  const opts = txnOpts(database, n, round);
  const workload = new Workload({ target, opts });
  await workload.prepare(opts);
  const runner = new Runner({ target, workload, opts, metrics: null, log: () => {}, label: database });
  const us = await cpuUs(() => runner.run());
  await target.close();
  if (runner.ok !== n) throw new Error(`ours on ${database}: ${runner.ok}/${n} committed (${runner.errorSamples.join('; ')})`);
  return us / n;
}

// The floor: the same statements, one transaction after another, no schedule, no counting.
async function floorPostgres(uri, n, round) {
  const c = new Client({ connectionString: uri });
  await c.connect();
  const keys = new ClientKeys(new KeyDeriver('uuidv7', 2), `floor-${round}`);
  const us = await cpuUs(async () => {
    for (let i = 0; i < n; i++) {
      const id = uuidString(keys.buffer(i));
      const s = 1 + (i % FLIGHTS);
      await c.query('begin isolation level read committed');
      const f = (await c.query({ name: 'f', text: 'select s.id, s.duration_min, a.seats from schedule s join aircraft a on a.id = s.aircraft_id where s.id = $1', values: [s] })).rows[0];
      await c.query({ name: 's', text: 'insert into seat (id, schedule_id, day, user_id, seat_no) values ($1, $2, $3, $4, $5)', values: [id, s, '2025-01-02', i, 1 + (i % f.seats)] });
      await c.query({ name: 'p', text: 'insert into payment (id, user_id, amount_cents) values ($1, $2, $3)', values: [id, i, f.duration_min * 25] });
      await c.query({ name: 'a', text: 'insert into audit (schedule_id, day, seats_occupied) values ($1, $2, 1) on conflict (schedule_id, day) do update set seats_occupied = audit.seats_occupied + 1', values: [s, '2025-01-02'] });
      await c.query('commit');
    }
  });
  await c.end();
  return us / n;
}

async function floorMongo(uri, n, round) {
  const client = new MongoClient(uri, { maxPoolSize: 1, retryWrites: false });
  await client.connect();
  const db = client.db();
  const session = client.startSession();
  const keys = new ClientKeys(new KeyDeriver('uuidv7', 2), `floor-${round}`);
  const day = new Date('2025-01-02T00:00:00Z');
  const us = await cpuUs(async () => {
    for (let i = 0; i < n; i++) {
      const id = new Binary(keys.buffer(i), Binary.SUBTYPE_UUID);
      const s = 1 + (i % FLIGHTS);
      session.startTransaction({ readConcern: { level: 'snapshot' }, writeConcern: { w: 'majority' } });
      const [f] = await db.collection('schedule').aggregate([{ $match: { _id: s } },
        { $lookup: { from: 'aircraft', localField: 'aircraft_id', foreignField: '_id', as: 'a' } },
        { $project: { duration_min: 1, seats: { $first: '$a.seats' } } }], { session }).toArray();
      await db.collection('seat').insertOne({ _id: id, schedule_id: s, day, user_id: i, seat_no: 1 + (i % f.seats) }, { session });
      await db.collection('payment').insertOne({ _id: id, user_id: i, amount_cents: f.duration_min * 25 }, { session });
      await db.collection('audit').updateOne({ schedule_id: s, day }, { $inc: { seats_occupied: 1 } }, { session, upsert: true });
      await session.commitTransaction();
    }
  });
  await session.endSession();
  await client.close();
  return us / n;
}

// The OLTP floor: the same operations (made before the clock starts), each in a transaction
// through the driver directly, with the models' own step functions and nothing else.
async function floorOltp(database, uri, n, round) {
  const opsOf = new OltpWorkload({ target: { database }, opts: txnOpts(database, n, round + 100) });
  const ops = Array.from({ length: n }, (_, i) => ({ ...opsOf.build(i) }));
  if (database === 'postgres') {
    const c = new Client({ connectionString: uri });
    await c.connect();
    const tx = pgOltp.stepsOn(c);
    const us = await cpuUs(async () => {
      for (const op of ops) {
        await c.query('begin isolation level read committed');
        await runOp(tx, op);
        await c.query('commit');
      }
    });
    await c.end();
    return us / n;
  }
  const client = new MongoClient(uri, { maxPoolSize: 1, retryWrites: false });
  await client.connect();
  const session = client.startSession();
  const tx = mongoOltp.stepsOn(client.db(), session);
  const us = await cpuUs(async () => {
    for (const op of ops) {
      session.startTransaction(TXN_OPTIONS);
      await runOp(tx, op);
      await session.commitTransaction();
    }
  });
  await session.endSession();
  await client.close();
  return us / n;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  const pg = await startPostgres();
  let sec = null;
  const verdicts = [];
  try {
    sec = await startSecantus({ replset: true });
    const cases = [
      ['booking', 'postgres', pg, floorPostgres, BookingWorkload],
      ['booking', 'mongodb', sec, floorMongo, BookingWorkload],
      ['oltp 95/5', 'postgres', pg, (uri, n, r) => floorOltp('postgres', uri, n, r), OltpWorkload],
      ['oltp 95/5', 'mongodb', sec, (uri, n, r) => floorOltp('mongodb', uri, n, r), OltpWorkload],
    ];
    for (const [name, database, server, floor, Workload] of cases) {
      const env = name === 'booking' ? { WORKLOAD: 'booking', FLIGHTS: String(FLIGHTS) } : { WORKLOAD: 'oltp', TABLE_ROWS: String(TABLE_ROWS) };
      const init = await runCli(['init'], { env: { URI: server.uri, KEY: 'uuidv7', LAYOUT: 'heap', ...env }, timeoutMs: 180000 });
      if (init.code !== 0) throw new Error(`init ${database}: ${init.stderr}`);
      const o = [];
      const f = [];
      // A warm-up round of each (JIT, the driver's first statements), not counted.
      await floor(server.uri, TXNS[database], ROUNDS);
      await ours(database, server.uri, TXNS[database], ROUNDS, Workload);
      for (let r = 0; r < ROUNDS; r++) {
        f.push(await floor(server.uri, TXNS[database], r));
        o.push(await ours(database, server.uri, TXNS[database], r, Workload));
      }
      const ratio = median(o) / median(f);
      const ok = ratio <= TARGET;
      verdicts.push(ok);
      console.log(`${name} ${database}${database === 'mongodb' ? ' (SecantusDB stand-in)' : ''}: client CPU per committed transaction `
        + `ours ${median(o).toFixed(0)} us, floor ${median(f).toFixed(0)} us (medians of ${ROUNDS} x ${TXNS[database]}): `
        + `${ratio.toFixed(2)}x, target <= ${TARGET}x: ${ok ? 'met' : 'MISSED'}`);
    }
  } finally {
    await pg.cleanup();
    if (sec) await sec.cleanup();
  }
  return verdicts;
}

module.exports = { main };
if (require.main === module) main().catch((err) => { console.error(err); process.exit(1); });
