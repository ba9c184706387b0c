'use strict';
// A digest of a query's answer that is comparable across databases: the
// "did they do the same work" proof. Rows from pg and from the mongodb driver
// differ in form, not in meaning: numbers arrive as int, double, BigInt,
// BSON Long/Int32/Double/Decimal128 or (pg int8/numeric) strings; times as
// Dates; documents with any key order; rows in any order unless the query
// defines one. Each row is normalised to canonical JSON text, the texts are
// ordered as the query defines, and the digest is sha256 over them.
const crypto = require('crypto');

const DEFAULT_DIGITS = 12;
const SAMPLE_ROWS = 5;

function fail(key, value, allowed) {
  throw new Error(`query-digest: ${key}=${JSON.stringify(value)} is not allowed; ${key} must be ${allowed}`);
}

// A number rounded to `digits` significant digits, as a finite JSON number,
// or a string for what JSON cannot hold. -0 is 0: SQL and BSON disagree on
// keeping the sign of a zero result, and it means the same.
function normNumber(x, digits) {
  // Beyond 2^53 a double is an exact integer, and the driver hands a BSON Long of 2^53 over as
  // that double: its exact digits, as the same integer from pg int8 text (normInteger).
  if (Number.isFinite(x) && Math.abs(x) > Number.MAX_SAFE_INTEGER) return { $int: BigInt(x).toString() };
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return 'Infinity';
  if (x === -Infinity) return '-Infinity';
  if (x === 0) return 0;
  const r = Number(x.toPrecision(digits));
  return r === 0 ? 0 : r;
}

// An exact integer (BigInt, BSON Long, pg int8 or integral numeric text). Within 2^53 it is the
// number a double holds exactly (so it digests equal to the same count as a JS number from the
// other database); beyond, rounding would merge neighbours (2^53 and 2^53 + 1), so it keeps
// every digit, tagged so that it never equals a string. (Rounding to `digits` stays for doubles
// within 2^53, where it absorbs the last-bit differences of float arithmetic.)
function normInteger(big, digits) {
  if (big <= MAX_SAFE && big >= -MAX_SAFE) return normNumber(Number(big), digits);
  return { $int: big.toString() };
}
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const INTEGER_TEXT = /^-?[0-9]+$/;
// Decimal text (pg numeric, Decimal128): integral text exactly, else a double.
const normDecimalText = (text, digits) => (INTEGER_TEXT.test(text) ? normInteger(BigInt(text), digits) : normNumber(Number(text), digits));

// BSON values are recognised by their _bsontype tag (no bson import: the
// digest must not care which driver version made them).
function normBson(v, digits) {
  switch (v._bsontype) {
    case 'Long': return normInteger(BigInt(v.toString()), digits);
    case 'Int32': case 'Double': return normNumber(Number(v.valueOf()), digits);
    case 'Decimal128': return normDecimalText(v.toString(), digits);
    case 'ObjectId': case 'ObjectID': return v.toHexString();
    case 'Binary': return v.sub_type === 4 && v.toUUID ? v.toUUID().toString() : Buffer.from(v.buffer).toString('hex');
    case 'UUID': return v.toString();
    case 'Timestamp': return normNumber(Number(v.toString()), digits);
    default: throw new Error(`query-digest: BSON type ${v._bsontype} has no normal form; project it to a number, string or date in the query`);
  }
}

function normValue(v, digits) {
  if (v === null || v === undefined) return null;
  switch (typeof v) {
    case 'number': return normNumber(v, digits);
    case 'bigint': return normInteger(v, digits);
    case 'string': case 'boolean': return v;
    case 'object': break;
    default: throw new Error(`query-digest: a ${typeof v} value has no normal form`);
  }
  // A Date is its ISO 8601 text: jsonb has no date type, so the JSON side of
  // a comparison often holds exactly this text.
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? 'Invalid Date' : v.toISOString();
  if (Buffer.isBuffer(v)) return v.toString('hex');
  if (v._bsontype) return normBson(v, digits);
  if (Array.isArray(v)) return v.map((x) => normValue(x, digits));
  const out = {};
  for (const k of Object.keys(v).sort()) {
    if (v[k] === undefined) continue; // absent and undefined are the same field
    out[k] = normValue(v[k], digits);
  }
  return out;
}

const getPath = (row, path) => path.split('.').reduce((x, k) => (x == null ? undefined : x[k]), row);
// A column whose path the row does not have: not null (a field holding null), which would let an
// answer that lost a field digest equal to one that has it.
const MISSING = Object.freeze({ $missing: true });

// columns: an array of names (the same in both answers) or {name: path} (a
// path per side, e.g. MongoDB's {hour: '_id.hour'}); the row becomes its
// values in that order, so column names and extra fields (_id) drop out.
function rowOf(row, columns, digits) {
  if (!columns) return normValue(row, digits);
  if (Array.isArray(row)) fail('columns', columns, 'absent when rows are arrays');
  return columns.map(([, path]) => {
    const v = getPath(row, path);
    return v === undefined ? MISSING : normValue(v, digits);
  });
}

