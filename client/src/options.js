'use strict';
// Command-line flags of each command. Every flag is also read from the
// environment variable of the same name (--field-bytes = FIELD_BYTES) so a
// bench.env can be passed straight through compose. A flag wins over the env.
const {
  BENCH_SPECS, STAGES, InputError, parseValue, closest, checkDocumentSize, describeAllowed, checkCombination, shapeOf, workloadOf,
} = require('./bench-schema');
const { databaseOf } = require('./uri');
const { commands: databaseCommands } = require('./databases');
const {
  formKeys, formKey, formOf, checkFormShape,
} = require('./forms');

const CLIENT_SPECS = {
  URI: { type: 'text', required: true, about: 'database URI' },
  CLIENT_ID: {
    type: 'text', default: '1', pattern: /^[A-Za-z0-9_.-]{1,64}$/,
    patternAbout: '1 to 64 characters from A-Z a-z 0-9 _ . -', about: 'client id (seeds documents, labels output)',
  },
  RESULT: { type: 'text', about: 'result JSON file' },
  METRICS_PORT: { type: 'int', min: 1, max: 65535, about: 'Prometheus endpoint port' },
  BENCH: { type: 'text', default: 'adhoc', about: 'bench label for results and metrics' },
  RECONNECT_TIMEOUT_S: { type: 'number', gt: 0, default: '60', about: 'give up after this long without a connection' },
  METRICS_LINGER_S: { type: 'number', min: 0, default: '0', about: 'keep /metrics up this long after the run' },
  READY_TIMEOUT_S: { type: 'number', gt: 0, default: '120', about: 'wait-ready gives up after this long' },
  STAGE: { type: 'enum', values: STAGES, default: 'run', about: 'ycsb stage: load (this client\'s share of RECORDS) or run (OPS operations)' },
  // A client needs CLIENTS only to deal out ycsb's records; a lone `run` is client 1 of 1.
  CLIENTS: { ...BENCH_SPECS.CLIENTS, required: false, default: '1' },
  // The query a query phase runs (STAGE=query): a name of the workload's set (client/src/queries/).
  TXN_OUTCOMES: { type: 'text', about: 'count, WORKLOAD=booking: a file of the clients\' committed and in-doubt transactions (`python -m analysis txn-outcomes` writes it; client/src/txn-outcomes.schema.json); the nothing-lost check looks for each booking by id' },
  // pool-close: the pooled database whose server connections PgBouncer closes (POSTGRES_DB).
  POOL_DB: { type: 'text', default: 'jsonbench', pattern: /^[A-Za-z_][A-Za-z0-9_]{0,62}$/, patternAbout: 'a PostgreSQL database name (letters, digits, _)', about: 'pool-close: the pooled database' },
  QUERY: { type: 'text', pattern: /^[a-z0-9][a-z0-9-]*$/, patternAbout: 'a query name of the workload\'s set (client/src/queries/)', about: 'query of a query phase (STAGE=query) and of explain' },
};

const SPECS = { ...BENCH_SPECS, ...CLIENT_SPECS };

// The transaction workloads' keys (workloads/booking.workload.js, oltp.workload.js).
const TRANSACTION_KEYS = ['FLIGHTS', 'DAY_RANGE', 'BOOKING_SLEEP_MS', 'ISOLATION', 'RETRY', 'MAX_ATTEMPTS', 'SESSIONS', 'TABLE_ROWS', 'OLTP_MIX', 'POOL', 'POOL_MODE'];
// What each workload reads besides the insert keys (the rest of bench.env is ignored by `run`:
// the lab passes every key to every client, and bench.env validation checks what applies).
const WORKLOAD_KEYS = ['WORKLOAD', 'STAGE', 'CLIENTS', 'RECORDS', 'LOAD_RATE', 'OPS', 'MIX', 'DIST', 'THETA',
  'HOT_SET_FRACTION', 'HOT_OPS_FRACTION', 'SCAN_MAX', 'SHAPE', 'DEPTH', 'FANOUT',
  'MODEL', 'HOSTS', 'INTERVAL_S', 'SPAN_S', 'START', ...TRANSACTION_KEYS];
// What a query set needs to know of the data set (its dataOf) and of the query phase.
const QUERY_DATA_KEYS = ['WORKLOAD', 'SEED', 'CLIENTS', 'EVENTS', 'REPOS', 'ACTORS', 'SKEW', 'DATASET',
  'MODEL', 'HOSTS', 'INTERVAL_S', 'SPAN_S', 'START'];
