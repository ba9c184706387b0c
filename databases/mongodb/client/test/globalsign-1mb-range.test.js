'use strict';
// GlobalSign's 1 MB people (globalsign-1mb/) on the MongoDB stand-in SecantusDB: a range select's band
// holds more people than one batch carries (16 MiB: about 15 people of 1 MiB), so the find is followed
// by getMores. Through the client's own commands as the lab runs them (init, the load by 2 clients, a
// range run): every range returns every person of the band, the ids the generator puts there
// (globalsign-data.js), and the result's range_round_trips counts the find and each getMore, which the
// server's own opcounters (query + getmore, server-stats before and after the run) confirm.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');

const CLIENT_DIR = path.resolve(__dirname, '../../../../client');
const { startSecantus } = require(path.join(CLIENT_DIR, 'test/helpers/secantus-server'));
const { runCli } = require(path.join(CLIENT_DIR, 'test/helpers/run-cli'));
const { person, inBand } = require(path.join(CLIENT_DIR, 'src/workloads/globalsign-data'));
const mongo = require('../workloads/globalsign');

const SEED = 3;
const RECORDS = 100;
const SHAPE = { padBytes: 1048576, ageMax: 99 }; // ages 0..99: about 29% in the band
const BAND = { min: 45, max: 75 };
const RANGES = 3;

const env = (uri) => ({
  WORKLOAD: 'globalsign', KEY: 'uuidv7', LAYOUT: 'clustered', URI: uri, SEED: String(SEED), CLIENTS: '2',
  RECORDS: String(RECORDS), PAD_BYTES: String(SHAPE.padBytes), AGE_MAX: String(SHAPE.ageMax),
  RANGE_MIN: String(BAND.min), RANGE_MAX: String(BAND.max), RATE: '50', LOAD_RATE: '0', DURABILITY: 'relaxed',
});

async function cli(args, e) {
  const r = await runCli(args, { env: e, timeoutMs: 300000 });
  assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}${r.stdout.slice(-2000)}`);
  return r;
}
const counters = async (uri) => JSON.parse((await cli(['server-stats'], env(uri))).stdout.trim().split('\n').pop()).counters;

test.describe('SecantusDB: globalsign 1 MiB people, a range read to the end through getMores', { timeout: 900000 }, () => {
  let db;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jsonbench-gs1mb-'));
  test.before(async () => { db = await startSecantus(); });
  test.after(async () => {
    if (db) await db.cleanup();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('every range returns the band\'s people; its round trips are the find and its getMores', async () => {
    await cli(['init'], env(db.uri));
    for (const c of [1, 2]) {
      await cli(['run', '--stage', 'load', '--client-id', String(c), '--result', path.join(dir, `load-${c}.json`)], env(db.uri));
    }
    const want = Array.from({ length: RECORDS }, (_, k) => k).filter((id) => inBand(person(SEED, id, SHAPE).age, BAND));
    assert.ok(want.length > 20, `${want.length} people of 1 MiB in the band: more than one 16 MiB batch`);
    const got = await db.withDb(async (d) => (await d.collection('globalsign').find(mongo.bandFilter(BAND), { projection: { _id: 1 } }).toArray()).map((x) => x._id));
    assert.deepEqual(got.sort((a, b) => a - b), want, 'the band\'s ids are the generator\'s');

    const a = await counters(db.uri);
    await cli(['run', '--client-id', '1', '--result', path.join(dir, 'range.json')], { ...env(db.uri), MIX: 'range=100', OPS: String(RANGES) });
    const b = await counters(db.uri);
    const result = JSON.parse(fs.readFileSync(path.join(dir, 'range.json'), 'utf8'));
    assert.equal(result.operations.range.ok, RANGES, JSON.stringify(result.error_samples));
    assert.equal(result.operations.range.docs, RANGES * want.length, 'each range returned every person of the band');
    const trips = result.range_round_trips;
    assert.ok(trips, 'the result states the ranges\' round trips');
    assert.equal(trips.ranges, RANGES);
    assert.equal(trips.documents, RANGES * want.length);
    const sent = (b.opcounters_query - a.opcounters_query) + (b.opcounters_getmore - a.opcounters_getmore);
    console.log(`globalsign 1 MiB range: ${want.length} people in the band, ${trips.round_trips} round trips for ${RANGES} ranges; the server counted ${sent} finds and getMores`);
    assert.ok(trips.round_trips >= 2 * RANGES, `${trips.round_trips} round trips: a getMore at least per range`);
    assert.equal(trips.round_trips, sent, 'the round trips the client counted are the finds and getMores the server counted');
  });
});
