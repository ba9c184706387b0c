'use strict';
// TOPOLOGY: standalone (default, the original study) or replset (a one-member replica set that
// writes an oplog); a bad value or a replset without a MongoDB phase is refused naming file, line,
// key and the allowed values; `replset-initiate` is a client command taking the URI.
const test = require('node:test');
const assert = require('node:assert/strict');
const { validateBenchText, InputError } = require('../../src/bench-schema');
const { parseOptions } = require('../../src/options');

const ENV = 'DESCRIPTION=t\nKEY=uuidv7\nLAYOUT=clustered\nFIELDS=10\nFIELD_BYTES=100\nCLIENTS=1\nRATE=5\nDOCS=10\n'; // lines 1..8

test('TOPOLOGY defaults to standalone and accepts replset', () => {
  assert.equal(validateBenchText(ENV, 'b/bench.env').TOPOLOGY, 'standalone');
  assert.equal(validateBenchText(`${ENV}TOPOLOGY=replset\n`, 'b/bench.env').TOPOLOGY, 'replset');
});

test('a bad TOPOLOGY names the file, the line, the key and the allowed values', () => {
  assert.throws(() => validateBenchText(`${ENV}TOPOLOGY=sharded\n`, 'b/bench.env'), (err) => err instanceof InputError
    && /^b\/bench\.env:9: TOPOLOGY/.test(err.message) && /standalone, replset/.test(err.message));
});

test('TOPOLOGY=replset without a MongoDB phase would do nothing: refused', () => {
  assert.throws(() => validateBenchText(`${ENV}DATABASES=postgres\nTOPOLOGY=replset\n`, 'b/bench.env'),
    (err) => err instanceof InputError && /^b\/bench\.env:10: TOPOLOGY=replset applies only to MongoDB/.test(err.message));
  assert.equal(validateBenchText(`${ENV}DATABASES=postgres\nTOPOLOGY=standalone\n`, 'f').TOPOLOGY, 'standalone');
});

test('replset-initiate takes the URI and the ready timeout', () => {
  const o = parseOptions('replset-initiate', [], { URI: 'mongodb://u:p@mongodb:27017/?authSource=admin&directConnection=true' });
  assert.equal(o.readyTimeoutS, 120);
});
