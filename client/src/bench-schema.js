'use strict';
// The one place that knows the bench parameters: names, allowed values and
// defaults. bench.env validation and the client's command-line flags both
// read these specs, so a value the lab accepts is a value the client accepts.
const { maxDocumentBytes, MONGODB_MAX_BSON_BYTES } = require('./doc-size');
const { leafCount } = require('./shape');

const KEYS = ['uuidv7', 'uuidv4', 'sequence'];
const LAYOUTS = ['clustered', 'heap'];
const DURABILITIES = ['strict', 'relaxed'];
const KEY_FORMATS = ['binary', 'string'];
const DIGESTS = ['none', 'documents'];
// The databases the lab runs: their folders' manifests (client/src/databases.js), sorted by name.
const DATABASES = require('./databases').labNames();
const WORKLOADS = ['insert', 'ycsb', 'tsbs', 'events', 'booking', 'oltp'];
const OLTP_MIXES = ['95/5', '50/50'];
const ISOLATIONS = ['read-committed', 'repeatable-read', 'serializable'];
const RETRIES = ['backoff', 'immediate'];
const MODELS = ['event', 'bucket', 'native'];
const DISTS = ['uniform', 'zipfian', 'latest', 'hotspot'];
const SHAPES = ['flat', 'nested'];
const STAGES = ['load', 'run', 'query'];
const TOPOLOGIES = ['standalone', 'replset'];
const POOLS = ['none', 'pgbouncer'];
const POOL_MODES = ['transaction', 'session'];
const MIX_OPS = ['read', 'update', 'insert', 'scan', 'rmw'];
// YCSB's core workloads (D, read latest, is MIX read=95,insert=5 with DIST=latest).
const MIX_PRESETS = {
  A: { read: 50, update: 50 },
  B: { read: 95, update: 5 },
  C: { read: 100 },
  E: { scan: 95, insert: 5 },
  F: { read: 50, rmw: 50 },
};

const ycsb = (v) => v.WORKLOAD === 'ycsb';
// Workloads of generated documents of FIELDS x FIELD_BYTES (insert, ycsb); tsbs and events bring
// their own data sets (client/src/datasets/, docs/datasets.md).
const docs = (v) => v.WORKLOAD === 'insert' || v.WORKLOAD === 'ycsb';
const tsbs = (v) => v.WORKLOAD === 'tsbs';
const events = (v) => v.WORKLOAD === 'events';
const queries = (v) => tsbs(v) || events(v);
const booking = (v) => v.WORKLOAD === 'booking';
const oltp = (v) => v.WORKLOAD === 'oltp';
// The transaction workloads: each operation one transaction, with ISOLATION, RETRY, MAX_ATTEMPTS, SESSIONS.
const txn = (v) => booking(v) || oltp(v);
// A pooler in front of PostgreSQL (POOL=pgbouncer) for the transaction workloads' many small
// transactions (the study's OLTP part ran through PgBouncer).
const pooled = (v) => txn(v) && v.POOL === 'pgbouncer';
const generatedEvents = (v) => events(v) && !v.DATASET;
const ISO_SECOND = /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$/;

