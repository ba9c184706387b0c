'use strict';
// A database's code (databases/<name>/client/, its tests apart) takes what it needs from the client
// through the SDK (client/src/sdk.js) alone: no other path into client/, whether a relative
// require, clientRequire of a relative path, or a require of its own made with createRequire.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const path = require('path');
const sdk = require('../../src/sdk');

const DATABASES = path.resolve(__dirname, '..', '..', '..', 'databases');
const CLIENT = path.resolve(__dirname, '..', '..');
const SDK = path.join(CLIENT, 'src', 'sdk.js');

// Every .js file under databases/*/client, except the tests' folders.
function bindingFiles(dir) {
  const out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) { if (e.name !== 'test' && e.name !== 'node_modules') out.push(...bindingFiles(p)); } else if (e.name.endsWith('.js')) out.push(p);
  }
  return out;
}

const allFiles = () => fs.readdirSync(DATABASES).filter((db) => fs.existsSync(path.join(DATABASES, db, 'client')))
  .flatMap((db) => bindingFiles(path.join(DATABASES, db, 'client')));

// The offending lines of one file's text: "<file>:<line>: <why>".
function offences(file, text) {
  const out = [];
  text.split('\n').forEach((line, i) => {
    const where = `${path.relative(DATABASES, file)}:${i + 1}`;
    if (/\bcreateRequire\s*\(/.test(line)) out.push(`${where}: createRequire (a require into the client of its own; use the SDK's clientRequire for drivers)`);
    for (const m of line.matchAll(/\b(require|clientRequire)\s*\(\s*['"]([^'"]+)['"]/g)) {
      const [, fn, spec] = m;
      if (!spec.startsWith('.')) continue;
      if (fn === 'clientRequire') { out.push(`${where}: clientRequire(${JSON.stringify(spec)}) reaches the client's own files`); continue; }
      const target = path.resolve(path.dirname(file), spec);
      const resolved = target.endsWith('.js') ? target : `${target}.js`;
      if ((target === CLIENT || target.startsWith(`${CLIENT}${path.sep}`)) && resolved !== SDK) {
        out.push(`${where}: require(${JSON.stringify(spec)}) reaches ${path.relative(path.dirname(CLIENT), resolved)} (allowed: client/src/sdk.js)`);
      }
    }
  });
  return out;
}

test('no file of a database\'s client code reaches into client/ other than through the SDK', () => {
  const files = allFiles();
  assert.ok(files.length > 20, `found only ${files.length} files under databases/*/client`);
  assert.deepEqual(files.flatMap((f) => offences(f, fs.readFileSync(f, 'utf8'))), []);
});

test('the check sees each way around the SDK', () => {
  const file = path.join(DATABASES, 'demo', 'client', 'demo.js');
  assert.equal(offences(file, "const { InputError } = require('../../../client/src/input-error');").length, 1);
  assert.equal(offences(file, "const x = clientRequire('./src/bench-schema');").length, 1);
  assert.equal(offences(file, "const r = createRequire(path.join(dir, 'package.json'));").length, 1);
  assert.deepEqual(offences(file, "const { InputError } = require('../../../client/src/sdk');\nconst { Client } = clientRequire('pg');\nconst m = require('./demo-stats');"), []);
});

test('every name of the SDK resolves (a binding destructures them at load)', () => {
  for (const name of Object.keys(sdk)) assert.notEqual(sdk[name], undefined, `sdk.${name}`);
  assert.equal(typeof sdk.clientRequire('pg').Client, 'function');
  // a workload's data module by the workload's name (a new workload adds no name to the SDK)
  assert.deepEqual(Object.keys(sdk.workloadData('booking').tables), ['aircraft', 'schedule', 'seat', 'payment', 'audit']);
  assert.throws(() => sdk.workloadData('../keys'), /allowed: a workload's name/);
});
