'use strict';
// The bench parameters: names, allowed values and defaults, those every workload reads here and each
// workload's own from its file (workloads/<name>.workload.js, through workloads/registry.js).
// bench.env validation and the client's command-line flags both read these specs, so a value the
// lab accepts is a value the client accepts.
const { maxDocumentBytes, MONGODB_MAX_BSON_BYTES } = require('./doc-size');
const { leafCount } = require('./shape');
const { checkTopologyOffered } = require('./topology-rules');

const KEYS = ['uuidv7', 'uuidv4', 'sequence'];
const LAYOUTS = ['clustered', 'heap'];
const DURABILITIES = ['strict', 'relaxed'];
const KEY_FORMATS = ['binary', 'string'];
// The databases the lab runs: their folders' manifests (client/src/databases.js), sorted by name.
const DATABASES = require('./databases').labNames();
// The workloads: one file each (client/src/workloads/<name>.workload.js, workloads/registry.js),
// which declares its keys, phases, the smoke check's sizes and what analysis needs of it.
const workloads = require('./workloads/registry');

const WORKLOADS = workloads.names();
const STAGES = ['load', 'run', 'query'];
const TOPOLOGIES = ['standalone', 'replset'];
// Every workload's operations together; each workload's file says its own (mixOps: checkMixOps).
const MIX_OPS = ['read', 'update', 'insert', 'scan', 'rmw', 'range'];
// YCSB's core workloads (D, read latest, is MIX read=95,insert=5 with DIST=latest).
const MIX_PRESETS = {
  A: { read: 50, update: 50 },
  B: { read: 95, update: 5 },
  C: { read: 100 },
  E: { scan: 95, insert: 5 },
  F: { read: 50, rmw: 50 },
};

// The workload file of parsed values (WORKLOAD, default insert).
const workloadOf = (values) => workloads.workload(values.WORKLOAD || 'insert');

