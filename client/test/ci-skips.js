'use strict';
// Under CI=true a skipped test fails `npm test`, unless its skip is listed in ALLOWED with the reason
// it is allowed: a test that skips on every CI run (an image not built, a server absent) tests nothing
// while the run says green. The node side of tests/ci_skips.py (pytest). A node --test reporter
// (package.json's test script: `--test-reporter=./test/ci-skips.js`, beside the spec reporter): it
// reads every test's outcome, prints nothing for a run without an unexpected skip, and otherwise names
// each such test with its reason and sets the exit status to 1. Outside CI a skip stays a skip.

// A test's name (its start) -> the start of the skip reason allowed under CI=true, why, and when.
const ALLOWED = [
  {
    name: 'TimescaleDB from ',
    reason: 'no local image ',
    why: 'a CI runner with Docker Hub runs the official images (JSONBENCH_STANDINS=0) and lab/test.sh pulls no TimescaleDB image there; on the stand-ins its absence fails the test itself',
    when: (env) => env.JSONBENCH_STANDINS === '0',
  },
  {
    name: "the timescaledb binding's step kinds on a real server",
    reason: 'no local image ',
    why: 'a CI runner with Docker Hub runs the official images (JSONBENCH_STANDINS=0) and lab/test.sh pulls no TimescaleDB image there; on the stand-ins its absence fails the test itself',
    when: (env) => env.JSONBENCH_STANDINS === '0',
  },
  {
    name: 'PgBouncer (stand-in path) in front of the PostgreSQL stand-in',
    reason: 'the image jsonbench-standin/postgres:',
    why: 'a CI runner with Docker Hub runs the official images (JSONBENCH_STANDINS=0): lab/test.sh builds no stand-in image there',
    when: (env) => env.JSONBENCH_STANDINS === '0',
  },
  {
    name: 'the MySQL stand-in image through compose',
    reason: 'the image jsonbench-standin/mysql:',
    why: 'a CI runner with Docker Hub runs the official images (JSONBENCH_STANDINS=0): lab/test.sh builds no stand-in image there',
    when: (env) => env.JSONBENCH_STANDINS === '0',
  },
];

const inCI = (env) => ['true', '1', 'yes'].includes(String(env.CI || '').toLowerCase());

function allowed(name, reason, env) {
  return ALLOWED.some((a) => name.startsWith(a.name) && reason.startsWith(a.reason) && (!a.when || a.when(env)));
}

// The skips among node --test's events that CI does not allow: [{name, reason, file}].
function unexpected(skips, env) {
  if (!inCI(env)) return [];
  return skips.filter((s) => !allowed(s.name, s.reason, env));
}

async function* reporter(source) {
  const skips = [];
  for await (const event of source) {
    // a skipped test or suite is reported as passed with `skip`: true, or the reason given
    if ((event.type === 'test:pass' || event.type === 'test:fail') && event.data.skip !== undefined && event.data.skip !== false) {
      const reason = event.data.skip === true ? '' : String(event.data.skip);
      skips.push({ name: event.data.name, reason, file: event.data.file || '' });
    }
  }
  const bad = unexpected(skips, process.env);
  if (bad.length === 0) return;
  process.exitCode = 1;
  yield '\nskipped under CI=true, which only the skips listed in client/test/ci-skips.js may:\n';
  for (const s of bad) yield `  ${s.name}${s.file ? ` (${s.file})` : ''}: ${s.reason || '(no reason given)'}\n`;
  yield 'Make the test run here (build or start what it needs first), or list the skip there with the reason it is expected on a CI host.\n';
}

module.exports = reporter;
module.exports.ALLOWED = ALLOWED;
module.exports.unexpected = unexpected;
