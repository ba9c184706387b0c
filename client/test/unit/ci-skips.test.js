'use strict';
// `npm test` under CI=true fails on a skip that client/test/ci-skips.js does not allow, and names it;
// outside CI a skip stays a skip; an allowed skip (the TimescaleDB image test without its image, on the official path) passes.
// Runs node --test with npm test's own options (package.json's test script) on small test files.
const test = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const CLIENT = path.resolve(__dirname, '../..');
const ROOT = path.resolve(CLIENT, '..');

// npm test's command line without its test files: node --test and every option.
function npmTestOptions() {
  const script = JSON.parse(fs.readFileSync(path.join(CLIENT, 'package.json'), 'utf8')).scripts.test.split(/\s+/);
  assert.equal(script[0], 'node');
  return script.slice(1).filter((a) => !a.endsWith('.test.js'));
}

function npmTest(files, env) {
  const clean = { ...process.env };
  delete clean.NODE_TEST_CONTEXT; // set for this file's own process by the runner: the nested one is a runner of its own
  delete clean.CI;
  delete clean.JSONBENCH_STANDINS;
  const r = spawnSync(process.execPath, [...npmTestOptions(), ...files], {
    cwd: CLIENT, env: { ...clean, ...env }, encoding: 'utf8', timeout: 120000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jsonbench-ci-skips-'));
test.after(() => fs.rmSync(dir, { recursive: true, force: true }));
const skipping = path.join(dir, 'skipping.test.js');
fs.writeFileSync(skipping, [
  "const test = require('node:test');",
  "test('runs', () => {});",
  "test.describe('a suite needing an image', { skip: 'the image x is not built' }, () => { test('inner', () => {}); });",
  "test('skips inside', (t) => { t.skip('no server here'); });",
].join('\n'));
const passing = path.join(dir, 'passing.test.js');
fs.writeFileSync(passing, "require('node:test')('runs', () => {});\n");

test('npm test runs the CI skip check', () => {
  assert.ok(npmTestOptions().includes('--test-reporter=./test/ci-skips.js'), npmTestOptions().join(' '));
});

test('under CI=true an unexpected skip fails the run, naming each test and its reason', () => {
  const r = npmTest([skipping], { CI: 'true' });
  assert.equal(r.code, 1, r.out + r.err);
  assert.match(r.err, /skipped under CI=true, which only the skips listed in client\/test\/ci-skips\.js may/);
  assert.match(r.err, /a suite needing an image .*: the image x is not built/);
  assert.match(r.err, /skips inside .*: no server here/);
  assert.match(r.out, /pass 1/); // the spec reporter still shows the run
});

test('outside CI a skip stays a skip, and under CI a run without skips passes', () => {
  const r = npmTest([skipping], {});
  assert.equal(r.code, 0, r.out + r.err);
  assert.equal(r.err, '');
  assert.equal(npmTest([passing], { CI: 'true' }).code, 0);
});

test('a real allowed skip passes under CI only on the official path: the TimescaleDB image test without its image', () => {
  const file = path.join(ROOT, 'databases/timescaledb/client/test/timescaledb-image.test.js');
  const absent = { CI: 'true', JSONBENCH_TIMESCALEDB_IMAGE: 'jsonbench-absent/timescaledb:none' };
  const official = npmTest([file], { ...absent, JSONBENCH_STANDINS: '0' });
  assert.equal(official.code, 0, official.out + official.err);
  assert.match(official.out, /skipped 1/);
  // on the stand-ins lab/test.sh has built the image: its absence is a failure, not a skip
  const standins = npmTest([file], { ...absent, JSONBENCH_STANDINS: '1' });
  assert.notEqual(standins.code, 0, standins.out + standins.err);
  assert.doesNotMatch(standins.out, /skipped 1/);
});

test('the stand-in image tests may skip under CI only where the official images run', () => {
  const { unexpected } = require('../ci-skips');
  const skips = [{ name: 'PgBouncer (stand-in path) in front of the PostgreSQL stand-in',
    reason: 'the image jsonbench-standin/postgres:17 is not built (lab/standins/build.sh postgres)' }];
  assert.deepEqual(unexpected(skips, { CI: 'true', JSONBENCH_STANDINS: '0' }), []);
  assert.deepEqual(unexpected(skips, { CI: 'true', JSONBENCH_STANDINS: '1' }), skips);
  assert.deepEqual(unexpected(skips, {}), []);
});
