'use strict';
// MongoDB storage of the time-series ingest models (docs/contracts.md §2, "storage models"), a module of
// its tsbs workload file (../tsbs.js), not of the binding:
//   event  - collection jsonbench (LAYOUT clustered or heap), one document {_id: key, ...event};
//   bucket - the same collection, one document per bucket {_id: key, hour, tags, events: [...]};
//            an event is ONE update command: updateOne({_id}, {$setOnInsert: {hour, tags},
//            $push: {events: entry}}, {upsert: true}) (in place: WiredTiger still writes the
//            changed document, the journal records the update);
//   native - a time-series collection jsonbench {timeseries: {timeField, metaField, granularity}},
//            the event inserted as it is (MongoDB buckets it itself).
// A server that does not make a real time-series collection (SecantusDB 0.7.0b3 accepts `timeseries`
// and makes a plain collection) is refused by init: nothing is faked.

// The `create` options of a model's collection.
function createOptions({ model, series }, layout) {
  if (model === 'native') {
    return { timeseries: { timeField: series.timeField, metaField: series.metaField, granularity: series.granularity } };
  }
  return layout === 'clustered' ? { clusteredIndex: { key: { _id: 1 }, unique: true, name: 'jsonbench_clustered' } } : {};
}

// An input error (exit 2, before any phase): the bench asked for a model this server lacks.
const { InputError } = require('../../../../../client/src/sdk');

class ModelRefused extends InputError {}

// Creates the collection and checks that the server made what was asked (a time-series
// collection is listed with type "timeseries").
async function createModelCollection(db, name, storage, layout, server) {
  const options = createOptions(storage, layout);
  const what = server ? `${server.product} ${server.version}` : 'the server';
  try {
    await db.createCollection(name, options);
  } catch (err) {
    if (storage.model !== 'native') throw err;
    throw new ModelRefused(`MODEL=native: ${what} refused createCollection("${name}", ${JSON.stringify(options)}): `
      + `${err.codeName ? `${err.codeName}: ` : ''}${err.message}; `
      + `it has no time-series collections${server && server.stand_in ? ' (a MongoDB stand-in: real MongoDB has them)' : ''}`);
  }
  if (storage.model === 'native') {
    const [info] = await db.listCollections({ name }).toArray();
    if (!info || info.type !== 'timeseries') {
      throw new ModelRefused(`MODEL=native: ${what} accepted createCollection with timeseries but made a collection of type `
        + `${JSON.stringify(info && info.type)}, not "timeseries": refused, a native model it does not have would be faked`);
    }
  }
  return `createCollection("${name}", ${JSON.stringify(options)}) (MODEL=${storage.model})`;
}

// MongoDB 6.3+ creates a compound index {metaField: 1, timeField: 1} with a new time-series
// collection (MongoDB 8.0 manual, Time Series Indexes, "Compound Indexes":
// https://www.mongodb.com/docs/v8.0/core/timeseries/timeseries-index/). init reports it as an index
// the model has (results.json `indexes`), read back with listIndexes; a server that did not make it
// (before 6.3) gets it by createIndex, so the native model always carries the index PostgreSQL's
// native table is given (databases/postgres/client/workloads/tsbs/models.js seriesIndexDdl).
async function seriesIndexes(db, name, { model, series }) {
  if (model !== 'native') return [];
  const want = { [series.metaField]: 1, [series.timeField]: 1 };
  const same = (key) => JSON.stringify(key) === JSON.stringify(want);
  const found = (await db.collection(name).listIndexes().toArray()).find((ix) => same(ix.key));
  if (found) return [`${JSON.stringify(found.key)} (name "${found.name}": created by the server with the time-series collection)`];
  const ixName = `${series.metaField}_1_${series.timeField}_1`;
  await db.collection(name).createIndex(want, { name: ixName });
  return [`createIndex(${JSON.stringify(want)}, {"name": "${ixName}"}) (the server did not create it with the time-series collection)`];
}

// Resolves to 1 when the upsert created or changed exactly one document.
function upsertResult(r) {
  const n = (r.upsertedCount || 0) + (r.modifiedCount || 0);
  if (n !== 1) throw new Error(`bucket upsert: expected 1 document created or changed, the server said upserted ${r.upsertedCount}, modified ${r.modifiedCount}`);
  return 1;
}

// Events held: per document, or the sum of the buckets' arrays ($unwind + $count: stages the
// stand-in has too; outside any measured window).
async function countEvents(coll, { model, arrayField }) {
  if (model !== 'bucket') return coll.countDocuments({});
  const [r] = await coll.aggregate([{ $unwind: `$${arrayField}` }, { $count: 'events' }]).toArray();
  return r ? Number(r.events) : 0;
}

module.exports = { createOptions, createModelCollection, seriesIndexes, upsertResult, countEvents, ModelRefused };
