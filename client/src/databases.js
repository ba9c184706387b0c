'use strict';
// The client's registry of databases, read from their folders (databases/<name>/database.json, the
// manifests the lab and analysis read too: databases/database.schema.json): the client holds no list
// of names. A database's binding is databases/<name>/client/<name>.js exporting its target class
// (a class whose name ends in "Target"); its URI schemes are the manifest's `uri_schemes`. A manifest
// with `not_in_lab` has a binding the client runs (`--uri`), but is not a DATABASES value of a bench
// file until the lab can run it. The image carries databases/ beside client/ (/app/databases).
const fs = require('fs');
const path = require('path');

const ROOT = path.resolve(__dirname, '..', '..', 'databases');
const MANIFEST = 'database.json';

let cache = null;

// {name: manifest} of every folder holding a manifest, sorted by name.
function manifests(root = ROOT) {
  if (root === ROOT && cache) return cache;
  const found = {};
  for (const name of fs.readdirSync(root).sort()) {
    const file = path.join(root, name, MANIFEST);
    if (!fs.existsSync(file)) continue;
    let doc;
    try {
      doc = JSON.parse(fs.readFileSync(file, 'utf8'));
    } catch (e) {
      throw new Error(`${file}: not JSON (${e.message})`);
    }
    if (doc.name !== name) throw new Error(`${file}: key 'name' is ${JSON.stringify(doc.name)} (allowed: ${JSON.stringify(name)}, the folder's name)`);
    found[name] = doc;
  }
  if (root === ROOT) cache = found;
  return found;
}

// The databases a bench file may list in DATABASES: those the lab runs.
function labNames(root = ROOT) {
  return Object.values(manifests(root)).filter((m) => !m.not_in_lab).map((m) => m.name);
}

// {'<scheme>:': name} from every manifest's uri_schemes; a scheme claimed twice is a manifest error.
function uriSchemes(root = ROOT) {
  const schemes = {};
  for (const m of Object.values(manifests(root))) {
    for (const s of m.uri_schemes || []) {
      if (schemes[`${s}:`]) {
        throw new Error(`${path.join(root, m.name, MANIFEST)}: key 'uri_schemes': ${JSON.stringify(s)} is already `
          + `${schemes[`${s}:`]}'s (allowed: a scheme no other database claims)`);
      }
      schemes[`${s}:`] = m.name;
    }
  }
  return schemes;
}

// The target class of a database's binding (databases/<name>/client/<name>.js).
function bindingOf(name, root = ROOT) {
  if (!manifests(root)[name]) {
    throw new Error(`database ${JSON.stringify(name)} has no manifest ${path.join(root, String(name), MANIFEST)} `
      + `(known: ${Object.keys(manifests(root)).join(', ')})`);
  }
  const file = path.join(root, name, 'client', `${name}.js`);
  const Target = Object.values(require(file)).find((v) => typeof v === 'function' && /Target$/.test(v.name));
  if (!Target) throw new Error(`${file}: exports no class whose name ends in "Target" (the binding's target class)`);
  return Target;
}

// The workloads a database offers: the files of its folder databases/<name>/client/workloads/, one
// per workload (<workload>.js), found by folder as its query forms are (client/queries/<set>.js).
// A file's presence is the offer; it holds what the workload needs of this database beyond the
// binding's step kinds (booking's tables and steps, its session's statements), or nothing.
const WORKLOADS_DIR = path.join('client', 'workloads');

function offeredWorkloads(name, root = ROOT) {
  const dir = path.join(root, name, WORKLOADS_DIR);
  if (!fs.existsSync(dir)) return [];
  // files only: a folder beside a workload file (workloads/<workload>/) holds that workload's own modules
  return fs.readdirSync(dir, { withFileTypes: true }).filter((e) => e.isFile() && e.name.endsWith('.js')).map((e) => e.name.slice(0, -3)).sort();
}

// The databases of `names` (default: the lab's) that offer a workload.
function offering(workload, names = labNames(), root = ROOT) {
  return names.filter((db) => offeredWorkloads(db, root).includes(workload));
}

