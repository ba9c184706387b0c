'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { parseOptions } = require('../../src/options');
const { validateBenchText, InputError } = require('../../src/bench-schema');

const CLI = path.resolve(__dirname, '../..');
const RUN = ['--uri', 'postgres://u@127.0.0.1:1/db', '--key', 'uuidv7', '--layout', 'heap',
  '--fields', '10', '--field-bytes', '100', '--rate', '50', '--docs', '10'];

function cli(args, env = {}) {
  // Only PATH from the outer environment: a stray KEY or RATE must not leak in.
  return spawnSync(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH, ...env }, encoding: 'utf8', timeout: 20000 });
}

test('run flags parse into typed options with defaults', () => {
  const o = parseOptions('run', RUN, {});
  assert.equal(o.database, 'postgres');
  assert.equal(o.fields, 10);
  assert.equal(o.rate, 50);
  assert.equal(o.seed, 1);
  assert.equal(o.durability, 'strict');
  assert.equal(o.keyFormat, 'binary');
  assert.equal(o.clientId, '1');
  assert.equal(o.reconnectTimeoutS, 60);
});

test('every flag is also an environment variable; the flag wins', () => {
  const env = { URI: 'mongodb://127.0.0.1:1/x', KEY: 'uuidv4', LAYOUT: 'clustered', FIELDS: '3', FIELD_BYTES: '7', RATE: '2.5', DOCS: '9', CLIENT_ID: 'c-7', METRICS_PORT: '9464' };
  const o = parseOptions('run', ['--fields', '4'], env);
  assert.equal(o.database, 'mongodb');
  assert.equal(o.fieldBytes, 7);
  assert.equal(o.rate, 2.5);
  assert.equal(o.fields, 4);
  assert.equal(o.clientId, 'c-7');
  assert.equal(o.metricsPort, 9464);
});

const BAD = [
  [['--key', 'uuid7'], /--key: invalid value "uuid7"; allowed: one of uuidv7, uuidv4, sequence/],
  [['--layout', 'clustred'], /--layout: invalid value "clustred"; allowed: one of clustered, heap/],
  [['--rate', '0'], /--rate: invalid value "0"; allowed: a number > 0/],
  [['--rate', 'fast'], /--rate: invalid value "fast"; allowed: a number > 0/],
  [['--docs', '-5'], /--docs: invalid value "-5"; allowed: an integer >= 1/],
  [['--fields', '2.5'], /--fields: invalid value "2.5"; allowed: an integer >= 1/],
  [['--durability', 'none'], /--durability: invalid value "none"; allowed: one of strict, relaxed/],
  [['--key-format', 'hex'], /--key-format: invalid value "hex"; allowed: one of binary, string/],
  [['--metrics-port', '70000'], /--metrics-port: invalid value "70000"; allowed: an integer >= 1 and <= 65535/],
  [['--uri', 'redis://h/db'], /--uri: unknown scheme "redis:" .*allowed: .*mongodb:\/\/.*mysql:\/\/.*postgresql:\/\//],
  [['--uri', 'not a uri'], /--uri: malformed URI "not a uri"/],
  [['--uri', 'postgres://user:secret@h/db', '--key', 'bad'], /--key: invalid value "bad"/],
  [['--fields', '20000', '--field-bytes', '1000'], /16777216 bytes \(MongoDB's 16 MiB document limit\)/],
  [['--feilds', '3'], /unknown flag --feilds \(did you mean --fields\?\)/],
];

for (const [args, message] of BAD) {
  test(`bad input ${args.join(' ')} -> exit 2, names flag, value and allowed values`, () => {
    const r = cli(['run', ...RUN, ...args]);
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, message);
    assert.doesNotMatch(r.stderr, /secret/, 'a password is never printed');
  });
}

test('bad value from the environment names the variable', () => {
  const r = cli(['run', ...RUN.filter((_, i) => i < 6)], { FIELDS: '10', FIELD_BYTES: 'ten', RATE: '5', DOCS: '1' });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /FIELD_BYTES \(environment\): invalid value "ten"; allowed: an integer >= 1/);
});

test('missing required flag is rejected before connecting', () => {
  const r = cli(['init', '--uri', 'postgres://127.0.0.1:1/x', '--key', 'uuidv7']);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /--layout is required \(or set LAYOUT\); allowed: one of clustered, heap/);
});

