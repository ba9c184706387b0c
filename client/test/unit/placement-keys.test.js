'use strict';
// The placement keys (DATABASE_HOST, DATABASE_HOST_<db>, CLIENT_HOST, MONITORING_HOST) are the
// driver's (lab/driver/placement.py checks them before anything starts): validate-bench and the plan
// accept them in a bench file or a --set, keep them as given, and put them in no client's environment.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { validateBenchText, BENCH_SPECS } = require('../../src/bench-schema');
const { planDocument } = require('../../src/commands/plan');

const BENCH = 'DESCRIPTION=x\nKEY=uuidv7\nLAYOUT=heap\nFIELDS=2\nFIELD_BYTES=10\nCLIENTS=1\nRATE=10\nDOCS=10\n';
const PLACED = 'DATABASE_HOST=jsonbench-sim-1\nDATABASE_HOST_postgres=db2\nCLIENT_HOST=jsonbench-sim-2\nMONITORING_HOST=mon\n';

test('a bench file with placement keys is accepted; the keys are no bench key', () => {
  const values = validateBenchText(BENCH + PLACED, 'b/bench.env');
  for (const k of ['DATABASE_HOST', 'DATABASE_HOST_postgres', 'CLIENT_HOST', 'MONITORING_HOST']) {
    assert.equal(k in values, false, k);
    assert.equal(k in BENCH_SPECS, false, k);
  }
});

test('a misspelled placement key is still refused, with a suggestion', () => {
  assert.throws(() => validateBenchText(`${BENCH}CLIENT_HOTS=x\n`, 'b/bench.env'), /unknown key CLIENT_HOTS/);
  assert.throws(() => validateBenchText(`${BENCH}DATABASE_HOST_POSTGRES=x\n`, 'b/bench.env'), /unknown key DATABASE_HOST_POSTGRES/);
});

test('the plan keeps placement keys as given and out of the clients\' environment', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'placement-keys-'));
  try {
    const file = path.join(dir, 'bench.env');
    fs.writeFileSync(file, BENCH);
    const plain = planDocument(validateBenchText(BENCH, file), file, []);
    const sets = ['CLIENT_HOST=jsonbench-sim-2'];
    fs.writeFileSync(file, BENCH + PLACED);
    const placed = planDocument(validateBenchText(`${BENCH + PLACED}CLIENT_HOST=jsonbench-sim-2\n`, file), file, sets);
    assert.deepEqual(placed.settings.environment, plain.settings.environment);
    assert.deepEqual(placed.settings.values, plain.settings.values);
    assert.equal(placed.settings.given.DATABASE_HOST, 'jsonbench-sim-1');
    assert.equal(placed.settings.given.DATABASE_HOST_postgres, 'db2');
    assert.equal(placed.settings.given.CLIENT_HOST, 'jsonbench-sim-2');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
