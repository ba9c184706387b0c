'use strict';
// The one place that knows the bench parameters: names, allowed values and
// defaults. bench.env validation and the client's command-line flags both
// read these specs, so a value the lab accepts is a value the client accepts.
const { maxDocumentBytes, MONGODB_MAX_BSON_BYTES } = require('./doc-size');

const KEYS = ['uuidv7', 'uuidv4', 'sequence'];
const LAYOUTS = ['clustered', 'heap'];
const DURABILITIES = ['strict', 'relaxed'];
const KEY_FORMATS = ['binary', 'string'];
const DATABASES = ['mongodb', 'postgres'];

// type: text | enum | int | number | list (space-separated subset of values)
// min: inclusive lower bound; gt: exclusive lower bound.
const BENCH_SPECS = {
  DESCRIPTION: { type: 'text', required: true, about: 'one line for reports and branch names' },
  KEY: { type: 'enum', values: KEYS, required: true, about: 'primary key strategy' },
  LAYOUT: { type: 'enum', values: LAYOUTS, required: true, about: 'MongoDB layout (PostgreSQL is always heap)' },
  FIELDS: { type: 'int', min: 1, required: true, about: 'fields per document' },
  FIELD_BYTES: { type: 'int', min: 1, required: true, about: 'characters per field' },
  CLIENTS: { type: 'int', min: 1, required: true, about: 'clients per database phase' },
  RATE: { type: 'number', gt: 0, required: true, about: 'documents/second per client' },
  DOCS: { type: 'int', min: 1, required: true, about: 'documents per client' },
  SEED: { type: 'int', min: 0, default: '1', about: 'document generator seed' },
  DURABILITY: { type: 'enum', values: DURABILITIES, default: 'strict', about: 'commit durability' },
  KEY_FORMAT: { type: 'enum', values: KEY_FORMATS, default: 'binary', about: 'MongoDB _id as 16-byte UUID or 36-char string' },
  DATABASES: { type: 'list', values: DATABASES, default: 'mongodb postgres', about: 'databases to run, in this order' },
  QUIET_S: { type: 'int', min: 0, default: '60', about: 'quiet seconds before each phase' },
  PERF_RECORD_S: { type: 'int', min: 0, default: '30', about: 'perf record seconds mid-phase (0 = off)' },
  REPEAT: { type: 'int', min: 1, default: '1', about: 'repetitions of every database phase, interleaved, each on fresh volumes' },
};

class InputError extends Error {}

function describeAllowed(spec) {
  switch (spec.type) {
    case 'enum': return `one of ${spec.values.join(', ')}`;
    case 'list': return `a space-separated, non-empty subset of "${spec.values.join(' ')}" without repeats`;
    case 'int': return `an integer >= ${spec.min}${spec.max !== undefined ? ` and <= ${spec.max}` : ''}`;
    case 'number': return spec.gt !== undefined ? `a number > ${spec.gt}` : `a number >= ${spec.min}`;
    case 'text': return spec.pattern ? spec.patternAbout : 'non-empty text on one line';
    default: throw new Error(`unknown spec type ${spec.type}`);
  }
}

// Returns the parsed value or throws InputError(`<where> ...`). `where`
// names the origin: "bench1/bench.env: FIELDS" or "--fields".
function parseValue(spec, raw, where) {
  const fail = () => {
    throw new InputError(`${where}: invalid value ${JSON.stringify(raw)}; allowed: ${describeAllowed(spec)}`);
  };
  const s = String(raw).trim();
  switch (spec.type) {
    case 'enum':
      if (!spec.values.includes(s)) fail();
      return s;
    case 'list': {
      const items = s.split(/\s+/).filter(Boolean);
      if (!items.length || items.some((x) => !spec.values.includes(x)) || new Set(items).size !== items.length) fail();
      return items;
    }
    case 'int': {
      if (!/^[0-9]+$/.test(s)) fail();
      const n = Number(s);
      if (!Number.isSafeInteger(n) || n < spec.min || (spec.max !== undefined && n > spec.max)) fail();
      return n;
    }
    case 'number': {
      if (!/^[0-9]+(\.[0-9]+)?$|^\.[0-9]+$/.test(s)) fail();
      const n = Number(s);
      if (!Number.isFinite(n)) fail();
      if (spec.gt !== undefined && !(n > spec.gt)) fail();
      if (spec.min !== undefined && n < spec.min) fail();
      return n;
    }
    case 'text':
      if (!s || /[\r\n]/.test(s) || (spec.pattern && !spec.pattern.test(s))) fail();
      return s;
    default:
      throw new Error(`unknown spec type ${spec.type}`);
  }
}

