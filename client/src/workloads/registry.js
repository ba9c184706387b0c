'use strict';
// The client's registry of workloads: every `<name>.workload.js` of this folder, the one file that
// declares everything about a workload (docs/layout.md step 7), so a workload is registered by its
// file alone and bench-schema.js, options.js, workloads/index.js and commands/plan.js name none:
//   name, order            WORKLOAD's value; its place in WORKLOAD's allowed values (insert first)
//   keys                   its bench keys: { KEY: spec } (a key several workloads read is one object of
//                          shared-keys.js; two files defining a key differently are refused here)
//   documents              generated documents of FIELDS x FIELD_BYTES (DIGEST, the document size check)
//   querySet               its query set, if any: { module, names, generatedOnly } (client/src/queries/):
//                          one query phase per QUERIES name after its load or run phase
//   stages, stagesWhy      the only client stages it has (absent: any); why, for the refusal
//   sequenceKeys           why KEY=sequence is refused with it (absent: allowed)
//   contextKeys            the keys a "does not apply" message quotes beside WORKLOAD
//   check(values, where)   its rules between keys, before anything starts
//   phases(v, database, benchDir)  its measured phases of one database (query phases are added after)
//   checkSize(v, n)        the KEY=VALUE words giving client 1 about n operations in the smoke check
//   create({target, opts}), describe(opts, out)  its client workload; its result fields
//   okSummary(values)      what validate-bench prints of a valid file
//   initData(target, opts, server)  its own tables/storage and data, made by `init` through the database's
//                          file (-> {created, indexes}) instead of the binding's init step kind
//   count({target, server, opts, readSettled, print})  its own `count` (its sizes read through readSettled)
//   tables()               its own tables: server-stats reads their counters one by one, settle vacuums them,
//                          count's flush (readSettled) writes them (the binding's flush(tables): MySQL's by table)
//   statsTables()          the tables server-stats reads one by one, when not tables() (globalsign: none)
//   databaseNeeds          what a database's file of it (databases/<db>/client/workloads/<name>.js, whose
//                          presence is the offer) exports beyond the binding's step kinds (absent: nothing)
//   analysis               the facts analysis reads from plan.json (plan.schema.json `workload`)
const fs = require('fs');
const path = require('path');

const SUFFIX = '.workload.js';
const REQUIRED = ['name', 'order', 'keys', 'phases', 'checkSize', 'create', 'analysis'];

// Equal specs: the same object, or the same fields (functions and patterns by their text).
function sameSpec(a, b) {
  if (a === b) return true;
  const ka = Object.keys(a).sort();
  const kb = Object.keys(b).sort();
  if (ka.join() !== kb.join()) return false;
  return ka.every((k) => {
    const x = a[k];
    const y = b[k];
    if (typeof x === 'function' || x instanceof RegExp) return String(x) === String(y);
    return JSON.stringify(x) === JSON.stringify(y);
  });
}

const wordsOf = (names) => (names.length > 1 ? `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}` : names[0]);

// Loads the folder's workload files: { workloads: [declaration] in `order`, keys: { KEY: bench spec } }
// where each key's spec gets appliesIf (WORKLOAD is one of the files declaring it, and its `when`),
// appliesAbout and, with requiredWhereApplies, requiredIf.
function load(dir = __dirname) {
  const workloads = [];
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith(SUFFIX)).sort()) {
    const where = path.join(dir, file);
    const w = require(where);
    for (const field of REQUIRED) {
      if (w[field] === undefined) throw new Error(`${where}: '${field}' is missing (a workload file declares ${REQUIRED.join(', ')})`);
    }
    if (`${w.name}${SUFFIX}` !== file) throw new Error(`${where}: name is ${JSON.stringify(w.name)} (allowed: ${JSON.stringify(file.slice(0, -SUFFIX.length))}, the file's name)`);
    workloads.push({ ...w, file: where });
  }
  workloads.sort((a, b) => a.order - b.order || a.name.localeCompare(b.name));
  const declared = new Map(); // KEY -> { spec, by: [workload], file }
  for (const w of workloads) {
    for (const [key, spec] of Object.entries(w.keys)) {
      const seen = declared.get(key);
      if (!seen) declared.set(key, { spec, by: [w.name], file: w.file });
      else if (!sameSpec(seen.spec, spec)) {
        throw new Error(`${w.file}: key ${key} is defined differently from ${seen.file}; a key several workloads read `
          + 'is one spec (client/src/workloads/shared-keys.js), referenced by each');
      } else seen.by.push(w.name);
    }
  }
  const keys = {};
  for (const [key, { spec, by }] of declared) {
    const { when, whenAbout, requiredWhereApplies, ...rest } = spec;
    const appliesIf = (v) => by.includes(v.WORKLOAD) && (!when || when(v));
    keys[key] = {
      ...rest,
      ...(requiredWhereApplies ? { requiredIf: appliesIf } : {}),
      appliesIf,
      appliesAbout: rest.appliesAbout || `WORKLOAD=${wordsOf(by)}${whenAbout ? ` ${whenAbout}` : ''}`,
    };
  }
  return { workloads, keys };
}

let cache = null;
const loaded = () => cache || (cache = load());

// WORKLOAD's allowed values, in order.
const names = () => loaded().workloads.map((w) => w.name);
// The bench keys the workloads declare, with appliesIf.
const keySpecs = () => loaded().keys;

// The declaration of a workload (a WORKLOAD value the bench schema accepted).
function workload(name) {
  const w = loaded().workloads.find((x) => x.name === name);
  if (!w) throw new Error(`no workload file ${name}${SUFFIX} in client/src/workloads/ (allowed: ${names().join(', ')})`);
  return w;
}

module.exports = { load, names, keySpecs, workload, SUFFIX };