// type: text | enum | int | number | list (space-separated subset of values) | mix
// min: inclusive lower bound; gt / lt: exclusive bounds.
// appliesIf(values) / appliesAbout: a key set in a file where it does not
// apply is an error (a value that would silently do nothing is a mistake).
// The keys every workload reads are here; each workload's own keys follow, from its file.
const COMMON_SPECS = {
  DESCRIPTION: { type: 'text', required: true, about: 'one line for reports and branch names' },
  KEY: { type: 'enum', values: KEYS, required: true, about: 'primary key strategy' },
  LAYOUT: { type: 'enum', values: LAYOUTS, required: true, about: 'MongoDB layout (PostgreSQL is always heap)' },
  CLIENTS: { type: 'int', min: 1, required: true, about: 'clients per database phase (a query phase has one)' },
  SEED: { type: 'int', min: 0, default: '1', about: 'document generator seed' },
  DURABILITY: { type: 'enum', values: DURABILITIES, default: 'strict', about: 'commit durability' },
  KEY_FORMAT: { type: 'enum', values: KEY_FORMATS, default: 'binary', about: 'MongoDB _id as 16-byte UUID or 36-char string' },
  DATABASES: { type: 'list', values: DATABASES, default: 'mongodb postgres', about: 'databases to run, in this order' },
  // standalone: the original study (mongod without --replSet writes no oplog). replset: a one-member
  // replica set (--replSet rs0, initiated by the lab), which writes an oplog as production MongoDB does.
  TOPOLOGY: {
    type: 'enum', values: TOPOLOGIES, default: 'standalone', about: 'MongoDB topology: standalone mongod, or a single-node replica set (an oplog, as in production)',
  },
  QUIET_S: { type: 'int', min: 0, default: '60', about: 'quiet seconds before each phase' },
  // The data against the memory (data larger than the cache, or than the container): one cache size
  // every database's folder maps to its own setting (databases/<db>/lab.py compose_env:
  // shared_buffers, the WiredTiger cache, the InnoDB buffer pool), and one container memory limit.
  // Unset, .env's per-host sizing holds (PG_SHARED_BUFFERS, MONGO_CACHE_GB, MYSQL_BUFFER_POOL_SIZE, DB_MEMORY).
  CACHE_MB: {
    type: 'int', min: 1, about: 'each database\'s cache in MiB, within every one of DATABASES\' own rule (databases/<db>/database.json '
      + '`cache`: WiredTiger takes 256 MiB at least; InnoDB\'s buffer pool and PostgreSQL\'s shared_buffers any whole MiB from 5 and 16); '
      + 'unset: .env\'s per-host sizing',
  },
  DB_MEMORY_MB: {
    type: 'int', min: 512, about: 'each database container\'s memory limit in MiB (swap none: memswap the same), what the '
      + 'cache leaves of it is the page cache\'s; unset: .env\'s DB_MEMORY',
  },
  PERF_RECORD_S: { type: 'int', min: 0, default: '30', about: 'perf record seconds mid-phase (0 = off)' },
  WORKLOAD: { type: 'enum', values: WORKLOADS, default: 'insert', about: 'what the clients do' },
  REPEAT: { type: 'int', min: 1, default: '1', about: 'repetitions of every database phase, interleaved, each on fresh volumes' },
  // A bench that is a sweep or a grid by nature (the OnGres transaction grid: isolation x clients)
  // says so here; runme.sh runs it as if given `--sweep` once per KEY=v1,v2,... (two make a grid).
  SWEEP: {
    type: 'text', pattern: /^([A-Z_][A-Z0-9_]*=[^\s=]+( [A-Z_][A-Z0-9_]*=[^\s=]+)?|[A-Z_][A-Z0-9_]*\+[A-Z_][A-Z0-9_]*=[^\s=]+)$/,
    patternAbout: 'one or two space-separated KEY=v1,v2,... (two make a grid of every combination), as "ISOLATION=read-committed,serializable CLIENTS=2,8"; '
      + 'or one paired KEY1+KEY2=v1+w1,v2+w2,... (the pairs given, each point setting both), as "MODEL+DATABASES=event+mongodb,native+timescaledb"',
    about: 'the bench\'s own sweep, run as `--sweep` would (a --sweep on the command line replaces it)',
  },
};

// and the keys choosing a database's official image among its manifest's versions (MYSQL_VERSION),
// and its storage form among its manifest's forms (POSTGRES_FORM, MYSQL_FORM, ...: forms.js)
const BENCH_SPECS = {
  ...COMMON_SPECS, ...workloads.keySpecs(), ...require('./databases').versionSpecs(), ...require('./forms').formSpecs(),
  // a run phase's client groups (GROUPS, GROUP_CLIENTS, ...: groups.js)
  ...require('./groups').groupSpecs(),
};

const { InputError } = require('./input-error');

function describeAllowed(spec) {
  switch (spec.type) {
    case 'enum': return `one of ${spec.values.join(', ')}${spec.valuesAbout ? ` (${spec.valuesAbout})` : ''}`;
    case 'list': return `a space-separated, non-empty subset of "${spec.values.join(' ')}" without repeats`;
    case 'int': return `an integer >= ${spec.min}${spec.max !== undefined ? ` and <= ${spec.max}` : ''}`;
    case 'number': return `a number ${spec.gt !== undefined ? `> ${spec.gt}` : `>= ${spec.min}`}${spec.lt !== undefined ? ` and < ${spec.lt}` : ''}`;
    case 'mix': return `one of ${Object.keys(MIX_PRESETS).join(', ')} (YCSB's workloads: `
      + `${Object.entries(MIX_PRESETS).map(([k, m]) => `${k}=${formatMix(m)}`).join('; ')}) or op=weight,... `
      + `with op in ${MIX_OPS.join(', ')} (each at most once), integer weights >= 0, sum > 0`;
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
      if (spec.lt !== undefined && !(n < spec.lt)) fail();
      return n;
    }
    case 'mix':
      return parseMix(s, fail);
    case 'text':
      if (!s || /[\r\n]/.test(s) || (spec.pattern && !spec.pattern.test(s))) fail();
      return s;
    default:
      throw new Error(`unknown spec type ${spec.type}`);
  }
}