const QUERY_KEYS = ['QUERY', 'QUERY_RUNS', 'QUERY_RATE', 'WORK_MEM'];

const COMMANDS = {
  // init creates the table/collection of the workload (tsbs: of its MODEL, targets/*-models.js) and
  // the indexes its query set declares (the set's indexes(dataOf(...))).
  // The storage form (<NAME>_FORM, forms.js): init makes the table of the URI's database's form
  // (relational: one column per field, FIELDS x FIELD_BYTES), run writes and reads it, count reads it back.
  init: ['URI', 'KEY', 'LAYOUT', ...QUERY_DATA_KEYS, 'FLIGHTS', 'TABLE_ROWS', 'FIELDS', 'FIELD_BYTES', 'SHAPE', ...formKeys()],
  run: ['URI', 'KEY', 'LAYOUT', 'FIELDS', 'FIELD_BYTES', 'RATE', 'DOCS', 'SEED', 'CLIENT_ID', 'RESULT',
    'METRICS_PORT', 'DURABILITY', 'KEY_FORMAT', 'BENCH', 'RECONNECT_TIMEOUT_S', 'METRICS_LINGER_S', ...WORKLOAD_KEYS,
    ...[...QUERY_DATA_KEYS, ...QUERY_KEYS].filter((k) => !WORKLOAD_KEYS.includes(k) && k !== 'SEED'), ...formKeys()],
  // One execution (k = 0) of QUERY with the database's plan (EXPLAIN ANALYZE / explain executionStats).
  explain: ['URI', 'KEY', ...QUERY_DATA_KEYS, 'QUERY', 'QUERY_RUNS', 'QUERY_RATE', 'WORK_MEM'],
  // After a load phase and before a query phase: VACUUM (ANALYZE) + CHECKPOINT / {fsync: 1}.
  // WORKLOAD: PostgreSQL vacuums the workload's tables (booking's five, oltp's sbtest, else jsonbench).
  settle: ['URI', 'WORKLOAD'],
  // WORKLOAD=booking: also the nothing-lost check (TXN_OUTCOMES: the bookings the clients committed).
  // DIGEST=documents: also every document read back and digested (document-digest.js; KEY: how keys compare).
  // COMPRESS (tsbs): the database's native compression, applied after the ingest window (count.js).
  count: ['URI', 'WORKLOAD', 'MODEL', 'COMPRESS', 'TXN_OUTCOMES', 'KEY', 'DIGEST', ...formKeys()],
  // WORKLOAD: what each `run` session of the workload sends besides its operations (run_session).
  'server-stats': ['URI', 'WORKLOAD'],
  'wait-ready': ['URI', 'READY_TIMEOUT_S'],
};
// A database's own commands (databases/<name>/client/commands/: MongoDB's replset-initiate,
// PostgreSQL's PgBouncer admin console pool-ready and pool-close) and the
// keys each takes, from its folder.
for (const [name, c] of Object.entries(databaseCommands(undefined, Object.keys(COMMANDS)))) COMMANDS[name] = c.keys;

// Keys a command reads only for an option: count needs KEY only with DIGEST=documents.
const OPTIONAL_IN = { count: ['KEY'] };

const flagOf = (name) => `--${name.toLowerCase().replace(/_/g, '-')}`;
const camelOf = (name) => name.toLowerCase().replace(/_([a-z])/g, (_, c) => c.toUpperCase());