test('unknown command and unreachable server exit 2', () => {
  assert.equal(cli(['load']).status, 2);
  // Port 1 on loopback: nothing listens there, the connection is refused at once.
  const r = cli(['count', '--uri', 'postgres://u:pw@127.0.0.1:1/x']);
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /cannot connect to postgres:\/\/u:\*\*\*@127\.0\.0\.1:1\/x/);
});

const GOOD_ENV = `# a comment
DESCRIPTION="uuidv7, clustered"
KEY=uuidv7
LAYOUT=clustered
FIELDS=10
FIELD_BYTES=1000
CLIENTS=8
RATE=15
DOCS=100000
DATABASES="mongodb postgres"
`;

test('bench.env: a good file parses with defaults filled in', () => {
  const v = validateBenchText(GOOD_ENV, 'bench1/bench.env');
  assert.equal(v.RATE, 15);
  assert.deepEqual(v.DATABASES, ['mongodb', 'postgres']);
  assert.equal(v.SEED, 1);
  assert.equal(v.QUIET_S, 60);
  assert.equal(v.PERF_RECORD_S, 30);
  // A later line overrides an earlier one, as in bash (runme.sh --set).
  assert.equal(validateBenchText(`${GOOD_ENV}RATE=20\n`, 'f').RATE, 20);
});

const BAD_ENV = [
  ['LAYOT=heap\n', /f:11: unknown key LAYOT \(did you mean LAYOUT\?\)/],
  ['RATE=0\n', /f:11: RATE: invalid value "0"; allowed: a number > 0/],
  ['CLIENTS=-1\n', /CLIENTS: invalid value "-1"; allowed: an integer >= 1/],
  ['DATABASES="mongodb cassandra"\n', /DATABASES: invalid value "mongodb cassandra"; allowed: a space-separated/],
  ['FIELDS=20000\n', /f: FIELDS=20000, FIELD_BYTES=1000: .* allowed: at most 16777216 bytes/],
  ['KEY_FORMAT=uuid\n', /KEY_FORMAT: invalid value "uuid"; allowed: one of binary, string/],
  ['just words\n', /f:11: expected KEY=VALUE/],
];

for (const [extra, message] of BAD_ENV) {
  test(`bench.env rejects ${extra.trim()}`, () => {
    assert.throws(() => validateBenchText(GOOD_ENV + extra, 'f'), (err) => err instanceof InputError && message.test(err.message));
  });
}

test('bench.env: a missing required key is named', () => {
  assert.throws(() => validateBenchText(GOOD_ENV.replace('DOCS=100000\n', ''), 'f'), /f: DOCS is missing; allowed: an integer >= 1/);
});

test('validate-bench CLI: exit 0 for a good file, 2 naming the file for a bad one', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jsonbench-env-'));
  try {
    const good = path.join(dir, 'good.env');
    fs.writeFileSync(good, GOOD_ENV);
    assert.equal(cli(['validate-bench', good]).status, 0);
    const bad = path.join(dir, 'bad.env');
    fs.writeFileSync(bad, GOOD_ENV.replace('KEY=uuidv7', 'KEY=uuidv6'));
    const r = cli(['validate-bench', bad]);
    assert.equal(r.status, 2);
    assert.match(r.stderr, new RegExp(`${bad}:3: KEY: invalid value "uuidv6"; allowed: one of uuidv7, uuidv4, sequence`));
    assert.equal(cli(['validate-bench', path.join(dir, 'absent.env')]).status, 2);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
