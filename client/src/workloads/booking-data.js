'use strict';
// The airline booking model's static data (the OnGres transactions benchmark, reconstructed from
// the study's text: aircraft with their capacity, a flight schedule each served by one aircraft)
// and the tables every booking writes, declared once for both databases. Generated from SEED:
// row k of a table is a function of (seed, table, k) only, so both databases hold the same values
// (the study loaded real data from the LSV site; ~200 aircraft and ~15,000 flights, which are the
// defaults here).
const { Sfc32 } = require('../prng');

const AIRCRAFT = 200;
const DATA_SALT = 0x61697221; // "air!"
const AIRCRAFT_TABLE = 1;
const SCHEDULE_TABLE = 2;
const AIRPORTS = 120;
// Bookings fall on day BASE_DAY + 0..DAY_RANGE-1 (UTC).
const BASE_DAY_MS = Date.UTC(2025, 0, 1);
const DAY_MS = 86400000;
// A payment's amount: the flight's duration times this (cents per minute).
const CENTS_PER_MINUTE = 25;

const tables = {
  aircraft: ['id', 'model', 'seats'],
  schedule: ['id', 'flight', 'origin', 'destination', 'departure_min', 'duration_min', 'aircraft_id'],
  seat: ['id', 'schedule_id', 'day', 'user_id', 'seat_no'],
  payment: ['id', 'user_id', 'amount_cents'],
  audit: ['schedule_id', 'day', 'seats_occupied'],
};

// The secondary indexes, the same on both sides (ids are each table's primary key / _id): the
// audit upsert's conflict target (ON CONFLICT (schedule_id, day) / the $inc upsert's filter).
const INDEXES = [{ table: 'audit', name: 'audit_schedule_day', fields: ['schedule_id', 'day'], unique: true }];

const rng = new Sfc32(0, 0, 0, 0);
const letters = (r, n) => Array.from({ length: n }, () => String.fromCharCode(65 + (r.next() % 26))).join('');

function airport(seed, k) {
  return letters(rng.reseed((seed ^ DATA_SALT) >>> 0, 3, k), 3);
}

function aircraftRow(seed, id) {
  const r = rng.reseed((seed ^ DATA_SALT) >>> 0, AIRCRAFT_TABLE, id);
  const model = `${letters(r, 1)}${300 + (r.next() % 600)}`;
  return { id, model, seats: 50 + (r.next() % 351) };
}

function scheduleRow(seed, id) {
  const r = rng.reseed((seed ^ DATA_SALT) >>> 0, SCHEDULE_TABLE, id);
  const o = r.next() % AIRPORTS;
  const d = (o + 1 + (r.next() % (AIRPORTS - 1))) % AIRPORTS;
  const row = {
    id,
    flight: `${letters(r, 2)}${100 + (r.next() % 9000)}`,
    origin: null,
    destination: null,
    departure_min: 5 * (r.next() % 288),
    duration_min: 30 + (r.next() % 691),
    aircraft_id: 1 + (r.next() % AIRCRAFT),
  };
  row.origin = airport(seed, o);
  row.destination = airport(seed, d);
  return row;
}

// ids 1..n of a table, generated lazily.
function* rows(kind, seed, n) {
  const make = kind === 'aircraft' ? aircraftRow : scheduleRow;
  for (let id = 1; id <= n; id++) yield make(seed, id);
}

// 'YYYY-MM-DD' of day offset k.
const dayText = (k) => new Date(BASE_DAY_MS + k * DAY_MS).toISOString().slice(0, 10);

module.exports = {
  AIRCRAFT, BASE_DAY_MS, DAY_MS, CENTS_PER_MINUTE, tables, INDEXES, aircraftRow, scheduleRow, rows, dayText,
};
