'use strict';
// `node client bench-specs`: every bench key of the schema with its type, what is allowed and an enum
// key's values, as the one JSON line lab/experiments.sh hands to `analysis sweep-args --specs`.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');
const { execFileSync, spawnSync } = require('child_process');
const { BENCH_SPECS } = require('../../src/bench-schema');

const CLI = path.resolve(__dirname, '../../src/cli.js');

test('bench-specs prints every key of the schema with its type, allowed text and enum values', () => {
  const out = execFileSync(process.execPath, [CLI, 'bench-specs'], { encoding: 'utf8' });
  assert.equal(out.trim().split('\n').length, 1);
  const specs = JSON.parse(out);
  assert.deepEqual(Object.keys(specs), Object.keys(BENCH_SPECS));
  assert.deepEqual(specs.KEY, { type: 'enum', allowed: 'one of uuidv7, uuidv4, sequence', values: ['uuidv7', 'uuidv4', 'sequence'] });
  assert.equal(specs.FIELDS.type, 'int');
  assert.equal(specs.FIELDS.values, undefined);
  for (const [key, spec] of Object.entries(specs)) {
    assert.equal(typeof spec.allowed, 'string', key);
    assert.equal(spec.type, BENCH_SPECS[key].type, key);
    if (spec.type === 'enum') assert.ok(spec.values.length > 0, key);
  }
});

test('bench-specs refuses an argument (exit 2, naming it)', () => {
  const r = spawnSync(process.execPath, [CLI, 'bench-specs', 'bench1/bench.env'], { encoding: 'utf8' });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /bench-specs: takes no argument, got bench1\/bench.env/);
});