// type: text | enum | int | number | list (space-separated subset of values) | mix
// min: inclusive lower bound; gt / lt: exclusive bounds.
// appliesIf(values) / appliesAbout: a key set in a file where it does not
// apply is an error (a value that would silently do nothing is a mistake).
const BENCH_SPECS = {
  DESCRIPTION: { type: 'text', required: true, about: 'one line for reports and branch names' },
  KEY: { type: 'enum', values: KEYS, required: true, about: 'primary key strategy' },
  LAYOUT: { type: 'enum', values: LAYOUTS, required: true, about: 'MongoDB layout (PostgreSQL is always heap)' },
  FIELDS: { type: 'int', min: 1, requiredIf: docs, appliesIf: docs, appliesAbout: 'WORKLOAD=insert or ycsb', about: 'fields per document' },
  FIELD_BYTES: { type: 'int', min: 1, requiredIf: docs, appliesIf: docs, appliesAbout: 'WORKLOAD=insert or ycsb', about: 'characters per field' },
  CLIENTS: { type: 'int', min: 1, required: true, about: 'clients per database phase (a query phase has one)' },
  RATE: {
    type: 'number', gt: 0, requiredIf: (v) => !events(v), appliesIf: (v) => !events(v), appliesAbout: 'WORKLOAD=insert, ycsb or tsbs (events loads at LOAD_RATE)',
    about: 'per client: documents/s (insert), operations/s (ycsb run stage), events/s (tsbs ingest)',
  },
  DOCS: { type: 'int', min: 1, requiredIf: (v) => v.WORKLOAD === 'insert', appliesIf: (v) => v.WORKLOAD === 'insert', appliesAbout: 'WORKLOAD=insert (ycsb uses OPS and RECORDS, tsbs HOSTS/INTERVAL_S/SPAN_S, events EVENTS or DATASET)', about: 'documents per client (insert workload)' },
  SEED: { type: 'int', min: 0, default: '1', about: 'document generator seed' },
  DURABILITY: { type: 'enum', values: DURABILITIES, default: 'strict', about: 'commit durability' },
  KEY_FORMAT: { type: 'enum', values: KEY_FORMATS, default: 'binary', about: 'MongoDB _id as 16-byte UUID or 36-char string' },
  // Off by default: reading every document back after a phase takes time and warms the cache before
  // a following phase on the same database (ycsb's run after its load), for every database alike.
  DIGEST: {
    type: 'enum', values: DIGESTS, default: 'none', appliesIf: docs, appliesAbout: 'WORKLOAD=insert or ycsb',
    about: 'documents: count reads every document back after each phase (outside the window) and digests keys and documents, compared across the databases',
  },
  DATABASES: { type: 'list', values: DATABASES, default: 'mongodb postgres', about: 'databases to run, in this order' },
  // standalone: the original study (mongod without --replSet writes no oplog). replset: a one-member
  // replica set (--replSet rs0, initiated by the lab), which writes an oplog as production MongoDB does.
  TOPOLOGY: {
    type: 'enum', values: TOPOLOGIES, default: 'standalone', about: 'MongoDB topology: standalone mongod, or a single-node replica set (an oplog, as in production)',
  },
  QUIET_S: { type: 'int', min: 0, default: '60', about: 'quiet seconds before each phase' },
  PERF_RECORD_S: { type: 'int', min: 0, default: '30', about: 'perf record seconds mid-phase (0 = off)' },
  WORKLOAD: { type: 'enum', values: WORKLOADS, default: 'insert', about: 'what the clients do' },
  MIX: {
    type: 'mix', default: 'A', appliesIf: ycsb, appliesAbout: 'WORKLOAD=ycsb', about: 'ycsb run-stage operation mix',
  },
  RECORDS: { type: 'int', min: 1, default: '1000', appliesIf: ycsb, appliesAbout: 'WORKLOAD=ycsb', about: 'records loaded before the run (all clients together)' },
  LOAD_RATE: { type: 'number', min: 0, default: '0', appliesIf: (v) => ycsb(v) || events(v), appliesAbout: 'WORKLOAD=ycsb or events', about: 'docs/s per client in the load stage (0 = back-to-back on one connection)' },
  OPS: { type: 'int', min: 1, default: '1000', appliesIf: (v) => ycsb(v) || txn(v), appliesAbout: 'WORKLOAD=ycsb, booking or oltp', about: 'operations (booking, oltp: transactions) per client in the run stage' },
  DIST: { type: 'enum', values: DISTS, default: 'zipfian', appliesIf: ycsb, appliesAbout: 'WORKLOAD=ycsb', about: 'key choice' },
  THETA: {
    type: 'number', gt: 0, lt: 1, default: '0.99', appliesIf: (v) => ycsb(v) && (v.DIST === 'zipfian' || v.DIST === 'latest'),
    appliesAbout: 'WORKLOAD=ycsb with DIST=zipfian or latest', about: 'zipfian constant',
  },
  HOT_SET_FRACTION: {
    type: 'number', gt: 0, lt: 1, default: '0.2', appliesIf: (v) => ycsb(v) && v.DIST === 'hotspot',
    appliesAbout: 'WORKLOAD=ycsb with DIST=hotspot', about: 'hotspot: fraction of the keys that are hot',
  },
  HOT_OPS_FRACTION: {
    type: 'number', gt: 0, lt: 1, default: '0.8', appliesIf: (v) => ycsb(v) && v.DIST === 'hotspot',
    appliesAbout: 'WORKLOAD=ycsb with DIST=hotspot', about: 'hotspot: fraction of the operations on hot keys',
  },
  SCAN_MAX: {
    type: 'int', min: 1, default: '100', appliesIf: (v) => ycsb(v) && Boolean(v.MIX.scan),
    appliesAbout: 'WORKLOAD=ycsb with scan in MIX', about: 'scan length is uniform in 1..SCAN_MAX',
  },
  SHAPE: { type: 'enum', values: SHAPES, default: 'flat', appliesIf: docs, appliesAbout: 'WORKLOAD=insert or ycsb', about: 'document shape' },
  DEPTH: { type: 'int', min: 1, default: '3', appliesIf: (v) => v.SHAPE === 'nested', appliesAbout: 'SHAPE=nested', about: 'nested: levels of objects' },
  FANOUT: { type: 'int', min: 1, default: '2', appliesIf: (v) => v.SHAPE === 'nested', appliesAbout: 'SHAPE=nested', about: 'nested: children per object' },
  REPEAT: { type: 'int', min: 1, default: '1', about: 'repetitions of every database phase, interleaved, each on fresh volumes' },
  // A bench that is a sweep or a grid by nature (the OnGres transaction grid: isolation x clients)
  // says so here; runme.sh runs it as if given `--sweep` once per KEY=v1,v2,... (two make a grid).
  SWEEP: {
    type: 'text', pattern: /^([A-Z_][A-Z0-9_]*=[^\s=]+( [A-Z_][A-Z0-9_]*=[^\s=]+)?|[A-Z_][A-Z0-9_]*\+[A-Z_][A-Z0-9_]*=[^\s=]+)$/,
    patternAbout: 'one or two space-separated KEY=v1,v2,... (two make a grid of every combination), as "ISOLATION=read-committed,serializable CLIENTS=2,8"; '
      + 'or one paired KEY1+KEY2=v1+w1,v2+w2,... (the pairs given, each point setting both), as "MODEL+DATABASES=event+mongodb,native+timescaledb"',
    about: 'the bench\'s own sweep, run as `--sweep` would (a --sweep on the command line replaces it)',
  },
  // Time series (WORKLOAD=tsbs): TSBS devops cpu data, ingested at RATE events/s per client; client
  // c of CLIENTS (0-based) ingests the hosts with id % CLIENTS == c.
  MODEL: { type: 'enum', values: MODELS, default: 'event', appliesIf: tsbs, appliesAbout: 'WORKLOAD=tsbs', about: 'ingest model: a document per event, a bucket document per host and hour filled by in-place updates, or a native time-series collection (MongoDB) / plain table with columns (PostgreSQL)' },
  // A database's native compression of the TSBS data (its manifest's offers.compress), applied by
  // the count after the ingest window (outside it) to the chunks older than the interval; none: off.
  COMPRESS: {
    type: 'text', default: 'none', pattern: /^(none|after:[0-9]+[smhd])$/, appliesIf: tsbs, appliesAbout: 'WORKLOAD=tsbs',
    patternAbout: 'none, or after:<n><s|m|h|d> (e.g. after:12h: compress the data older than 12 hours)',
    about: 'native compression after the ingest, for databases whose manifest offers it (offers.compress: timescaledb)',
  },
  HOSTS: { type: 'int', min: 1, default: '10', appliesIf: tsbs, appliesAbout: 'WORKLOAD=tsbs', about: 'hosts of the data set' },
  INTERVAL_S: { type: 'number', gt: 0, default: '10', appliesIf: tsbs, appliesAbout: 'WORKLOAD=tsbs', about: 'seconds between two events of a host (whole milliseconds)' },
  SPAN_S: { type: 'int', min: 1, default: '3600', appliesIf: tsbs, appliesAbout: 'WORKLOAD=tsbs', about: 'seconds of data: a host has an event at START + k*INTERVAL_S for every k*INTERVAL_S < SPAN_S' },
  START: {
    type: 'text', default: '2016-01-01T00:00:00Z', pattern: ISO_SECOND, patternAbout: 'a UTC date-time on a whole second, as 2016-01-01T00:00:00Z',
    appliesIf: tsbs, appliesAbout: 'WORKLOAD=tsbs', about: 'time of the first event',
  },
  // Airline booking transactions (WORKLOAD=booking: the OnGres transactions benchmark), RATE
  // transactions/s per client; init loads the aircraft and the FLIGHTS flights.
  FLIGHTS: { type: 'int', min: 1, max: 1000000, default: '14000', appliesIf: booking, appliesAbout: 'WORKLOAD=booking', about: 'flights in the schedule (each served by one of 200 aircraft); bookings pick one uniformly' },
  DAY_RANGE: { type: 'int', min: 1, max: 36500, default: '1', appliesIf: booking, appliesAbout: 'WORKLOAD=booking', about: 'days the bookings spread over (1 = every booking on one day: the study\'s contention hotspot)' },
  BOOKING_SLEEP_MS: { type: 'int', min: 0, max: 60000, default: '0', appliesIf: booking, appliesAbout: 'WORKLOAD=booking', about: 'milliseconds each transaction stays open before its commit' },
  ISOLATION: {
    type: 'enum', values: ISOLATIONS, default: 'read-committed', appliesIf: txn, appliesAbout: 'WORKLOAD=booking or oltp',
    about: 'PostgreSQL isolation level (MongoDB transactions are always snapshot read concern, majority write concern)',
  },
  RETRY: {
    type: 'enum', values: RETRIES, default: 'backoff', appliesIf: txn, appliesAbout: 'WORKLOAD=booking or oltp',
    about: 'after a conflict: backoff (5 ms x1.5 up to 500 ms, MongoDB drivers\' specification, seeded jitter) or immediate (the study\'s client)',
  },
  SESSIONS: {
    type: 'int', min: 1, max: 64, default: '4', appliesIf: txn, appliesAbout: 'WORKLOAD=booking or oltp',
    about: 'connections (each with its session) per client: a transaction due while others are still open, or retrying, starts on a free one',
  },
  // sysbench-style OLTP (WORKLOAD=oltp): init loads TABLE_ROWS rows; RATE operations/s per client.
  TABLE_ROWS: { type: 'int', min: 100, max: 1000000000, default: '100000', appliesIf: oltp, appliesAbout: 'WORKLOAD=oltp', about: 'rows of the sbtest table (sysbench\'s table_size): small enough for memory, or larger than the cache' },
  OLTP_MIX: { type: 'enum', values: OLTP_MIXES, default: '95/5', appliesIf: oltp, appliesAbout: 'WORKLOAD=oltp', about: 'reads/writes (reads 10 point : 1 of each range query; writes index update, non-index update, delete+insert alike)' },
  MAX_ATTEMPTS: { type: 'int', min: 1, max: 1000, default: '10', appliesIf: txn, appliesAbout: 'WORKLOAD=booking or oltp', about: 'attempts of one transaction before it counts as an error' },
  // PgBouncer between the clients and PostgreSQL (databases/postgres/pgbouncer/): the clients'
  // sessions go through it, the lab's own readings (counts, server statistics) straight to the server.
  POOL: {
    type: 'enum', values: POOLS, default: 'none', appliesIf: txn, appliesAbout: 'WORKLOAD=booking or oltp',
    about: 'PostgreSQL connection pooler between the clients and the server: none, or pgbouncer (its CPU, memory and network reported beside the server\'s)',
  },
  POOL_MODE: {
    type: 'enum', values: POOL_MODES, default: 'transaction', appliesIf: pooled, appliesAbout: 'POOL=pgbouncer',
    about: 'PgBouncer pool_mode: transaction (a server connection per transaction; the clients then send unnamed statements) or session (one per client session; named prepared statements as without a pool)',
  },
  POOL_SIZE: {
    type: 'int', min: 1, max: 190, default: '20', appliesIf: pooled, appliesAbout: 'POOL=pgbouncer',
    about: 'PgBouncer default_pool_size: server connections PostgreSQL sees at most (20 = PgBouncer\'s default; below the server\'s max_connections, PG_MAX_CONNECTIONS 200)',
  },
  // Analytical queries over GitHub-archive-like events (WORKLOAD=events): generated, or a user's file.
  EVENTS: { type: 'int', min: 1, default: '100000', appliesIf: generatedEvents, appliesAbout: 'WORKLOAD=events without DATASET', about: 'events generated (all clients together)' },
  REPOS: { type: 'int', min: 1, max: 10000000, default: '10000', appliesIf: generatedEvents, appliesAbout: 'WORKLOAD=events without DATASET', about: 'distinct repositories, Zipf-distributed' },
  ACTORS: { type: 'int', min: 1, max: 10000000, default: '20000', appliesIf: generatedEvents, appliesAbout: 'WORKLOAD=events without DATASET', about: 'distinct actors, Zipf-distributed' },
  SKEW: { type: 'number', min: 0, lt: 5, default: '1', appliesIf: generatedEvents, appliesAbout: 'WORKLOAD=events without DATASET', about: 'Zipf exponent of repositories and actors (0 = uniform)' },
  DATASET: {
    type: 'text', pattern: /^[^\s'"$`\\]+\.ndjson(\.gz)?$/, patternAbout: 'a path (relative to the bench folder, or absolute) ending in .ndjson or .ndjson.gz, without spaces or quotes',
    appliesIf: events, appliesAbout: 'WORKLOAD=events', about: "a file of the user's own events, one JSON object per line, loaded instead of generated ones",
  },
  // Query phases (tsbs, events): after the data is in, one measured window per query type.
  QUERIES: {
    type: 'text', default: 'none', pattern: /^[a-z0-9 -]+$/, patternAbout: 'none, all, or space-separated query names of the workload (client/src/queries/)',
    appliesIf: queries, appliesAbout: 'WORKLOAD=tsbs or events', about: 'query types to run, each in its own window, after the data is loaded',
  },
  QUERY_RUNS: { type: 'int', min: 1, default: '20', appliesIf: queries, appliesAbout: 'WORKLOAD=tsbs or events', about: 'executions of each query type (K), by one client' },
  QUERY_RATE: { type: 'number', min: 0, default: '1', appliesIf: queries, appliesAbout: 'WORKLOAD=tsbs or events', about: 'query executions per second (0 = back to back)' },
  // PostgreSQL sorts and hashes in work_mem (4MB, the server's and the official image's default)
  // where MongoDB gives each blocking stage 100 MB; a query bench may align them. Sent in the
  // query session's start-up packet (no statement of its own) and to explain's session.
  WORK_MEM: {
    type: 'text', default: '4MB', pattern: /^[1-9][0-9]{0,6}(kB|MB|GB)$/, patternAbout: 'a PostgreSQL memory size: an integer with kB, MB or GB, as 4MB or 100MB',
    appliesIf: queries, appliesAbout: 'WORKLOAD=tsbs or events', about: 'PostgreSQL work_mem of the query sessions (4MB = the server default)',
  },
};

class InputError extends Error {}

function describeAllowed(spec) {
  switch (spec.type) {
    case 'enum': return `one of ${spec.values.join(', ')}`;
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
      values[name] = spec.default === undefined ? null : parseValue(spec, spec.default, `${file}: ${name} (default)`);
    } else {
      values[name] = parseValue(spec, entry.value, `${file}:${entry.line}: ${name}`);
    }
  }
  checkCombination(values, (name) => {
    const entry = entries.get(name);
    return entry ? `${file}:${entry.line}` : file;
  }, (name) => entries.has(name));
  if (docs(values)) checkDocumentSize({
    fields: values.FIELDS, fieldBytes: values.FIELD_BYTES, keyFormat: values.KEY_FORMAT, shape: shapeOf(values),
  }, `${file}: FIELDS=${values.FIELDS}, FIELD_BYTES=${values.FIELD_BYTES}${values.SHAPE === 'nested' ? `, SHAPE=nested DEPTH=${values.DEPTH} FANOUT=${values.FANOUT}` : ''}`);
  return values;
}

