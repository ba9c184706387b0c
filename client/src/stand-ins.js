'use strict';
// What the lab's stand-in images cannot do, refused before anything starts (`node client
// validate-bench --stand-ins FILE`, which the lab runs when JSONBENCH_STANDINS=1). Each database's
// manifest says it (databases/<name>/database.json, docs/contracts.md §2a): `no_standin` (none can
// be built: the database is refused by name) or its stand-in's `refuses` (settings its image would
// fake or fail on, e.g. WORKLOAD=tsbs MODEL=native on a stand-in without time-series collections,
// COMPRESS on a stand-in without compression), refused naming the key, the reason and what is
// allowed, rather than a phase that fails at init or a collection that only looks like one. With
// the database's own_image variable set, the user's image runs instead of the stand-in: neither
// applies. This file names no database.
const fs = require('fs');
const path = require('path');
const { InputError, parseEnvText, BENCH_SPECS, workloadOf } = require('./bench-schema');
const { manifests, offeredWorkloads } = require('./databases');

// The value of a lab setting as compose sees it: the environment first, then the lab's .env (the
// file runme.sh creates beside compose.yaml); '' when neither sets it.
function labSetting(name, envFile = path.join(__dirname, '../../.env'), env = process.env) {
  if (env[name]) return env[name];
  if (!fs.existsSync(envFile)) return '';
  const entry = parseEnvText(fs.readFileSync(envFile, 'utf8'), envFile).get(name);
  return entry ? String(entry.value) : '';
}

function refuseOnStandIns(values, file, text, setting = labSetting) {
  // A database whose manifest says it has no stand-in (databases/<name>/database.json no_standin:
  // why, and how to run it with its official image) is refused by name, unless the user points its
  // service at an image of their own (own_image.env set: compose labels that container as a stand-in).
  for (const db of values.DATABASES || []) {
    const manifestFile = /^[a-z][a-z0-9]*$/.test(db) ? path.join(__dirname, '../../databases', db, 'database.json') : '';
    const manifest = manifestFile && fs.existsSync(manifestFile) ? JSON.parse(fs.readFileSync(manifestFile, 'utf8')) : {};
    const why = manifest.no_standin;
    if (!why || ownImage(manifest, setting)) continue;
    const entry = parseEnvText(text, file).get('DATABASES');
    throw new InputError(`${file}${entry ? `:${entry.line}` : ''}: DATABASES=${values.DATABASES.join(' ')} cannot run on the stand-ins `
      + `(JSONBENCH_STANDINS=1): ${why}`);
  }
  refuseStandinSettings(values, file, text, manifests(), setting);
}

// The user's image in place of the database's (its manifest's own_image.env is set): '' without.
const ownImage = (manifest, setting) => (manifest && manifest.own_image ? setting(manifest.own_image.env) : '');

// A `when` value: a value (that one), or {not: value} (any value the key has but that one: the
// key's "off" value, e.g. COMPRESS {not: none}, so no form of the setting slips through).
function whenMatches(want, value) {
  if (typeof want === 'string') return value === want;
  return value !== undefined && value !== want.not;
}

// The first of a stand-in's `refuses` entries whose `when` the values match, or undefined.
function refusalOf(manifest, values) {
  const standin = manifest && manifest.standin;
  return ((standin && standin.refuses) || []).find((r) => Object.entries(r.when).every(([k, v]) => whenMatches(v, values[k])));
}

// Whether the workload's own checks take the values with DATABASES=[name] (a database offering
// what the values ask for, e.g. COMPRESS only where offers.compress): an alternative to name.
function workloadTakes(values, name) {
  const check = workloadOf(values).check;
  if (!check) return true;
  try {
    check({ ...values, DATABASES: [name] }, (key) => key);
    return true;
  } catch (err) {
    if (err instanceof InputError) return false;
    throw err;
  }
}

// A setting one of DATABASES' stand-ins refuses (its manifest's standin.refuses): what is allowed
// instead is the key's other values, or this value with the lab's databases whose stand-ins run the
// workload, take the values (its checks) and do not refuse them; a {not: value} refusal allows only
// that value. all: {name: manifest}, the client's registry unless a test gives its own; setting:
// labSetting unless a test gives its own (a database whose own_image variable is set is not refused).
function refuseStandinSettings(values, file, text, all = manifests(), setting = labSetting) {
  for (const db of values.DATABASES || []) {
    const r = refusalOf(all[db], values);
    if (!r || ownImage(all[db], setting)) continue;
    if (!(r.key in r.when)) throw new Error(`databases/${db}/database.json: standin.refuses key ${r.key} is not one of its when keys (allowed: ${Object.keys(r.when).join(', ')})`);
    const value = values[r.key];
    const spec = BENCH_SPECS[r.key];
    const want = r.when[r.key];
    const others = typeof want === 'string' ? ((spec && spec.values) || []).filter((v) => v !== value) : [want.not];
    const alt = Object.values(all).filter((m) => !m.not_in_lab && m.name !== db && m.standin
      && offeredWorkloads(m.name).includes(values.WORKLOAD) && !refusalOf(m, values) && workloadTakes(values, m.name)).map((m) => m.name);
    const allowed = [others.map((v) => `${r.key}=${v}`).join(' or '), alt.length ? `${r.key}=${value} with DATABASES=${alt.join(' ')}` : ''].filter(Boolean);
    const entry = parseEnvText(text, file).get(r.key);
    throw new InputError(`${file}${entry ? `:${entry.line}` : ''}: ${r.key}=${value} cannot run on the stand-ins (JSONBENCH_STANDINS=1): `
      + `${r.why}; allowed on the stand-ins: ${allowed.join(', or ') || `DATABASES without ${db}`}${r.official ? ` (${r.official})` : ''}`);
  }
}

module.exports = { refuseOnStandIns, refuseStandinSettings, labSetting };
