'use strict';
// The JSON Schemas of the files the client writes for the lab and analysis (<name>.schema.json
// beside this file: plan, result, count, server-stats), checked here where they are written, as
// analysis checks them where it reads them (analysis/common/file_schemas.py). A document that does not
// match is the client's own bug: the caller says so and exits non-zero, so the lab shows it. A
// client's result file is the exception: `run` writes it inside the window, where checking would
// spend the client's CPU; the lab checks it as the phase ends (analysis phase-status).
const fs = require('fs');
const path = require('path');

// Loaded on first use: Ajv's load and a schema's compile cost ~0.4 s of CPU here, which only the
// one-shot commands that print a checked file spend (never `run`, inside a window).
let ajv = null;
function ajvOf() {
  if (!ajv) {
    const Ajv2020 = require('ajv/dist/2020');
    // allErrors off: the first problem is enough to name; strict: a typo in a schema is an error
    // (strictRequired off: a schema may require a field it leaves untyped, as result.tsbs.model)
    ajv = new Ajv2020({ strict: true, strictRequired: false, allowUnionTypes: true });
  }
  return ajv;
}

// name: a schema file's name, and a part of it after '#' (server-stats#/$defs/reading: one reading)
function validatorOf(name) {
  const [file, fragment = ''] = name.split('#');
  const id = `client/src/${file}.schema.json`;
  const a = ajvOf();
  if (!a.getSchema(id)) a.addSchema(JSON.parse(fs.readFileSync(path.join(__dirname, `${file}.schema.json`), 'utf8')));
  return a.getSchema(fragment ? `${id}#${fragment}` : id);
}

// null when doc matches client/src/<name>.schema.json, else one line naming where and what.
function schemaProblem(doc, name) {
  const validate = validatorOf(name);
  if (validate(doc)) return null;
  const e = validate.errors[0];
  const [file, fragment] = name.split('#');
  return `does not match client/src/${file}.schema.json${fragment ? `#${fragment}` : ''} at '${e.instancePath.replace(/^\//, '')}': ${e.message}`;
}

// doc, once it matches; else throws naming what (e.g. "count output") and where.
function checked(doc, name, what) {
  const problem = schemaProblem(doc, name);
  if (problem) throw new Error(`${what} ${problem}`);
  return doc;
}

module.exports = { schemaProblem, checked };
