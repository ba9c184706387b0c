'use strict';
// The schemas of the files the client writes (client/src/*.schema.json), checked where they are
// written: each compiles under Ajv's strict mode, a real document of each kind matches, and a
// document that does not is refused naming the schema, where and what.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const path = require('path');
const { schemaProblem, checked } = require('../../src/check-schema');

const FIXTURES = path.join(__dirname, '..', '..', '..', 'analysis', 'tests', 'fixtures');
const read = (...p) => JSON.parse(fs.readFileSync(path.join(FIXTURES, ...p), 'utf8'));

test('every schema compiles under strict mode', () => {
  for (const name of ['plan', 'result', 'count', 'server-stats', 'server-stats#/$defs/reading']) {
    assert.doesNotThrow(() => schemaProblem({}, name), name);
  }
});

test('recorded files of a real run match their schemas', () => {
  // a TimescaleDB ingest and query run, recorded by the lab (client, count and readings as written)
  const dir = ['timescaledb-compress'];
  for (const f of fs.readdirSync(path.join(FIXTURES, ...dir, 'clients'))) {
    assert.strictEqual(schemaProblem(read(...dir, 'clients', f), 'result'), null, f);
  }
  assert.strictEqual(schemaProblem(read(...dir, 'timescaledb.count.json'), 'count'), null);
  // MySQL 9.7's readings (server.version_comment, reading.status_names) and an earlier run's MariaDB ones
  for (const c of ['mysql97-lab-bench1', 'mariadb-lab-bench1']) {
    const pair = read('reconcile', c, 'server-stats.json');
    assert.strictEqual(schemaProblem(pair, 'server-stats'), null, c);
    assert.strictEqual(schemaProblem(pair.start, 'server-stats#/$defs/reading'), null, c);
  }
  for (const f of fs.readdirSync(path.join(FIXTURES, 'reconcile', 'mysql97-lab-bench1', 'clients'))) {
    assert.strictEqual(schemaProblem(read('reconcile', 'mysql97-lab-bench1', 'clients', f), 'result'), null, f);
  }
});

test('a document that does not match is refused naming the schema, where and what', () => {
  const count = read('timescaledb-compress', 'timescaledb.count.json');
  assert.throws(() => checked({ ...count, total_bytes: -1 }, 'count', 'count output'),
    /^Error: count output does not match client\/src\/count\.schema\.json at 'total_bytes': must be >= 0$/);
  const reading = read('reconcile', 'mariadb-lab-bench1', 'server-stats.json').start;
  assert.match(schemaProblem({ ...reading, counters: { com_insert: 'many' } }, 'server-stats#/$defs/reading'),
    /server-stats\.schema\.json#\/\$defs\/reading at 'counters\/com_insert': must be number,null$/);
  const [first] = fs.readdirSync(path.join(FIXTURES, 'timescaledb-compress', 'clients'));
  const result = read('timescaledb-compress', 'clients', first);
  delete result.docs_ok;
  assert.match(schemaProblem(result, 'result'), /result\.schema\.json at '': must have required property 'docs_ok'$/);
});
