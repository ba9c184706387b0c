'use strict';
// The bench key CACHE_MB against each database's own rule: databases/<db>/database.json `cache`
// ({setting, min_mb, step_mb, why}; databases/database.schema.json). Each folder states the sizes its
// server's cache setting takes exactly (WiredTiger's 256 MiB minimum; InnoDB's chunks, which
// databases/mysql/lab.py sizes to the cache; PostgreSQL's shared_buffers in any whole MiB), so a
// bench's CACHE_MB is the same cache on every database it runs, or refused naming the database.
const { InputError } = require('./input-error');
const { manifests } = require('./databases');

const gcd = (a, b) => (b ? gcd(b, a % b) : a);
const lcm = (a, b) => (a / gcd(a, b)) * b;

// "CACHE_MB >= 256" or "256, 384, 512, ... (multiples of 128 from 256)": a range as the refusals say it.
function describe(min, step) {
  const first = Math.ceil(min / step) * step;
  return step === 1 ? `CACHE_MB >= ${first}`
    : `${first}, ${first + step}, ${first + 2 * step}, ... (multiples of ${step} from ${first})`;
}

// What every database of dbs allows together: the largest minimum, the steps' least common multiple.
function allowedFor(dbs, all = manifests()) {
  const rules = dbs.map((db) => all[db] && all[db].cache).filter(Boolean);
  const min = Math.max(...rules.map((r) => r.min_mb));
  const step = rules.reduce((s, r) => lcm(s, r.step_mb), 1);
  return `${describe(min, step)} for DATABASES=${dbs.join(' ')}`;
}

// Refuses a CACHE_MB that a database of values.DATABASES does not take exactly (where(key): the
// bench file and line, as the other rules say it).
function checkCache(values, where, all = manifests()) {
  const cache = values.CACHE_MB;
  if (cache == null) return;
  const dbs = values.DATABASES || [];
  for (const db of dbs) {
    const file = `databases/${db}/database.json`;
    const rule = all[db] && all[db].cache;
    if (!rule) {
      throw new InputError(`${where('CACHE_MB')}: CACHE_MB=${cache} cannot be set with ${db}: ${file} has no key 'cache' `
        + '(its folder maps no cache size); allowed: no CACHE_MB, or DATABASES without it');
    }
    const off = cache < rule.min_mb ? `is below ${db}'s minimum, ${rule.min_mb} MiB`
      : cache % rule.step_mb !== 0 ? `is not a multiple of ${db}'s step, ${rule.step_mb} MiB` : null;
    if (off) {
      throw new InputError(`${where('CACHE_MB')}: CACHE_MB=${cache} ${off} (${file} key 'cache': ${rule.setting}; ${rule.why}); `
        + `allowed: ${allowedFor(dbs, all)}`);
    }
  }
}

module.exports = { checkCache, allowedFor, describe };