const formatMix = (mix) => Object.entries(mix).map(([op, w]) => `${op}=${w}`).join(',');

// MIX text -> { op: weight } (only ops with weight > 0, in the order given).
function parseMix(s, fail) {
  if (MIX_PRESETS[s]) return { ...MIX_PRESETS[s] };
  const mix = {};
  const seen = new Set();
  for (const part of s.split(',')) {
    const m = /^\s*([a-z]+)\s*=\s*([0-9]+)\s*$/.exec(part);
    if (!m || !MIX_OPS.includes(m[1]) || seen.has(m[1])) fail();
    seen.add(m[1]);
    const w = Number(m[2]);
    if (!Number.isSafeInteger(w)) fail();
    if (w > 0) mix[m[1]] = w;
  }
  if (!Object.keys(mix).length) fail();
  return mix;
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
function checkDocumentSize({ fields, fieldBytes, keyFormat, shape }, where) {
  const bytes = maxDocumentBytes(fields, fieldBytes, keyFormat, shape);
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

// The placement keys (DATABASE_HOST, DATABASE_HOST_<db>, CLIENT_HOST, MONITORING_HOST: which Docker
// context each role runs on; LAB_ADDRESSES: each host's address on the lab network) are the driver's, read and checked by lab/driver/placement.py before
// anything starts; the clients act on none of them, so they are no bench key and no plan value (the
// plan's `given` keeps them as written).
const PLACEMENT_KEY = /^(DATABASE_HOST(_[a-z][a-z0-9]*)?|CLIENT_HOST|MONITORING_HOST|LAB_ADDRESSES)$/;

// Checks a bench.env text; returns the parsed values (defaults filled in)
// or throws InputError naming the file, the key, the value and what is allowed.
function validateBenchText(text, file) {
  const entries = parseEnvText(text, file);
  const names = Object.keys(BENCH_SPECS);
  for (const [name, { line }] of entries) {
    if (!BENCH_SPECS[name] && !PLACEMENT_KEY.test(name)) {
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
      values[name] = spec.default === undefined ? null : parseValue(spec, spec.default, `${file}: ${name} (default)`);
    } else {
      values[name] = parseValue(spec, entry.value, `${file}:${entry.line}: ${name}`);
    }
  }
  // a workload whose operations are not YCSB's names its own MIX default (its file's mixDefault)
  const { mixDefault, name: workloadName } = workloadOf(values);
  if (!entries.has('MIX') && mixDefault) {
    values.MIX = parseValue(BENCH_SPECS.MIX, mixDefault, `${file}: MIX (${workloadName}'s default)`);
  }
  checkCombination(values, (name) => {
    const entry = entries.get(name);
    return entry ? `${file}:${entry.line}` : file;
  }, (name) => entries.has(name));
  if (workloadOf(values).documents) checkDocumentSize({
    fields: values.FIELDS, fieldBytes: values.FIELD_BYTES, keyFormat: values.KEY_FORMAT, shape: shapeOf(values),
  }, `${file}: FIELDS=${values.FIELDS}, FIELD_BYTES=${values.FIELD_BYTES}${values.SHAPE === 'nested' ? `, SHAPE=nested DEPTH=${values.DEPTH} FANOUT=${values.FANOUT}` : ''}`);
  return values;
}

// A database of DATABASES without a file of WORKLOAD (databases/<db>/client/workloads/<workload>.js:
// its presence is the offer), refused before anything starts naming the workloads it offers, its
// manifest's reason when it gives one (offers.refused_workloads), and the databases that run it.
function checkWorkloadRefused(values, where) {
  const { notOffered, allowedWith } = require('./databases');
  for (const db of values.DATABASES || []) {
    const why = notOffered(db, values.WORKLOAD);
    if (!why) continue;
    throw new InputError(`${where('DATABASES')}: ${why}; ${allowedWith(values.WORKLOAD)}`);
  }
}

// { name: 'flat' } or { name: 'nested', depth, fanout } from parsed values.
function shapeOf(values) {
  return values.SHAPE === 'nested' ? { name: 'nested', depth: values.DEPTH, fanout: values.FANOUT } : { name: 'flat' };
}

// Rules between keys, before anything starts. where(name): "file:line" of a
// key; given(name): whether the file sets it (a default never conflicts).
function checkCombination(values, where, given) {
  const workload = workloadOf(values);
  for (const [name, spec] of Object.entries(BENCH_SPECS)) {
    if (spec.requiredIf && spec.requiredIf(values) && values[name] === null) {
      throw new InputError(`${where(name)}: ${name} is missing; allowed: ${describeAllowed(spec)} (${spec.about}; required with WORKLOAD=${values.WORKLOAD})`);
    }
    if (spec.appliesIf && given(name) && !spec.appliesIf(values)) {
      throw new InputError(`${where(name)}: ${name} applies only with ${spec.appliesAbout}; this file has `
        + `WORKLOAD=${values.WORKLOAD}${contextOf(workload, values)}: remove ${name}`);
    }
  }
  // a TOPOLOGY no database of the file offers (their manifests' offers.topologies)
  checkTopologyOffered(values, where, given, BENCH_SPECS.TOPOLOGY.default);
  checkWorkloadRefused(values, where);
  // a relational form with a nested shape (forms.js)
  require('./forms').checkFormShape(values, where);
  if (workload.sequenceKeys && values.KEY === 'sequence') {
    const allowed = KEYS.filter((k) => k !== 'sequence').join(', ');
    throw new InputError(`${where('KEY')}: KEY=sequence cannot be used with WORKLOAD=${workload.name}: ${workload.sequenceKeys}; `
      + `allowed with ${workload.name}: ${allowed}`);
  }
  if (values.SHAPE === 'nested') {
    const leaves = leafCount(shapeOf(values));
    if (values.FIELDS < leaves) {
      throw new InputError(`${where('FIELDS')}: FIELDS=${values.FIELDS} is fewer than the ${leaves} leaf objects of SHAPE=nested `
        + `DEPTH=${values.DEPTH} FANOUT=${values.FANOUT} (FANOUT^DEPTH); allowed: FIELDS >= ${leaves}, or a smaller DEPTH/FANOUT`);
    }
  }
  checkMemory(values, where);
  if (workload.querySet) values.QUERIES = checkQueries(values, where);
  checkMixOps(workload, values, where);
  // the workload's own rules (its file's check), and each client group's MIX by the same rules
  if (workload.check) workload.check(values, where);
  require('./groups').checkGroups(values, where, workload);
}

// A MIX naming an operation its workload does not offer (its file's mixOps: ycsb's are not
// globalsign's), refused naming both; the default MIX (A, YCSB's) is ycsb's: another workload offers
// its own (its file's mixDefault) or its bench file sets MIX. A client's load stage (values.STAGE) runs no MIX.
function checkMixOps(workload, values, where) {
  // with GROUPS the run's clients take their groups' MIX (GROUP_MIXES, checked in groups.js), not MIX
  if (!workload.mixOps || !values.MIX || values.STAGE === 'load' || values.GROUPS) return;
  const foreign = Object.keys(values.MIX).filter((op) => !workload.mixOps.includes(op));
  if (!foreign.length) return;
  const isDefault = formatMix(values.MIX) === formatMix(MIX_PRESETS.A) ? ' (A, MIX\'s default, is YCSB\'s)' : '';
  throw new InputError(`${where('MIX')}: MIX=${formatMix(values.MIX)} names ${foreign.join(', ')}, which WORKLOAD=${workload.name} does not offer${isDefault}; `
    + `allowed with ${workload.name}: op=weight,... with op in ${workload.mixOps.join(', ')}`);
}

// The keys a "does not apply" message quotes beside WORKLOAD (the workload file's contextKeys), as
// " KEY=value ..." (a key without a value left out).
function contextOf(workload, values) {
  // with GROUPS each group's GROUP_MIXES entry is its MIX: the file's MIX (or its default) runs nowhere
  const unused = (k) => k === 'MIX' && values.GROUPS;
  return (workload.contextKeys || []).filter((k) => values[k] !== null && values[k] !== undefined && !unused(k))
    .map((k) => ` ${k}=${k === 'MIX' ? formatMix(values[k]) : values[k]}`).join('');
}

// The cache as every database of DATABASES takes it exactly (each folder's rule: client/src/cache-rules.js),
// and within the container's memory with room for the server's processes and connections besides the
// cache (256 MiB: less and the kernel's OOM killer ends the run).
const MEMORY_BESIDE_CACHE_MB = 256;
function checkMemory(values, where) {
  require('./cache-rules').checkCache(values, where);
  if (values.CACHE_MB != null && values.DB_MEMORY_MB != null && values.DB_MEMORY_MB < values.CACHE_MB + MEMORY_BESIDE_CACHE_MB) {
    throw new InputError(`${where('DB_MEMORY_MB')}: DB_MEMORY_MB=${values.DB_MEMORY_MB} leaves less than ${MEMORY_BESIDE_CACHE_MB} MiB beside `
      + `CACHE_MB=${values.CACHE_MB} for the server's processes; allowed: DB_MEMORY_MB >= ${values.CACHE_MB + MEMORY_BESIDE_CACHE_MB}`);
  }
}

// QUERIES text -> the list of query names to run, in the set's order ('none' = [], 'all' = every one).
function checkQueries(values, where) {
  const { queryNames, generatedOnly } = require('./queries');
  const known = queryNames(values.WORKLOAD);
  const text = Array.isArray(values.QUERIES) ? values.QUERIES.join(' ') : values.QUERIES;
  const needData = values.DATASET ? generatedOnly(values.WORKLOAD) : [];
  if (text === 'none') return [];
  if (text === 'all') return known.filter((n) => !needData.includes(n));
  const asked = text.split(/\s+/).filter(Boolean);
  for (const name of asked) {
    if (needData.includes(name)) {
      throw new InputError(`${where('QUERIES')}: QUERIES: ${name} draws its parameters from the generated events, and DATASET=${values.DATASET} `
        + `replaces them; allowed with DATASET: none, all (which leaves ${needData.join(', ')} out) or names from: `
        + `${known.filter((n) => !needData.includes(n)).join(', ')}`);
    }
  }
  for (const name of asked) {
    if (!known.includes(name)) {
      throw new InputError(`${where('QUERIES')}: QUERIES: unknown query ${name} for WORKLOAD=${values.WORKLOAD}; allowed: none, all, `
        + `or space-separated names from: ${known.join(', ')}`);
    }
  }
  if (new Set(asked).size !== asked.length) throw new InputError(`${where('QUERIES')}: QUERIES names a query twice: ${text}`);
  return known.filter((n) => asked.includes(n));
}

module.exports = {
  BENCH_SPECS, KEYS, LAYOUTS, DURABILITIES, KEY_FORMATS, DATABASES, WORKLOADS, STAGES, MIX_OPS, MIX_PRESETS,
  PLACEMENT_KEY, InputError, workloadOf, parseValue, describeAllowed, closest, checkDocumentSize, parseEnvText, validateBenchText,
  checkCombination, shapeOf, formatMix,
};
