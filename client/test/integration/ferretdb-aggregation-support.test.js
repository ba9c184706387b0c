'use strict';
// What the FerretDB stand-in (v1.24, SQLite handler) can run of the
// aggregation the issue-11 query sets need (TSBS: $max/$avg per time bucket,
// lastpoint; OnGres: group-bys, top-N, $lookup). Pinned both ways: a change
// of the stand-in fails this test, so docs/datasets.md's list is kept true.
// Real MongoDB runs all of these; nothing here is a MongoDB result.
const test = require('node:test');
const assert = require('node:assert/strict');
const { startFerretDB } = require('../helpers/ferretdb-server');

const PROBES = {
  'accumulator $sum': [{ $group: { _id: '$tags.hostname', x: { $sum: '$u' } } }],
  'accumulator $count': [{ $group: { _id: '$tags.hostname', x: { $count: {} } } }],
  'accumulator $max': [{ $group: { _id: null, x: { $max: '$u' } } }],
  'accumulator $min': [{ $group: { _id: null, x: { $min: '$u' } } }],
  'accumulator $avg': [{ $group: { _id: null, x: { $avg: '$u' } } }],
  'accumulator $first': [{ $group: { _id: null, x: { $first: '$u' } } }],
  'accumulator $last': [{ $group: { _id: null, x: { $last: '$u' } } }],
  'accumulator $top': [{ $group: { _id: null, x: { $top: { sortBy: { time: -1 }, output: '$u' } } } }],
  'compound group _id': [{ $group: { _id: { h: '$tags.hostname', t: '$time' }, x: { $sum: 1 } } }],
  'operator $dateTrunc': [{ $project: { x: { $dateTrunc: { date: '$time', unit: 'hour' } } } }],
  'operator $hour': [{ $project: { x: { $hour: '$time' } } }],
  'operator $toLong': [{ $project: { x: { $toLong: '$time' } } }],
  'operator $subtract': [{ $project: { x: { $subtract: ['$u', 1] } } }],
  'operator $mod': [{ $project: { x: { $mod: ['$u', 2] } } }],
  'operator $gt in $expr': [{ $match: { $expr: { $gt: ['$u', '$v'] } } }],
  'stages $sort + $limit': [{ $sort: { u: -1 } }, { $limit: 1 }],
  'stage $unwind': [{ $project: { a: ['$u', '$v'] } }, { $unwind: '$a' }],
  'stage $lookup': [{ $lookup: { from: 'p', localField: 'u', foreignField: 'u', as: 'j' } }],
  'stage $addFields': [{ $addFields: { w: '$u' } }],
  'stage $bucket': [{ $bucket: { groupBy: '$u', boundaries: [0, 2, 5] } }],
  'stage $count': [{ $count: 'n' }],
  'stage $sortByCount': [{ $sortByCount: '$tags.hostname' }],
  'stage $facet': [{ $facet: { a: [{ $count: 'n' }] } }],
};
const MISSING_IN_1_24 = ['accumulator $max', 'accumulator $min', 'accumulator $avg', 'accumulator $first',
  'accumulator $last', 'accumulator $top', 'operator $dateTrunc', 'operator $hour', 'operator $toLong',
  'operator $subtract', 'operator $mod', 'operator $gt in $expr', 'stage $lookup', 'stage $bucket',
  'stage $sortByCount', 'stage $facet'];

test('FerretDB stand-in: which aggregation stages/operators it lacks (NotImplemented), pinned', async (t) => {
  const f = await startFerretDB();
  try {
    const missing = await f.withDb(async (db) => {
      const c = db.collection('p');
      await c.insertMany([{ time: new Date(0), tags: { hostname: 'a' }, u: 1, v: 2 }, { time: new Date(1000), tags: { hostname: 'b' }, u: 3, v: 4 }]);
      const out = [];
      for (const [name, pipeline] of Object.entries(PROBES)) {
        try {
          await c.aggregate(pipeline).toArray();
        } catch (err) {
          // Only "not implemented" counts as lacking; any other error is a bug in the probe.
          assert.equal(err.codeName, 'NotImplemented', `${name}: ${err.message}`);
          t.diagnostic(`FerretDB lacks ${name}: ${err.message}`);
          out.push(name);
        }
      }
      return out;
    });
    assert.deepEqual(missing, MISSING_IN_1_24);
  } finally {
    await f.cleanup();
  }
});

test('FerretDB stand-in: no time-series collections (ingest model c must be refused on it); bucket $push upserts work', async () => {
  const f = await startFerretDB();
  try {
    await f.withDb(async (db) => {
      await assert.rejects(db.createCollection('ts', { timeseries: { timeField: 'time', metaField: 'tags' } }),
        (err) => err.codeName === 'NotImplemented' && /timeseries/.test(err.message));
      // Model (b): create-once-then-fill by in-place updates runs on the stand-in.
      const c = db.collection('buckets');
      for (const a of [1, 2]) await c.updateOne({ _id: 'host_0@h' }, { $setOnInsert: { tags: { hostname: 'host_0' } }, $push: { events: { a } } }, { upsert: true });
      assert.deepEqual(await c.findOne({ _id: 'host_0@h' }), { _id: 'host_0@h', tags: { hostname: 'host_0' }, events: [{ a: 1 }, { a: 2 }] });
    });
  } finally {
    await f.cleanup();
  }
});
