'use strict';
// CACHE_MB against each database's own rule (databases/<db>/database.json `cache`, client/src/cache-rules.js):
// the shipped manifests' minimums and steps, a bench's value suiting every database of DATABASES, and
// a refusal that names the file, the key, the database and the values allowed.
const test = require('node:test');
const assert = require('node:assert/strict');
const { validateBenchText, InputError } = require('../../src/bench-schema');
const { manifests } = require('../../src/databases');
const { checkCache } = require('../../src/cache-rules');

const BASE = 'DESCRIPTION=x\nKEY=uuidv7\nLAYOUT=heap\nCLIENTS=1\nFIELDS=1\nFIELD_BYTES=10\nRATE=1\nDOCS=1\n';
const bench = (extra) => validateBenchText(BASE + extra, 'b/bench.env');
const refused = (extra) => {
  try {
    bench(extra);
  } catch (e) {
    assert.ok(e instanceof InputError, e.stack);
    return e.message;
  }
  return assert.fail(`accepted: ${extra}`);
};

test('each folder states its own minimum and step with the reason', () => {
  const m = manifests();
  assert.deepEqual(Object.fromEntries(['mongodb', 'postgres', 'timescaledb', 'mysql'].map((db) => [db, [m[db].cache.min_mb, m[db].cache.step_mb]])),
    { mongodb: [256, 1], postgres: [16, 1], timescaledb: [16, 1], mysql: [5, 1] });
  for (const db of Object.keys(m)) if (m[db].cache) assert.ok(m[db].cache.why.length > 40, db);
});

test('a size off the old 128 MiB grid is taken where every database takes it exactly', () => {
  assert.equal(bench('CACHE_MB=300\n').CACHE_MB, 300);
  assert.equal(bench('CACHE_MB=300\nDATABASES="mongodb postgres mysql"\n').CACHE_MB, 300);
  // PostgreSQL and MySQL alone: far below WiredTiger's minimum (a small XL bench)
  assert.equal(bench('CACHE_MB=16\nDATABASES="postgres mysql"\n').CACHE_MB, 16);
});

test('below a database\'s minimum: refused naming the file, the key, the database and what is allowed', () => {
  const msg = refused('CACHE_MB=64\nDATABASES="postgres mongodb"\n');
  assert.match(msg, /^b\/bench\.env:\d+: CACHE_MB=64 is below mongodb's minimum, 256 MiB \(databases\/mongodb\/database\.json key 'cache': --wiredTigerCacheSizeGB; WiredTiger/);
  assert.match(msg, /allowed: CACHE_MB >= 256 for DATABASES=postgres mongodb$/);
  assert.match(refused('CACHE_MB=8\nDATABASES=postgres\n'), /CACHE_MB=8 is below postgres's minimum, 16 MiB .*allowed: CACHE_MB >= 16 for DATABASES=postgres$/);
});

test('a step, and a database without a rule', () => {
  const all = { a: { cache: { setting: 's', min_mb: 256, step_mb: 128, why: 'w' } }, b: { cache: { setting: 't', min_mb: 16, step_mb: 1, why: 'v' } }, c: {} };
  const where = (k) => `f:1 ${k}`;
  assert.throws(() => checkCache({ CACHE_MB: 300, DATABASES: ['b', 'a'] }, where, all),
    /CACHE_MB=300 is not a multiple of a's step, 128 MiB \(databases\/a\/database\.json key 'cache': s; w\); allowed: 256, 384, 512, \.\.\. \(multiples of 128 from 256\) for DATABASES=b a$/);
  checkCache({ CACHE_MB: 384, DATABASES: ['a', 'b'] }, where, all);
  assert.throws(() => checkCache({ CACHE_MB: 384, DATABASES: ['c'] }, where, all),
    /CACHE_MB=384 cannot be set with c: databases\/c\/database\.json has no key 'cache'/);
});
