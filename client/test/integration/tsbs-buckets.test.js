'use strict';
// Ingest model (b) of issue 11 on the real PostgreSQL and the SecantusDB
// stand-in: one bucket document per host and hour, created by the first
// event and filled by in-place updates ($setOnInsert + $push with upsert;
// INSERT .. ON CONFLICT DO UPDATE with jsonb_set). Counted back: the buckets
// hold exactly the generated events, the same on both databases.
const test = require('node:test');
const assert = require('node:assert/strict');
const { Client } = require('pg');
const { MongoClient } = require('mongodb');
const { startPostgres } = require('../helpers/postgres-server');
const { startSecantus } = require('../helpers/secantus-server');
const tsbs = require('../../src/datasets/tsbs-devops');
const { digestRows, compareDigests } = require('../../src/query-digest');

const DATA = { seed: 9, hosts: 3, start: '2016-01-01T00:45:00Z', intervalSeconds: 20, spanSeconds: 2 * 3600 };
const PG_UPSERT = `insert into tsbs_bucket (id, data)
  values ($1, jsonb_build_object('hour', $2::text, 'tags', $3::jsonb, 'events', jsonb_build_array($4::jsonb)))
  on conflict (id) do update set data = jsonb_set(tsbs_bucket.data, '{events}', (tsbs_bucket.data->'events') || jsonb_build_array($4::jsonb))`;

test.describe('bucket ingest model on PostgreSQL (jsonb_set) and SecantusDB ($push)', () => {
  let pg; let fdb; let pgc; let mc; let coll;
  const events = [...tsbs.events(DATA)];
  const expected = digestRows([...tsbs.buckets(DATA)]);

  test.before(async () => {
    [pg, fdb] = await Promise.all([startPostgres(), startSecantus()]);
    pgc = new Client({ connectionString: pg.uri });
    await pgc.connect();
    await pgc.query('create table tsbs_bucket (id text primary key, data jsonb not null)');
    mc = new MongoClient(fdb.uri, { serverSelectionTimeoutMS: 5000 });
    await mc.connect();
    coll = mc.db().collection('tsbs_bucket');
    await coll.deleteMany({});
    for (const e of events) {
      const b = tsbs.bucketOf(e);
      const entry = tsbs.bucketEntry(e);
      await pgc.query(PG_UPSERT, [b._id, b.hour.toISOString(), JSON.stringify(b.tags), JSON.stringify(entry)]);
      await coll.updateOne({ _id: b._id }, { $setOnInsert: { hour: b.hour, tags: b.tags }, $push: { events: entry } }, { upsert: true });
    }
  });
  test.after(async () => {
    if (pgc) await pgc.end();
    if (mc) await mc.close();
    if (pg) await pg.cleanup();
    if (fdb) await fdb.cleanup();
  });

  test('counted back: every event once, in its host-hour bucket, on both', async () => {
    assert.equal(events.length, 3 * 360);
    const pgCount = await pgc.query('select count(*)::int as buckets, sum(jsonb_array_length(data->\'events\'))::int as events from tsbs_bucket');
    assert.deepEqual(pgCount.rows[0], { buckets: 3 * 3, events: events.length });
    const [m] = await coll.aggregate([{ $unwind: '$events' }, { $count: 'events' }]).toArray();
    assert.equal(m.events, events.length);
    assert.equal(await coll.countDocuments({}), 3 * 3);
  });

  test('the buckets are exactly the generator\'s bucket form (events in time order), on both', async () => {
    const pgDocs = (await pgc.query('select id, data from tsbs_bucket')).rows.map((r) => ({ _id: r.id, ...r.data }));
    const mongoDocs = await coll.find({}).toArray();
    const a = digestRows(pgDocs); const b = digestRows(mongoDocs);
    let c = compareDigests(expected, a, { names: ['generator', 'postgres'] });
    assert.equal(c.equal, true, c.message);
    c = compareDigests(a, b, { names: ['postgres', 'mongodb'] });
    assert.equal(c.equal, true, c.message);
    // And a bucket missing one event is caught.
    mongoDocs[0].events.pop();
    assert.equal(compareDigests(a, digestRows(mongoDocs)).equal, false);
  });
});