// Edit distance, to suggest the intended key for a misspelled one.
function distance(a, b) {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0];
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j];
      prev[j] = Math.min(prev[j] + 1, prev[j - 1] + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length];
}

function closest(name, candidates) {
  let best = null;
  let bestD = Infinity;
  for (const c of candidates) {
    const d = distance(name.toUpperCase(), c.toUpperCase());
    if (d < bestD) { best = c; bestD = d; }
  }
  return bestD <= Math.max(2, Math.floor(name.length / 3)) ? best : null;
}

// The largest document a run with these parameters produces must fit in
// one MongoDB document, or MongoDB rejects every insert of the run.
function checkDocumentSize({ fields, fieldBytes, keyFormat }, where) {
  const bytes = maxDocumentBytes(fields, fieldBytes, keyFormat);
  if (bytes > MONGODB_MAX_BSON_BYTES) {
    throw new InputError(`${where}: a document of ${fields} fields x ${fieldBytes} bytes is ${bytes} bytes as BSON; `
      + `allowed: at most ${MONGODB_MAX_BSON_BYTES} bytes (MongoDB's 16 MiB document limit)`);
  }
}

// KEY=VALUE text (bash- and compose-readable) -> { KEY: rawValue } with line numbers.
function parseEnvText(text, file) {
  const entries = new Map();
  text.split(/\r?\n/).forEach((line, i) => {
    const trimmed = line.trim();
    if (!trimmed || trimmed.startsWith('#')) return;
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(trimmed);
    if (!m) throw new InputError(`${file}:${i + 1}: expected KEY=VALUE, got ${JSON.stringify(trimmed)}`);
    let value = m[2];
    const quoted = /^"(.*)"$/.exec(value) || /^'(.*)'$/.exec(value);
    if (quoted) value = quoted[1];
    else value = value.replace(/\s+#.*$/, '').trim(); // trailing comment
    // A repeated key overrides the earlier one, as in bash and compose
    // (runme.sh appends --set overrides to a copy of bench.env).
    entries.delete(m[1]);
    entries.set(m[1], { value, line: i + 1 });
  });
  return entries;
}

// Checks a bench.env text; returns the parsed values (defaults filled in)
// or throws InputError naming the file, the key, the value and what is allowed.
function validateBenchText(text, file) {
  const entries = parseEnvText(text, file);
  const names = Object.keys(BENCH_SPECS);
  for (const [name, { line }] of entries) {
    if (!BENCH_SPECS[name]) {
      const hint = closest(name, names);
      throw new InputError(`${file}:${line}: unknown key ${name}${hint ? ` (did you mean ${hint}?)` : ''}; `
        + `allowed keys: ${names.join(', ')}`);
    }
  }
  const values = {};
  for (const [name, spec] of Object.entries(BENCH_SPECS)) {
    const entry = entries.get(name);
    if (!entry) {
      if (spec.required) throw new InputError(`${file}: ${name} is missing; allowed: ${describeAllowed(spec)} (${spec.about})`);
      values[name] = parseValue(spec, spec.default, `${file}: ${name} (default)`);
    } else {
      values[name] = parseValue(spec, entry.value, `${file}:${entry.line}: ${name}`);
    }
  }
  checkDocumentSize({ fields: values.FIELDS, fieldBytes: values.FIELD_BYTES, keyFormat: values.KEY_FORMAT },
    `${file}: FIELDS=${values.FIELDS}, FIELD_BYTES=${values.FIELD_BYTES}`);
  return values;
}

module.exports = {
  BENCH_SPECS, KEYS, LAYOUTS, DURABILITIES, KEY_FORMATS, DATABASES,
  InputError, parseValue, describeAllowed, closest, checkDocumentSize, parseEnvText, validateBenchText,
};