function normaliseOptions(opts = {}) {
  const known = ['digits', 'ordered', 'orderColumns', 'columns', 'sample'];
  for (const k of Object.keys(opts)) if (!known.includes(k)) fail(k, opts[k], `one of ${known.join(', ')} (unknown option)`);
  const digits = opts.digits === undefined ? DEFAULT_DIGITS : opts.digits;
  if (!Number.isInteger(digits) || digits < 1 || digits > 15) fail('digits', digits, 'an integer in 1..15 (a double holds 15 significant digits exactly)');
  let columns = null;
  if (Array.isArray(opts.columns)) columns = opts.columns.map((c) => [c, c]);
  else if (opts.columns && typeof opts.columns === 'object') columns = Object.entries(opts.columns);
  else if (opts.columns !== undefined) fail('columns', opts.columns, 'an array of names or an object {name: path}');
  const orderColumns = opts.orderColumns || null;
  if (orderColumns) {
    if (!columns) fail('orderColumns', orderColumns, 'used together with columns');
    for (const c of orderColumns) if (!columns.some(([n]) => n === c)) fail('orderColumns', orderColumns, `names among columns (${columns.map(([n]) => n).join(', ')})`);
  }
  const ordered = Boolean(opts.ordered || orderColumns);
  return { digits, ordered, orderColumns, columns, sample: opts.sample === undefined ? SAMPLE_ROWS : opts.sample };
}

const byText = (a, b) => (a < b ? -1 : a > b ? 1 : 0);

// Row texts in the order the query defines: none -> sorted; a full order ->
// as returned; ordered by some columns -> as returned, but rows that tie on
// those columns (whose order the database may choose) sorted among themselves.
function arrange(values, o) {
  const texts = values.map((v) => JSON.stringify(v));
  if (!o.ordered) return texts.sort(byText);
  if (!o.orderColumns) return texts;
  const idx = o.orderColumns.map((c) => o.columns.findIndex(([n]) => n === c));
  const keyOf = (v) => JSON.stringify(idx.map((i) => v[i]));
  const out = [];
  let i = 0;
  while (i < values.length) {
    let j = i + 1;
    while (j < values.length && keyOf(values[j]) === keyOf(values[i])) j++;
    out.push(...texts.slice(i, j).sort(byText));
    i = j;
  }
  return out;
}

// pg returns int8 and numeric as strings (they may not fit a double); turn
// them into numbers by the column's type, never by guessing from the text:
// integral text as a BigInt (exact, normInteger), other numeric text as a double.
const PG_NUMERIC_TEXT_TYPES = new Set([20, 1700]); // int8, numeric
const pgNumber = (text) => (INTEGER_TEXT.test(text) ? BigInt(text) : Number(text));
function pgRows(result) {
  const numeric = result.fields.filter((f) => PG_NUMERIC_TEXT_TYPES.has(f.dataTypeID)).map((f) => f.name);
  if (!numeric.length) return result.rows;
  return result.rows.map((r) => {
    const out = { ...r };
    for (const n of numeric) if (out[n] !== null) out[n] = pgNumber(out[n]);
    return out;
  });
}

// rows: an array of row objects (or arrays). Returns {digest, rows, sample,
// normalisation}; `lines` (every normalised row, for compareDigests) is kept
// as a non-enumerable property so results.json stays small.
function digestRows(rows, opts) {
  if (!Array.isArray(rows)) fail('rows', typeof rows, 'an array of rows');
  const o = normaliseOptions(opts);
  const lines = arrange(rows.map((r) => rowOf(r, o.columns, o.digits)), o);
  const hash = crypto.createHash('sha256');
  for (const l of lines) hash.update(l).update('\n');
  const out = {
    digest: hash.digest('hex'),
    rows: lines.length,
    sample: lines.slice(0, o.sample).map((l) => JSON.parse(l)),
    normalisation: {
      digits: o.digits, ordered: o.ordered, order_columns: o.orderColumns,
      columns: o.columns ? o.columns.map(([n]) => n) : null,
    },
  };
  Object.defineProperty(out, 'lines', { value: lines, enumerable: false });
  return out;
}

// Compare two digests. Equal digests under the same normalisation are the
// same answer; otherwise the first differing row of each (with `context`
// rows around it) is shown so the report can show both answers.
function compareDigests(a, b, { names = ['a', 'b'], context = 2 } = {}) {
  const [na, nb] = names;
  if (JSON.stringify(a.normalisation) !== JSON.stringify(b.normalisation)) {
    return { equal: false, reason: 'normalisation differs', message: `${na} and ${nb} were digested with different normalisations: ${JSON.stringify(a.normalisation)} vs ${JSON.stringify(b.normalisation)}` };
  }
  if (a.digest === b.digest && a.rows === b.rows) return { equal: true, digest: a.digest, rows: a.rows };
  const la = a.lines; const lb = b.lines;
  const res = { equal: false, rows: { [na]: a.rows, [nb]: b.rows }, digests: { [na]: a.digest, [nb]: b.digest } };
  if (!la || !lb) {
    res.message = `${na} (${a.rows} rows, sha256 ${a.digest}) and ${nb} (${b.rows} rows, sha256 ${b.digest}) differ; samples: ${na} ${JSON.stringify(a.sample)}, ${nb} ${JSON.stringify(b.sample)}`;
    return res;
  }
  let i = 0;
  while (i < la.length && i < lb.length && la[i] === lb[i]) i++;
  const from = Math.max(0, i - context);
  const slice = (l) => l.slice(from, i + context + 1).map((x) => JSON.parse(x));
  res.first_difference = { index: i, from, [na]: slice(la), [nb]: slice(lb) };
  const show = (l) => (i < l.length ? l[i] : '(no row: answer ends)');
  res.message = `answers differ at row ${i} (${na} ${a.rows} rows, ${nb} ${b.rows} rows): ${na} ${show(la)} vs ${nb} ${show(lb)}`;
  return res;
}

module.exports = { digestRows, compareDigests, pgRows, normValue, DEFAULT_DIGITS };
