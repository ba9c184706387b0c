'use strict';
// GlobalSign's "person" documents (seed 001, the MPJBT tool's record): what every database's file of
// the workload (databases/<db>/client/workloads/globalsign.js) stores in its own form, and the one
// canonical form their read-backs are digested in.
//
// Person id p (an integer): a name, 1-3 addresses {number, line1, line2}, a phone number, a date of
// birth, an integer age, a float balance, a boolean, an int32 counter and PAD_BYTES random bytes of
// padding. Everything is drawn from (SEED, p), so a person is the same whichever client inserts it.
// Where the study differs (its own code, domodwyer/mpjbt record/record.go): it drew 0-4 addresses,
// the date of birth was time.Now(), age and counter were the same random 32-bit number (so its band
// 45 < age < 75 held almost no row); here addresses are 1-3 (the issue's), dates are drawn, and age is
// uniform in 0..AGE_MAX, so AGE_MAX sets the share of people in the band.
const crypto = require('crypto');
const { Sfc32 } = require('../prng');
const { canonical } = require('../document-digest');

const TABLE = 'globalsign';
const INDEX = 'globalsign_age_band';
const PERSON_SALT = 0x70657273; // "pers"
const PAD_SALT = 0x70616421; // "pad!"
const BALANCE_SALT = 0x62616c21; // "bal!"
const LETTERS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
// Dates of birth: whole milliseconds from 1920-01-01 to 2020-01-01 (UTC), so every database keeps them
// exactly (BSON dates and the ISO text both hold milliseconds).
const DOB_FROM_MS = Date.UTC(1920, 0, 1);
const DOB_SPAN_MS = Date.UTC(2020, 0, 1) - DOB_FROM_MS;

const rng = new Sfc32(0, 0, 0, 0);
const unit = (r) => r.next() / 4294967296;

// Letters of length 0..max-1, as the study's strings (its randStringBytesRmndr: x % n characters).
function letters(r, max) {
  const n = r.next() % max;
  let s = '';
  for (let k = 0; k < n; k++) s += LETTERS[r.next() % LETTERS.length];
  return s;
}

// A standard normal draw (Box-Muller), as the study's balance (Go's NormFloat64).
function normal(r) {
  const u = 1 - unit(r); // (0, 1]: log(0) never
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * unit(r));
}

// PAD_BYTES random bytes of person p (the study's rnd.Read(p.Padding)).
function padding(seed, p, bytes) {
  const out = Buffer.allocUnsafe(bytes);
  const r = rng.reseed((seed ^ PAD_SALT) >>> 0, p >>> 0, Math.floor(p / 4294967296));
  let k = 0;
  for (; k + 4 <= bytes; k += 4) out.writeUInt32LE(r.next(), k);
  if (k < bytes) {
    const last = r.next();
    for (let j = 0; k < bytes; k++, j++) out[k] = (last >>> (8 * j)) & 0xff;
  }
  return out;
}

// Person p as a plain object; padding as a Buffer, dob as a Date (each database's file encodes them).
function person(seed, p, { padBytes, ageMax }) {
  const r = rng.reseed((seed ^ PERSON_SALT) >>> 0, p >>> 0, Math.floor(p / 4294967296));
  const name = letters(r, 50);
  const number = r.next() % 256;
  const addresses = [];
  const n = 1 + (r.next() % 3);
  for (let k = 0; k < n; k++) addresses.push({ number, line1: letters(r, 30), line2: letters(r, 30) });
  const phone = letters(r, 30);
  const dob = new Date(DOB_FROM_MS + Math.floor(unit(r) * DOB_SPAN_MS));
  const age = r.next() % (ageMax + 1);
  const balance = normal(r);
  const enabled = (r.next() & 1) === 1;
  const counter = r.next() | 0; // int32
  return {
    id: p, name, addresses, phone_number: phone, dob, age, balance, enabled, counter, padding: padding(seed, p, padBytes),
  };
}

// The canonical form (the digest's and the JSON databases' stored form): dob as ISO 8601 UTC text with
// milliseconds, padding as standard base64 text; numbers as JSON numbers (the shortest text that reads
// back as the same double), keys sorted by canonical().
function canonicalPerson(doc) {
  return {
    ...doc,
    dob: doc.dob instanceof Date ? doc.dob.toISOString() : doc.dob,
    padding: Buffer.isBuffer(doc.padding) ? doc.padding.toString('base64') : doc.padding,
  };
}

// The JSON text a JSON database stores for person p (PostgreSQL jsonb, MySQL JSON).
const personJson = (doc) => JSON.stringify(canonicalPerson(doc));

// The new balance of update i of a client (float32, as the study's rnd.Float32()).
function newBalance(seed, clientHash, i) {
  return Math.fround(unit(rng.reseed((seed ^ BALANCE_SALT) >>> 0, clientHash, i >>> 0)));
}

// The band's bounds as integers for a statement's text (a database's file puts them there as
// constants): anything else is a mistake of the caller, refused rather than sent.
function bandBounds(band) {
  const min = Number(band && band.min);
  const max = Number(band && band.max);
  if (!Number.isSafeInteger(min) || !Number.isSafeInteger(max)) throw new Error(`the band's bounds must be integers: ${JSON.stringify(band)}`);
  return { min, max };
}

// Whether an age lies in the band (the range select's and the partial index's predicate: strict
// bounds, as the study's `age > 45 AND age < 75`).
const inBand = (age, band) => age > band.min && age < band.max;

// Person ids: loaded person r (0..RECORDS-1) is client (r % CLIENTS + 1)'s insert floor(r / CLIENTS);
// client c's insert k is person k * CLIENTS + c - 1, so a client's run-stage inserts continue its
// own ids past RECORDS and no two clients make the same id.
const personId = (clientIndex, clients, k) => k * clients + clientIndex;

// sha256 over the sorted lines "id<TAB>sha256(canonical person)" (count's digest: the same whatever
// order a server returns rows in); rows: iterable of canonical persons (id included).
function personsDigest(rows) {
  const sha = (t) => crypto.createHash('sha256').update(t).digest('hex');
  const lines = [];
  const ids = [];
  let bytes = 0;
  for (const doc of rows) {
    const text = canonical(doc);
    bytes += Buffer.byteLength(text);
    lines.push(`${doc.id}\t${sha(text)}`);
    ids.push(String(doc.id));
  }
  lines.sort();
  ids.sort();
  return {
    documents: lines.length,
    sha256: sha(lines.join('\n')),
    keys_sha256: sha(ids.join('\n')),
    canonical_bytes: bytes,
    keys: 'compared: person ids (integers)',
    about: 'sha256 over the sorted lines "id<TAB>sha256(person as canonical JSON: keys sorted, dob ISO 8601 UTC, padding base64)"',
  };
}

module.exports = {
  TABLE, INDEX, bandBounds, person, canonicalPerson, personJson, newBalance, inBand, personId, personsDigest, padding,
};