// { name: 'flat' } or { name: 'nested', depth, fanout } from parsed values.
function shapeOf(values) {
  return values.SHAPE === 'nested' ? { name: 'nested', depth: values.DEPTH, fanout: values.FANOUT } : { name: 'flat' };
}

// Rules between keys, before anything starts. where(name): "file:line" of a
// key; given(name): whether the file sets it (a default never conflicts).
function checkCombination(values, where, given) {
  for (const [name, spec] of Object.entries(BENCH_SPECS)) {
    if (spec.requiredIf && spec.requiredIf(values) && values[name] === null) {
      throw new InputError(`${where(name)}: ${name} is missing; allowed: ${describeAllowed(spec)} (${spec.about}; required with WORKLOAD=${values.WORKLOAD})`);
    }
    if (spec.appliesIf && given(name) && !spec.appliesIf(values)) {
      throw new InputError(`${where(name)}: ${name} applies only with ${spec.appliesAbout}; this file has `
        + `WORKLOAD=${values.WORKLOAD}${values.WORKLOAD === 'ycsb' ? ` DIST=${values.DIST} MIX=${formatMix(values.MIX)}` : ''}${docs(values) ? ` SHAPE=${values.SHAPE}` : ''}`
        + `${values.WORKLOAD === 'events' && values.DATASET ? ` DATASET=${values.DATASET}` : ''}: remove ${name}`);
    }
  }
  if (values.WORKLOAD === 'tsbs' && values.DATABASES) checkTsbsOffers(values, where);
  if (given('TOPOLOGY') && values.TOPOLOGY !== 'standalone' && !values.DATABASES.includes('mongodb')) {
    throw new InputError(`${where('TOPOLOGY')}: TOPOLOGY=${values.TOPOLOGY} applies only to MongoDB and this file has `
      + `DATABASES=${values.DATABASES.join(' ')}: add mongodb to DATABASES or remove TOPOLOGY`);
  }
  if (pooled(values) && values.DATABASES && !values.DATABASES.includes('postgres')) {
    throw new InputError(`${where('POOL')}: POOL=${values.POOL} pools PostgreSQL connections and this file has `
      + `DATABASES=${values.DATABASES.join(' ')}; allowed without postgres in DATABASES: POOL=none (or add postgres to DATABASES)`);
  }
  // Session pooling holds a server connection for each client session's whole life: a pool
  // smaller than the sessions would leave the rest waiting (PgBouncer's query_wait_timeout, 120 s).
  if (pooled(values) && values.POOL_MODE === 'session' && values.POOL_SIZE < values.CLIENTS * values.SESSIONS) {
    throw new InputError(`${where('POOL_SIZE')}: POOL_MODE=session gives every client session a server connection for the whole run `
      + `and POOL_SIZE=${values.POOL_SIZE} is fewer than CLIENTS x SESSIONS = ${values.CLIENTS * values.SESSIONS}: the others would wait; `
      + `allowed with POOL_MODE=session: POOL_SIZE >= ${values.CLIENTS * values.SESSIONS} (or POOL_MODE=transaction)`);
  }
  // MongoDB runs multi-document transactions only on a replica set (the client refuses a standalone
  // server too, at run time; here before anything starts).
  if (txn(values) && values.DATABASES && values.DATABASES.includes('mongodb') && values.TOPOLOGY !== 'replset') {
    throw new InputError(`${where('TOPOLOGY')}: WORKLOAD=${values.WORKLOAD} runs multi-document transactions, which MongoDB allows only on a `
      + `replica set, and this file has TOPOLOGY=${values.TOPOLOGY}; allowed with WORKLOAD=${values.WORKLOAD} and mongodb in DATABASES: `
      + 'TOPOLOGY=replset (or DATABASES=postgres)');
  }
  if (values.WORKLOAD === 'events' && values.KEY === 'sequence') {
    throw new InputError(`${where('KEY')}: KEY=sequence cannot be used with WORKLOAD=events: event i's key is derived from `
      + '(SEED, client, index) the same way on both databases, and sequence keys are made by the database; allowed with events: uuidv7, uuidv4');
  }
  if (values.WORKLOAD === 'ycsb' && values.KEY === 'sequence') {
    throw new InputError(`${where('KEY')}: KEY=sequence cannot be used with WORKLOAD=ycsb: reads and updates need keys the client `
      + 'can regenerate, and sequence keys are made by the database; allowed with ycsb: uuidv7, uuidv4');
  }
  if (values.WORKLOAD === 'booking' && values.KEY === 'sequence') {
    throw new InputError(`${where('KEY')}: KEY=sequence cannot be used with WORKLOAD=booking: a booking's seat and payment share a key `
      + 'derived from (SEED, client, index), so the nothing-lost check can match them on both databases; allowed with booking: uuidv7, uuidv4');
  }
  if (values.WORKLOAD === 'tsbs' && values.KEY === 'sequence') {
    throw new InputError(`${where('KEY')}: KEY=sequence cannot be used with WORKLOAD=tsbs: an event's key is derived from (SEED, client, `
      + 'index) so both databases hold the same keys (MODEL=bucket keys buckets by host and hour, MODEL=native has none); allowed with tsbs: uuidv7, uuidv4');
  }
  if (values.SHAPE === 'nested') {
    const leaves = leafCount(shapeOf(values));
    if (values.FIELDS < leaves) {
      throw new InputError(`${where('FIELDS')}: FIELDS=${values.FIELDS} is fewer than the ${leaves} leaf objects of SHAPE=nested `
        + `DEPTH=${values.DEPTH} FANOUT=${values.FANOUT} (FANOUT^DEPTH); allowed: FIELDS >= ${leaves}, or a smaller DEPTH/FANOUT`);
    }
  }
  if (queries(values)) values.QUERIES = checkQueries(values, where);
  if (values.WORKLOAD === 'tsbs' && Array.isArray(values.QUERIES) && values.QUERIES.length) {
    // The TSBS query set runs on MODEL=event/bucket, on a data set its windows and hosts fit.
    const tq = require('./queries/tsbs-devops-queries');
    const r = tq.refusal(tq.dataOf(values), values.QUERIES, ownQueryModels(values.DATABASES));
    if (r) throw new InputError(`${where(r.key)}: ${r.message}`);
  }
  if (values.WORKLOAD === 'ycsb' && values.MIX.scan) {
    // A scan's documents must fit MongoDB's first batch (16 MiB) for it to be one round trip.
    const docBytes = maxDocumentBytes(values.FIELDS, values.FIELD_BYTES, values.KEY_FORMAT, shapeOf(values));
    if (docBytes * values.SCAN_MAX > MONGODB_MAX_BSON_BYTES - 16 * 1024) {
      throw new InputError(`${where('SCAN_MAX')}: SCAN_MAX=${values.SCAN_MAX} documents of ${docBytes} bytes do not fit in one MongoDB `
        + `batch (16 MiB), so a scan could not be one round trip; allowed: SCAN_MAX <= ${Math.floor((MONGODB_MAX_BSON_BYTES - 16 * 1024) / docBytes)}`);
    }
  }
}

