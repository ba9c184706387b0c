'use strict';
// WORKLOAD=tsbs on MongoDB: the TSBS devops events in one of the three ingest models
// (client/src/workloads/tsbs.js; their collections: tsbs/models.js), run through the
// binding's connection: init (the model's collection, and the index a time-series collection has),
// prepare (the binding's put step kind: write concern of the durability, key format), one step per
// model (one round trip per event), count (events held and sizes). Its query phases run the named
// query step kind with this database's forms of the tsbs query set (../queries/tsbs.js).
const models = require('./tsbs/models');
const { keyOf, writeOptionsOf } = require('../mongodb');

const COLLECTION = 'jsonbench';

// What prepare settles for a binding's steps (this file's own state, by binding): the collection,
// the key form and the write concern the binding's put step kind uses (keyOf, writeOptionsOf).
const prepared = new WeakMap();

// The model's collection (a model the server lacks is refused: ModelRefused, exit 2) and the index
// MODEL=native has from its creation (seriesIndexes).
async function init(target, storage, { layout, server }) {
  const db = target.handle();
  await db.collection(COLLECTION).drop().catch((err) => {
    if (err.codeName !== 'NamespaceNotFound' && err.code !== 26) throw err;
  });
  const created = await models.createModelCollection(db, COLLECTION, storage, layout, server);
  return { created, indexes: await models.seriesIndexes(db, COLLECTION, storage) };
}

// The put step kind's preparation; a time-series event has no key of ours (the driver's ObjectId,
// as KEY=sequence).
function prepare(target, storage) {
  prepared.set(target, {
    collection: target.handle().collection(COLLECTION), keyFormat: storage.keyFormat, writeOptions: writeOptionsOf(storage.durability),
  });
  return target.prepareInserts({ key: storage.model === 'native' ? 'sequence' : 'uuidv7', durability: storage.durability, keyFormat: storage.keyFormat });
}

// One step per model, one round trip each: a keyed document (the put step kind's send), a bucket
// upsert ($setOnInsert of the head, $push of the entry: one update command), a time-series insert.
const MODELS = {
  event: (target, key, doc) => target.send({ _id: keyOf(key, prepared.get(target).keyFormat), ...doc }),
  bucket: (target, key, head, field, entry) => {
    const { collection, keyFormat, writeOptions } = prepared.get(target);
    return collection.updateOne({ _id: keyOf(key, keyFormat) },
      { $setOnInsert: head, $push: { [field]: entry } }, { ...writeOptions, upsert: true }).then(models.upsertResult);
  },
  native: (target, doc) => target.send(doc),
};

// documents = events held (bucket: summed over the buckets' arrays), rows = documents in the
// collection.
async function count(target, storage) {
  const db = target.handle();
  const coll = db.collection(COLLECTION);
  const documents = await models.countEvents(coll, storage);
  const stats = await db.command({ collStats: COLLECTION });
  return {
    documents,
    rows: storage.model === 'bucket' ? await coll.countDocuments({}) : documents,
    model: storage.model,
    table_bytes: Number(stats.storageSize),
    index_bytes: Number(stats.totalIndexSize),
    total_bytes: Number(stats.storageSize) + Number(stats.totalIndexSize),
    note: 'collStats storageSize and totalIndexSize',
  };
}

// What client/src/workloads/tsbs*.js ask of this database (docs/contracts.md §2a, "Workload files").
module.exports = {
  init, prepare, models: MODELS, count,
};
