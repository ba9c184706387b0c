'use strict';
// WORKLOAD=booking on MongoDB: the airline booking model (client/src/workloads/booking-data.js),
// its collections and index, the static data, the steps of one booking (run by the binding's
// transaction step kind, mongodb-txn.js), and the nothing-lost check. Transactions need a replica
// set: a standalone server is refused before anything starts (the binding's prepareTransactions).
const { clientRequire, workloadData, InputError } = require('../../../../client/src/sdk');
const { StandaloneRefused } = require('../mongodb-txn');

const { Binary } = clientRequire('mongodb');
const { tables, INDEXES, rows, AIRCRAFT } = workloadData('booking');

const dayDate = (text) => new Date(`${text}T00:00:00Z`);
const uuid = (buf) => new Binary(buf, Binary.SUBTYPE_UUID);

const clustered = (layout) => (layout === 'clustered' ? { clusteredIndex: { key: { _id: 1 }, unique: true } } : {});

async function init(db, { seed, flights, layout }) {
  for (const name of Object.keys(tables)) {
    await db.collection(name).drop().catch((err) => { if (err.code !== 26) throw err; });
    await db.createCollection(name, clustered(layout));
  }
  // _id is each row's id, as PostgreSQL's primary key.
  const load = async (name, source) => {
    let batch = [];
    for (const { id, ...rest } of source) {
      batch.push({ _id: id, ...rest });
      if (batch.length === 1000) { await db.collection(name).insertMany(batch); batch = []; }
    }
    if (batch.length) await db.collection(name).insertMany(batch);
  };
  await load('aircraft', rows('aircraft', seed, AIRCRAFT));
  await load('schedule', rows('schedule', seed, flights));
  const indexes = [];
  for (const ix of INDEXES) {
    const key = Object.fromEntries(ix.fields.map((f) => [f, 1]));
    await db.collection(ix.table).createIndex(key, { name: ix.name, unique: Boolean(ix.unique) });
    indexes.push(`db.${ix.table}.createIndex(${JSON.stringify(key)}, {name: "${ix.name}", unique: ${Boolean(ix.unique)}})`);
  }
  return { created: `createCollection(${Object.keys(tables).join(', ')}, ${JSON.stringify(clustered(layout))})`, indexes };
}

// The flight joined with its aircraft, one document, in one round trip as PostgreSQL's join. The
// looked-up array is unwound (one aircraft per flight) rather than read through `$first: '$aircraft.seats'`:
// SecantusDB resolves no field path through an array (it gave null seats, so every seat_no was 1),
// and $unwind means the same on every MongoDB since 3.2.
const FLIGHT_PIPELINE = (id) => [
  { $match: { _id: id } },
  { $lookup: { from: 'aircraft', localField: 'aircraft_id', foreignField: '_id', as: 'aircraft' } },
  { $unwind: '$aircraft' },
  { $project: { duration_min: 1, seats: '$aircraft.seats' } },
];

function stepsOn(db, session) {
  const opt = { session };
  return {
    async flightWithAircraft(scheduleId) {
      const r = await db.collection('schedule').aggregate(FLIGHT_PIPELINE(scheduleId), opt).toArray();
      if (r.length !== 1) throw new Error(`booking: no flight ${scheduleId} (was init run with the same FLIGHTS and SEED?)`);
      return { id: r[0]._id, durationMin: r[0].duration_min, seats: r[0].seats };
    },
    insertSeat: (s) => db.collection('seat').insertOne({
      _id: uuid(s.id), schedule_id: s.scheduleId, day: dayDate(s.day), user_id: s.userId, seat_no: s.seatNo,
    }, opt),
    insertPayment: (p) => db.collection('payment').insertOne({ _id: uuid(p.id), user_id: p.userId, amount_cents: p.amountCents }, opt),
    addToAudit: (scheduleId, day) => db.collection('audit').updateOne(
      { schedule_id: scheduleId, day: dayDate(day) }, { $inc: { seats_occupied: 1 } }, { ...opt, upsert: true },
    ),
  };
}

