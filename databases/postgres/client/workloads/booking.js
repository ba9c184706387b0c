'use strict';
// WORKLOAD=booking on PostgreSQL: the airline booking model (client/src/workloads/booking-data.js),
// its tables and index, the static data, the steps of one booking (run by the binding's transaction
// step kind, postgres-txn.js), the nothing-lost check, and what its sessions send besides them.
const { workloadData, uuidString } = require('../../../../client/src/sdk');

const { tables, INDEXES, rows, AIRCRAFT } = workloadData('booking');

const DDL = [
  'create table aircraft (id int primary key, model text not null, seats int not null)',
  'create table schedule (id int primary key, flight text not null, origin text not null, destination text not null, '
    + 'departure_min int not null, duration_min int not null, aircraft_id int not null references aircraft (id))',
  'create table seat (id uuid primary key, schedule_id int not null, day date not null, user_id int not null, seat_no int not null)',
  'create table payment (id uuid primary key, user_id int not null, amount_cents bigint not null)',
  'create table audit (schedule_id int not null, day date not null, seats_occupied int not null)',
];

const FLIGHT = {
  name: 'booking_flight',
  text: 'select s.id, s.duration_min, a.seats from schedule s join aircraft a on a.id = s.aircraft_id where s.id = $1',
};
const SEAT = { name: 'booking_seat', text: 'insert into seat (id, schedule_id, day, user_id, seat_no) values ($1, $2, $3, $4, $5)' };
const PAYMENT = { name: 'booking_payment', text: 'insert into payment (id, user_id, amount_cents) values ($1, $2, $3)' };
const AUDIT = {
  name: 'booking_audit',
  text: 'insert into audit (schedule_id, day, seats_occupied) values ($1, $2, 1) '
    + 'on conflict (schedule_id, day) do update set seats_occupied = audit.seats_occupied + 1',
};

const indexSql = (ix) => `create ${ix.unique ? 'unique ' : ''}index ${ix.name} on ${ix.table} (${ix.fields.join(', ')})`;

async function init(client, { seed, flights }) {
  await client.query(`drop table if exists ${Object.keys(tables).reverse().join(', ')}`);
  for (const sql of DDL) await client.query(sql);
  await insertAll(client, 'aircraft', rows('aircraft', seed, AIRCRAFT));
  await insertAll(client, 'schedule', rows('schedule', seed, flights));
  const indexes = INDEXES.map(indexSql);
  for (const sql of indexes) await client.query(sql);
  return { created: DDL.join('; '), indexes };
}

// Multi-row inserts of 500 rows, parameters bound (no SQL built from values).
async function insertAll(client, table, source) {
  const cols = tables[table];
  let batch = [];
  const flush = async () => {
    if (!batch.length) return;
    const values = batch.map((_, r) => `(${cols.map((__, c) => `$${r * cols.length + c + 1}`).join(', ')})`).join(', ');
    await client.query(`insert into ${table} (${cols.join(', ')}) values ${values}`, batch.flatMap((row) => cols.map((c) => row[c])));
    batch = [];
  };
  for (const row of source) {
    batch.push(row);
    if (batch.length === 500) await flush();
  }
  await flush();
}

// The step kinds of one transaction on this session.
function stepsOn(client) {
  return {
    async flightWithAircraft(scheduleId) {
      const { rows: r } = await client.query({ ...FLIGHT, values: [scheduleId] });
      if (r.length !== 1) throw new Error(`booking: no flight ${scheduleId} (was init run with the same FLIGHTS and SEED?)`);
      return { id: r[0].id, durationMin: r[0].duration_min, seats: r[0].seats };
    },
    insertSeat: (s) => client.query({ ...SEAT, values: [s.id, s.scheduleId, s.day, s.userId, s.seatNo] }),
    insertPayment: (p) => client.query({ ...PAYMENT, values: [p.id, p.userId, p.amountCents] }),
    addToAudit: (scheduleId, day) => client.query({ ...AUDIT, values: [scheduleId, day] }),
  };
}

// Nothing lost: seats = payments (the same ids), every audit row = its (flight, day)'s seats.
// At most `limit` offending rows are listed.
async function verify(client, limit = 20) {
  const one = async (sql) => (await client.query(sql)).rows;
  const [c] = await one(`select (select count(*) from seat)::bigint as seats, (select count(*) from payment)::bigint as payments,
    (select count(*) from audit)::bigint as audit_rows, (select coalesce(sum(seats_occupied), 0) from audit)::bigint as audit_seats`);
  const unpaid = await one(`select s.id::text as id from seat s left join payment p on p.id = s.id where p.id is null order by 1 limit ${limit}`);
  const orphan = await one(`select p.id::text as id from payment p left join seat s on s.id = p.id where s.id is null order by 1 limit ${limit}`);
  const audit = await one(`select coalesce(a.schedule_id, s.schedule_id) as schedule_id, to_char(coalesce(a.day, s.day), 'YYYY-MM-DD') as day,
      a.seats_occupied as audit, coalesce(s.n, 0)::int as seats
    from audit a full join (select schedule_id, day, count(*) as n from seat group by 1, 2) s on s.schedule_id = a.schedule_id and s.day = a.day
    where a.seats_occupied is distinct from s.n order by 1, 2 limit ${limit}`);
  return {
    seats: Number(c.seats), payments: Number(c.payments), audit_rows: Number(c.audit_rows), audit_seats: Number(c.audit_seats),
    seats_without_payment: unpaid.map((r) => r.id), payments_without_seat: orphan.map((r) => r.id), audit_mismatches: audit,
  };
}

// Every seat's id as 32 hex digits (the nothing-lost check matches them with the clients' bookings).
async function seatIds(client) {
  const { rows: r } = await client.query("select replace(id::text, '-', '') as id from seat");
  return r.map((x) => x.id);
}

async function sizes(client) {
  const { rows: r } = await client.query(`select sum(pg_table_size(t))::bigint as table_bytes, sum(pg_indexes_size(t))::bigint as index_bytes,
    sum(pg_total_relation_size(t))::bigint as total_bytes from unnest($1::regclass[]) t`, [Object.keys(tables)]);
  return { table_bytes: Number(r[0].table_bytes), index_bytes: Number(r[0].index_bytes), total_bytes: Number(r[0].total_bytes) };
}

// What client/src/workloads/booking*.js ask of this database (docs/contracts.md §2a, "Workload files").
module.exports = {
  // A booking's key as the uuid columns take it: its text, made in the workload's build (client
  // work, before the hand-off to the driver).
  key: (bytes) => uuidString(bytes),
  init: (target, opts) => init(target.handle(), opts),
  // The session as the binding prepares it for transactions (its commit durability, named statements).
  prepare: (target, opts) => target.prepareTransactions(opts),
  stepsOn,
  verify: (target) => verify(target.handle()),
  seatIds: (target) => seatIds(target.handle()),
  sizes: (target) => sizes(target.handle()),
  // What each `run` session sends besides its operations (server-stats' run_session): the binding's
  // connect and its session's durability; it prepares nothing (its statements are named, parsed at
  // their first use).
  runSession: { connections: 1, statements: 2, about: 'show server_version; set synchronous_commit' },
};