// argv: the words after the command. env: process.env (injectable for tests).
function parseOptions(command, argv, env = process.env) {
  const names = COMMANDS[command];
  const byFlag = new Map(names.map((n) => [flagOf(n), n]));
  const given = new Map();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const m = /^(--[a-z-]+)(?:=(.*))?$/s.exec(arg);
    if (!m) throw new InputError(`${command}: unexpected argument ${JSON.stringify(arg)}; flags: ${[...byFlag.keys()].join(' ')}`);
    const name = byFlag.get(m[1]);
    if (!name) {
      const hint = closest(m[1], [...byFlag.keys()]);
      throw new InputError(`${command}: unknown flag ${m[1]}${hint ? ` (did you mean ${hint}?)` : ''}; flags: ${[...byFlag.keys()].join(' ')}`);
    }
    let value = m[2];
    if (value === undefined) {
      if (i + 1 >= argv.length) throw new InputError(`${m[1]}: missing value; allowed: ${describe(name)}`);
      value = argv[++i];
    }
    given.set(name, { value, where: m[1] });
  }
  const out = {};
  for (const name of names) {
    const spec = SPECS[name];
    let source = given.get(name);
    if (!source && env[name] !== undefined && env[name] !== '') source = { value: env[name], where: `${name} (environment)` };
    if (!source) {
      if (spec.required && !(OPTIONAL_IN[command] || []).includes(name)) throw new InputError(`${flagOf(name)} is required (or set ${name}); allowed: ${describe(name)}`);
      if (spec.default === undefined) continue;
      source = { value: spec.default, where: `${flagOf(name)} (default)` };
    }
    out[camelOf(name)] = parseValue(spec, source.value, source.where);
    if (name === 'URI') out.database = databaseOf(out.uri, source.where);
  }
  // the URI's database's storage form (its <NAME>_FORM, else its manifest's default), for the binding
  if (out.database && names.some((n) => formKeys().includes(n))) {
    const given = Object.fromEntries(formKeys().map((k) => [k, out[camelOf(k)]]));
    out.form = formOf(given, out.database);
  }
  if (command === 'run') checkRun(out);
  return out;
}

// The run's combination rules (the same as bench.env's), then the derived
// option objects the workloads use.
function checkRun(out) {
  const values = {
    WORKLOAD: out.workload, KEY: out.key, KEY_FORMAT: out.keyFormat, FIELDS: out.fields, FIELD_BYTES: out.fieldBytes,
    SHAPE: out.shape, DEPTH: out.depth, FANOUT: out.fanout, MIX: out.mix, SCAN_MAX: out.scanMax, DIST: out.dist, DOCS: out.docs ?? null,
    QUERIES: 'none', DATASET: out.dataset ?? null, // a client runs one QUERY, not the bench's QUERIES
  };
  checkCombination(values, (name) => flagOf(name), () => false);
  // a relational form with a nested shape, for the URI's database (a bench file's DATABASES is checked above)
  if (out.database && out.form) checkFormShape({ ...values, DATABASES: [out.database], [formKey(out.database)]: out.form }, (name) => flagOf(name));
  if (out.stage === 'query' && !out.query) {
    throw new InputError('--stage query needs --query (QUERY); allowed: a query name of the workload\'s set (client/src/queries/)');
  }
  const workload = workloadOf(values);
  // a workload with fewer stages than load, run and query (its file's stages) refuses the others
  if (workload.stages && !workload.stages.includes(out.stage)) {
    throw new InputError(`--stage ${out.stage}: the ${workload.name} workload has only a ${workload.stages.join(', ')} stage`
      + `${workload.stagesWhy ? ` (${workload.stagesWhy})` : ''}; allowed with WORKLOAD=${workload.name}: ${workload.stages.join(', ')}`);
  }
  out.shape = shapeOf(values);
  if (!workload.documents) return; // its own data set (client/src/datasets/): no FIELDS, no shape, no key choice
  checkDocumentSize(out, `--fields ${out.fields} --field-bytes ${out.fieldBytes}${out.shape.name === 'nested' ? ` --shape nested --depth ${out.depth} --fanout ${out.fanout}` : ''}`);
  out.dist = { name: out.dist };
  if (out.dist.name === 'zipfian' || out.dist.name === 'latest') out.dist.theta = out.theta;
  if (out.dist.name === 'hotspot') Object.assign(out.dist, { hot_set_fraction: out.hotSetFraction, hot_ops_fraction: out.hotOpsFraction });
}

function describe(name) {
  return describeAllowed(SPECS[name]);
}

function usage() {
  const lines = ['usage: node client <command> [flags]   (every flag may also be given as its env var)'];
  for (const [cmd, names] of Object.entries(COMMANDS)) {
    lines.push(`  ${cmd} ${names.map((n) => (SPECS[n].required ? `${flagOf(n)} V` : `[${flagOf(n)} V]`)).join(' ')}`);
  }
  lines.push('  validate-bench FILE');
  lines.push('  plan [--print-env] FILE   (phases of one repetition / every bench key with defaults filled in)');
  lines.push('  bench-specs   (the bench keys as JSON: type, what is allowed, an enum key\'s values)');
  return lines.join('\n');
}

module.exports = { parseOptions, usage, COMMANDS, CLIENT_SPECS, flagOf };