const hex = (b) => Buffer.from(b.buffer).toString('hex');
const dayOf = (d) => d.toISOString().slice(0, 10);

async function verify(db, limit = 20) {
  const count = (name) => db.collection(name).countDocuments({});
  const [seats, payments, auditRows] = await Promise.all([count('seat'), count('payment'), count('audit')]);
  const [sum] = await db.collection('audit').aggregate([{ $group: { _id: null, n: { $sum: '$seats_occupied' } } }]).toArray();
  const missing = async (from, other) => (await db.collection(from).aggregate([
    { $lookup: { from: other, localField: '_id', foreignField: '_id', as: 'm' } },
    { $match: { m: { $size: 0 } } }, { $sort: { _id: 1 } }, { $limit: limit }, { $project: { _id: 1 } },
  ]).toArray()).map((d) => hex(d._id));
  // Seats per (flight, day) against the audit rows, both ways.
  const counted = await db.collection('seat').aggregate([{ $group: { _id: { s: '$schedule_id', d: '$day' }, n: { $sum: 1 } } }]).toArray();
  const audit = await db.collection('audit').find({}).toArray();
  const byKey = new Map(counted.map((c) => [`${c._id.s}|${dayOf(c._id.d)}`, c.n]));
  const mismatches = [];
  for (const a of audit) {
    const k = `${a.schedule_id}|${dayOf(a.day)}`;
    const n = byKey.get(k) ?? 0;
    byKey.delete(k);
    if (n !== a.seats_occupied) mismatches.push({ schedule_id: a.schedule_id, day: dayOf(a.day), audit: a.seats_occupied, seats: n });
  }
  for (const [k, n] of byKey) {
    const [s, d] = k.split('|');
    mismatches.push({ schedule_id: Number(s), day: d, audit: null, seats: n });
  }
  mismatches.sort((x, y) => x.schedule_id - y.schedule_id || (x.day < y.day ? -1 : 1));
  return {
    seats, payments, audit_rows: auditRows, audit_seats: sum ? sum.n : 0,
    seats_without_payment: await missing('seat', 'payment'), payments_without_seat: await missing('payment', 'seat'),
    audit_mismatches: mismatches.slice(0, limit),
  };
}

// Every seat's id as 32 hex digits (the nothing-lost check matches them with the clients' bookings).
async function seatIds(db) {
  return (await db.collection('seat').find({}, { projection: { _id: 1 } }).toArray()).map((d) => hex(d._id));
}

async function sizes(db) {
  const out = { table_bytes: 0, index_bytes: 0, total_bytes: 0 };
  for (const name of Object.keys(tables)) {
    const s = await db.command({ collStats: name });
    out.table_bytes += Number(s.storageSize);
    out.index_bytes += Number(s.totalIndexSize);
  }
  out.total_bytes = out.table_bytes + out.index_bytes;
  return out;
}

// The binding's transaction preparation; a standalone server's refusal (the binding's
// StandaloneRefused, what it needs unnamed) said as this workload's: "WORKLOAD=<workload> runs ...".
const prepareTransactionsOf = (workload) => (target, opts) => target.prepareTransactions(opts).catch((err) => {
  if (!(err instanceof StandaloneRefused)) throw err;
  throw new InputError(`WORKLOAD=${workload} ${err.message}`);
});

// What client/src/workloads/booking*.js ask of this database (docs/contracts.md §2a, "Workload
// files"); a booking's key is its 16 bytes (no `key`).
module.exports = {
  init: (target, opts) => init(target.handle(), opts),
  prepare: prepareTransactionsOf('booking'),
  stepsOn,
  verify: (target) => verify(target.handle()),
  seatIds: (target) => seatIds(target.handle()),
  sizes: (target) => sizes(target.handle()),
  // What each `run` session sends besides its operations (server-stats' run_session): the
  // binding's connect, and the hello of its replica-set check (prepare).
  runSession: { connections: 1, statements: 4, about: 'ping; buildInfo; hello; endSessions' },
  prepareTransactionsOf,
};