// What each database's manifest offers for the TSBS data (offers.tsbs_models, offers.compress):
// a MODEL or a COMPRESS one of DATABASES does not have is refused, naming the database.
function checkTsbsOffers(values, where) {
  const manifests = require('./databases').manifests();
  const dbs = values.DATABASES.filter((db) => manifests[db]);
  const noModel = dbs.filter((db) => !(manifests[db].offers.tsbs_models || MODELS).includes(values.MODEL));
  if (noModel.length) {
    const has = noModel.map((db) => `${db}: ${(manifests[db].offers.tsbs_models || MODELS).join(', ')}`).join('; ');
    throw new InputError(`${where('MODEL')}: MODEL=${values.MODEL} has no ${noModel.join(', ')} layout (databases/<name>/database.json `
      + `offers.tsbs_models); allowed: ${has} (a design per database: a paired sweep, e.g. SWEEP="MODEL+DATABASES=event+mongodb,native+timescaledb")`);
  }
  if (values.COMPRESS !== 'none') {
    const without = dbs.filter((db) => !manifests[db].offers.compress);
    if (without.length) {
      const with_ = Object.keys(manifests).filter((db) => manifests[db].offers.compress);
      throw new InputError(`${where('COMPRESS')}: COMPRESS=${values.COMPRESS} is native compression, which ${without.join(', ')} ${without.length > 1 ? 'do' : 'does'} `
        + `not have (databases/<name>/database.json offers.compress): it is refused rather than ignored, so no run says `
        + `compressed where nothing was; allowed: COMPRESS=none, or DATABASES of databases that have it (${with_.join(', ') || 'none'})`);
    }
  }
}

// The TSBS models whose query forms every one of the databases brings in its folder (manifest
// offers.tsbs_query_models: TimescaleDB's native hypertable); [] when one of them brings none.
function ownQueryModels(databases) {
  const manifests = require('./databases').manifests();
  const lists = (databases || []).map((db) => (manifests[db] && manifests[db].offers.tsbs_query_models) || []);
  return lists.length ? lists.reduce((a, b) => a.filter((m) => b.includes(m))) : [];
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
  BENCH_SPECS, POOLS, POOL_MODES, ISOLATIONS, RETRIES, OLTP_MIXES, KEYS, LAYOUTS, DURABILITIES, KEY_FORMATS, DATABASES, WORKLOADS, MODELS, DISTS, SHAPES, STAGES, MIX_OPS, MIX_PRESETS,
  InputError, parseValue, describeAllowed, closest, checkDocumentSize, parseEnvText, validateBenchText,
  checkCombination, shapeOf, formatMix,
};