// Why a database does not run a workload, naming it, the workloads it offers, and its manifest's
// reason when it states one (offers.refused_workloads); null when it runs it.
function notOffered(name, workload, root = ROOT) {
  const offered = offeredWorkloads(name, root);
  if (offered.includes(workload)) return null;
  const m = manifests(root)[name];
  const why = m && ((m.offers || {}).refused_workloads || {})[workload];
  return `WORKLOAD=${workload} does not run on ${name}: ${why ? `${why} ` : ''}(databases/${name}/client/workloads/ has no ${workload}.js; `
    + `${name} offers WORKLOAD=${offered.join(', ') || '(none)'})`;
}

// What else is allowed with a workload: the lab's databases that offer it.
function allowedWith(workload, root = ROOT) {
  const dbs = offering(workload, labNames(root), root);
  return dbs.length ? `allowed with WORKLOAD=${workload}: DATABASES of ${dbs.join(', ')}`
    : `no database of the lab offers WORKLOAD=${workload} (a databases/<name>/client/workloads/${workload}.js)`;
}

// A database's file of a workload (its module), refused with notOffered's reason when it has none:
// before anything starts (bench-schema.js for a bench file, the workload commands for --uri runs).
function databaseWorkload(name, workload, root = ROOT) {
  const why = notOffered(name, workload, root);
  if (why) {
    const { InputError } = require('./input-error');
    throw new InputError(`${why}; ${allowedWith(workload, root)}`);
  }
  // eslint-disable-next-line global-require, import/no-dynamic-require
  return require(path.join(root, name, WORKLOADS_DIR, `${workload}.js`));
}

// A database's own client commands (MongoDB's replset-initiate): databases/<name>/client/commands/*.js,
// each exporting {command, keys, run}: the command's name, the keys it takes (options.js) and its
// handler. {command: {database, file, keys, run}}; a name claimed twice (or by the client's own
// commands, `taken`) is an error naming both files.
function commands(root = ROOT, taken = []) {
  const found = {};
  for (const name of Object.keys(manifests(root))) {
    const dir = path.join(root, name, 'client', 'commands');
    if (!fs.existsSync(dir)) continue;
    for (const f of fs.readdirSync(dir).filter((x) => x.endsWith('.js')).sort()) {
      const file = path.join(dir, f);
      const { command, keys, run } = require(file);
      if (typeof command !== 'string' || !Array.isArray(keys) || typeof run !== 'function') {
        throw new Error(`${file}: exports no {command, keys, run} (a database's client command)`);
      }
      if (found[command] || taken.includes(command)) {
        throw new Error(`${file}: command ${JSON.stringify(command)} is already `
          + `${found[command] ? found[command].file : "the client's own"} (allowed: a name no other command has)`);
      }
      found[command] = { database: name, file, keys, run };
    }
  }
  return found;
}

// The bench keys choosing among a database's official images (its manifest's `versions`: MySQL's
// MYSQL_VERSION=9.7|8.4): {KEY: spec} in bench-schema.js's form, applying only to a bench that runs
// the database. The lab gives the chosen image to its compose service (databases/<name>/lab.py).
function versionSpecs(root = ROOT) {
  const specs = {};
  for (const m of Object.values(manifests(root)).filter((x) => x.versions && !x.not_in_lab)) {
    const v = m.versions;
    specs[v.key] = {
      type: 'enum',
      values: Object.keys(v.images),
      default: v.default,
      about: `${m.label}'s official image: ${Object.entries(v.images).map(([k, image]) => `${k} = ${image}`).join(', ')} (databases/${m.name}/database.json versions)`,
      appliesIf: (values) => (values.DATABASES || []).includes(m.name),
      appliesAbout: `DATABASES including ${m.name}`,
    };
  }
  return specs;
}

module.exports = {
  manifests, labNames, uriSchemes, bindingOf, commands, versionSpecs, offeredWorkloads, offering, notOffered, allowedWith, databaseWorkload, ROOT,
};
