'use strict';
// tsbs-timescale/bench.env, the Timescale study's comparison: its own sweep pairs MODEL with
// DATABASES (MongoDB per event, MongoDB per host-hour, TimescaleDB's hypertable). Each point, as
// runme.sh writes it (bench.env, then the point's two settings), is valid and plans 8 clients
// ingesting 78,000 events then the 13 TSBS queries on the point's one database.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const { validateBenchText } = require('../../src/bench-schema');
const { phases } = require('../../src/commands/plan');
const { queryNames } = require('../../src/queries');

const FILE = path.resolve(__dirname, '../../../tsbs-timescale/bench.env');
const TEXT = fs.readFileSync(FILE, 'utf8');

test('tsbs-timescale: three paired points, each one database with its own design, ingest then the 13 queries', () => {
  const v = validateBenchText(TEXT, FILE);
  assert.equal(v.SWEEP, 'MODEL+DATABASES=event+mongodb,bucket+mongodb,native+timescaledb');
  const points = v.SWEEP.split('=')[1].split(',').map((p) => p.split('+'));
  assert.deepEqual(points, [['event', 'mongodb'], ['bucket', 'mongodb'], ['native', 'timescaledb']]);
  for (const [model, db] of points) {
    const pv = validateBenchText(`${TEXT}\nMODEL=${model}\nDATABASES=${db}\n`, FILE);
    const p = phases(pv);
    assert.deepEqual(p.map((x) => x.phase), [db, ...queryNames('tsbs').map((q) => `${db}-q-${q}`)], `${model}+${db}`);
    // 100 hosts / 8 clients: client 1 owns 13 hosts x 780 events, at 50 events/s
    assert.deepEqual({ stage: p[0].stage, ops: p[0].ops, rate: p[0].rate, clients: p[0].clients }, { stage: 'run', ops: 13 * 780, rate: 50, clients: 8 });
    assert.ok(p.slice(1).every((x) => x.stage === 'query' && x.clients === 1 && x.ops === 20 && x.rate === 1));
  }
});

test('tsbs-timescale: the pairs are all it runs; another pairing is refused before anything starts, naming the layouts', () => {
  assert.throws(() => validateBenchText(`${TEXT}\nMODEL=event\nDATABASES=timescaledb\n`, FILE),
    /MODEL=event has no timescaledb layout .*allowed: timescaledb: native/);
  // COMPRESS on the sweep would compress nothing on MongoDB: refused at its points
  assert.throws(() => validateBenchText(`${TEXT}\nCOMPRESS=after:12h\n`, FILE), /COMPRESS=after:12h is native compression, which mongodb does not have/);
  assert.equal(validateBenchText(`${TEXT}\nMODEL=native\nDATABASES=timescaledb\nCOMPRESS=after:12h\n`, FILE).COMPRESS, 'after:12h');
});
