'use strict';
// WORKLOAD=oltp on MongoDB: sysbench's OLTP table (client/src/workloads/oltp-data.js) as a
// collection (_id = id), its k index, the generated rows, and the steps of one operation (run by
// the binding's transaction step kind, mongodb-txn.js: snapshot read concern, majority write
// concern, as the bookings).
const { TABLE, INDEXES, loadRows } = require('../../../../client/src/sdk').workloadData('oltp');

const clustered = (layout) => (layout === 'clustered' ? { clusteredIndex: { key: { _id: 1 }, unique: true } } : {});

async function init(db, { seed, tableRows, layout }) {
  await db.collection(TABLE).drop().catch((err) => { if (err.code !== 26) throw err; });
  await db.createCollection(TABLE, clustered(layout));
  await loadRows(seed, tableRows, (batch) => db.collection(TABLE).insertMany(batch.map(({ id, ...rest }) => ({ _id: id, ...rest }))));
  const indexes = [];
  for (const ix of INDEXES) {
    const key = Object.fromEntries(ix.fields.map((f) => [f, 1]));
    await db.collection(ix.table).createIndex(key, { name: ix.name, unique: ix.unique });
    indexes.push(`db.${ix.table}.createIndex(${JSON.stringify(key)}, {name: "${ix.name}", unique: ${ix.unique}})`);
  }
  return { created: `createCollection("${TABLE}", ${JSON.stringify(clustered(layout))})`, indexes };
}

const range = (lo, hi) => ({ _id: { $gte: lo, $lte: hi } });

function stepsOn(db, session) {
  const coll = db.collection(TABLE);
  const opt = { session };
  const list = (cursor) => cursor.toArray().then((a) => a.length);
  return {
    pointSelect: (id) => coll.findOne({ _id: id }, { ...opt, projection: { _id: 0, c: 1 } }).then((d) => (d ? 1 : 0)),
    simpleRange: (lo, hi) => list(coll.find(range(lo, hi), { ...opt, projection: { _id: 0, c: 1 } })),
    sumRange: (lo, hi) => list(coll.aggregate([{ $match: range(lo, hi) }, { $group: { _id: null, s: { $sum: '$k' } } }], opt)),
    orderRange: (lo, hi) => list(coll.find(range(lo, hi), { ...opt, projection: { _id: 0, c: 1 }, sort: { c: 1 } })),
    distinctRange: (lo, hi) => list(coll.aggregate([{ $match: range(lo, hi) }, { $group: { _id: '$c' } }, { $sort: { _id: 1 } }], opt)),
    indexUpdate: (id) => coll.updateOne({ _id: id }, { $inc: { k: 1 } }, opt).then((r) => r.modifiedCount),
    nonIndexUpdate: (id, c) => coll.updateOne({ _id: id }, { $set: { c } }, opt).then((r) => r.modifiedCount),
    deleteRow: (id) => coll.deleteOne({ _id: id }, opt).then((r) => r.deletedCount),
    insertRow: ({ id, ...rest }) => coll.insertOne({ _id: id, ...rest }, opt).then(() => 1),
  };
}

async function count(db) {
  const documents = await db.collection(TABLE).countDocuments({});
  const s = await db.command({ collStats: TABLE });
  return {
    documents, table_bytes: Number(s.storageSize), index_bytes: Number(s.totalIndexSize), total_bytes: Number(s.storageSize) + Number(s.totalIndexSize), note: 'collStats storageSize and totalIndexSize',
  };
}

// What client/src/workloads/oltp*.js ask of this database; the session as a booking's.
module.exports = {
  init: (target, opts) => init(target.handle(), opts),
  prepare: require('./booking').prepareTransactionsOf('oltp'),
  stepsOn,
  count: (target) => count(target.handle()),
  runSession: require('./booking').runSession,
};
