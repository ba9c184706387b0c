'use strict';
// Command-line flags of each command. Every flag is also read from the
// environment variable of the same name (--field-bytes = FIELD_BYTES) so a
// bench.env can be passed straight through compose. A flag wins over the env.
const {
  BENCH_SPECS, InputError, parseValue, closest, checkDocumentSize, describeAllowed,
} = require('./bench-schema');
const { databaseOf } = require('./uri');

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
};

const SPECS = { ...BENCH_SPECS, ...CLIENT_SPECS };

const COMMANDS = {
  init: ['URI', 'KEY', 'LAYOUT'],
  run: ['URI', 'KEY', 'LAYOUT', 'FIELDS', 'FIELD_BYTES', 'RATE', 'DOCS', 'SEED', 'CLIENT_ID', 'RESULT',
    'METRICS_PORT', 'DURABILITY', 'KEY_FORMAT', 'BENCH', 'RECONNECT_TIMEOUT_S', 'METRICS_LINGER_S'],
  count: ['URI'],
  'server-stats': ['URI'],
  'wait-ready': ['URI', 'READY_TIMEOUT_S'],
};

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
      if (spec.required) throw new InputError(`${flagOf(name)} is required (or set ${name}); allowed: ${describe(name)}`);
      if (spec.default === undefined) continue;
      source = { value: spec.default, where: `${flagOf(name)} (default)` };
    }
    out[camelOf(name)] = parseValue(spec, source.value, source.where);
    if (name === 'URI') out.database = databaseOf(out.uri, source.where);
  }
  if (command === 'run') {
    checkDocumentSize(out, `--fields ${out.fields} --field-bytes ${out.fieldBytes}`);
  }
  return out;
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
  return lines.join('\n');
}

module.exports = { parseOptions, usage, COMMANDS, CLIENT_SPECS, flagOf };
