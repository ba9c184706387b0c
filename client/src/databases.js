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
// the database. The lab gives the chosen image to its compose service (databases/<name>/lab.sh).
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

module.exports = { manifests, labNames, uriSchemes, bindingOf, commands, versionSpecs, ROOT };
