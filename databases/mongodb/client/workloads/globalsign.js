'use strict';
// WORKLOAD=globalsign on MongoDB (client/src/workloads/globalsign*.js): the people as BSON documents
// of collection globalsign, _id the person's id, as the study's tool stored them: dob a BSON date,
// balance a double, age and counter int32, padding BinData subtype 0 (the bytes themselves, no text
// encoding). The partial index is the study's: {age: 1} with partialFilterExpression {age: {$gt,
// $lt}} over the band, and the range select is find() with that same filter, which MongoDB can serve
// from the partial index only because the query's filter implies the index's.
const { clientRequire, workloadData } = require('../../../../client/src/sdk');
const { writeOptionsOf } = require('../mongodb');

const { Binary, Double } = clientRequire('mongodb');
const { TABLE, INDEX, bandBounds, canonicalPerson } = workloadData('globalsign');

const clustered = (layout) => (layout === 'clustered' ? { clusteredIndex: { key: { _id: 1 }, unique: true } } : {});
const bandFilter = (band) => { const { min, max } = bandBounds(band); return { age: { $gt: min, $lt: max } }; };

async function init(db, { layout, rangeMin, rangeMax }) {
  await db.collection(TABLE).drop().catch((err) => { if (err.code !== 26) throw err; });
  await db.createCollection(TABLE, clustered(layout));
  const options = { name: INDEX, partialFilterExpression: bandFilter({ min: rangeMin, max: rangeMax }) };
  await db.collection(TABLE).createIndex({ age: 1 }, options);
  return {
    created: `createCollection("${TABLE}", ${JSON.stringify(clustered(layout))})`,
    indexes: [`db.${TABLE}.createIndex({"age":1}, ${JSON.stringify(options)})`],
  };
}

// A person as BSON: _id first; balance a double even when its value is whole (the driver would write
// a whole number as int32).
function encode({ id, balance, padding, ...rest }) {
  return {
    _id: id, ...rest, balance: new Double(balance), padding: new Binary(padding, Binary.SUBTYPE_DEFAULT),
  };
}

function stepsOn(target, { durability, rangeMin, rangeMax }) {
  const write = writeOptionsOf(durability);
  const filter = bandFilter({ min: rangeMin, max: rangeMax });
  const coll = () => target.handle().collection(TABLE);
  const trips = { ranges: 0, roundTrips: 0, documents: 0 };
  return {
    insert: (doc) => coll().insertOne(doc, write).then(() => 1),
    update: (id, balance) => coll().updateOne({ _id: id }, { $set: { balance: new Double(balance) } }, write).then((r) => {
      if (r.matchedCount !== 1) throw Object.assign(new Error(`update: no person with _id ${id}`), { code: 'JSONBENCH_NOT_FOUND' });
      return 1;
    }),
    // every document of the band, read to the end (raw BSON: counted, not decoded, as the binding's
    // reads): the find's first batch (101 documents or 16 MiB) and as many getMores as the band needs
    // (1 MiB people: about 15 a batch), each counted as a round trip (rangeRoundTrips).
    range: async () => {
      const cursor = coll().find(filter, { raw: true });
      let docs = 0;
      try {
        for (;;) {
          // hasNext sends a command (the find, then a getMore) when no document is buffered and the
          // server's cursor is open: counted before it is sent, so a last getMore that returns
          // nothing is counted too
          if (cursor.bufferedCount() === 0 && !cursor.closed) trips.roundTrips += 1;
          if (!(await cursor.hasNext())) break;
          docs += cursor.readBufferedDocuments().length;
        }
      } finally {
        await cursor.close();
      }
      trips.ranges += 1;
      trips.documents += docs;
      return docs;
    },
    // the client result's range_round_trips (client/src/workloads/globalsign.js resultFields)
    rangeRoundTrips: () => ({
      ranges: trips.ranges, round_trips: trips.roundTrips, documents: trips.documents,
      source: 'the binding: a find and each getMore a range sent (mongodb driver cursor batches)',
    }),
  };
}

async function sizes(db) {
  const documents = await db.collection(TABLE).countDocuments({});
  const s = await db.command({ collStats: TABLE });
  return {
    documents, table_bytes: Number(s.storageSize), index_bytes: Number(s.totalIndexSize), total_bytes: Number(s.storageSize) + Number(s.totalIndexSize), note: 'collStats storageSize and totalIndexSize',
  };
}

// Every person in the canonical form (client/src/workloads/globalsign-data.js): _id as id, the date
// and the padding's bytes as the JSON databases hold them.
async function* readBack(db) {
  for await (const { _id, padding, ...rest } of db.collection(TABLE).find({}).sort({ _id: 1 })) {
    yield canonicalPerson({ id: _id, ...rest, padding: Buffer.from(padding.buffer) });
  }
}

// The stages of an explain's plan, depth first (inputStage, inputStages; SBE's queryPlan likewise).
function* stages(plan) {
  if (!plan || typeof plan !== 'object') return;
  yield plan;
  if (plan.inputStage) yield* stages(plan.inputStage);
  for (const s of plan.inputStages || []) yield* stages(s);
}
const withoutInputs = ({ inputStage, inputStages, ...stage }) => stage;
const EXECUTIONS = 6;

// The index proof: the run's find (its filter, as sent) executed 6 times (MongoDB caches a plan
// per query shape once it has been chosen; the same count as the SQL databases' proofs), then the
// explain command of that find (queryPlanner verbosity): the winning plan and its index.
// A server whose explain has no winning plan (a stand-in) says so: used null, with what it answered.
async function proof(db, band) {
  const filter = bandFilter(band);
  for (let k = 0; k < EXECUTIONS; k++) await db.collection(TABLE).find(filter, { raw: true }).toArray();
  const statement = `db.${TABLE}.find(${JSON.stringify(filter)})`;
  const base = {
    statement, index: INDEX, executions_before: EXECUTIONS, plan_cache: null,
    method: `explain {find: "${TABLE}", filter} (verbosity queryPlanner) after ${EXECUTIONS} executions of the run's find`,
  };
  let explained;
  try {
    explained = await db.command({ explain: { find: TABLE, filter }, verbosity: 'queryPlanner' });
  } catch (err) {
    return {
      ...base, used: null, index_used: null, plan_node: null, plan_nodes: [], reason: `explain failed: ${err.codeName || err.code || ''} ${err.message}`.trim(),
    };
  }
  const planner = explained.queryPlanner || {};
  const winning = planner.winningPlan && (planner.winningPlan.queryPlan || planner.winningPlan);
  if (!winning) {
    return {
      ...base, used: null, index_used: null, plan_node: null, plan_nodes: [], reason: `explain answered without queryPlanner.winningPlan: ${JSON.stringify(explained).slice(0, 500)}`,
    };
  }
  const all = [...stages(winning)];
  const usedStage = all.find((s) => s.indexName === INDEX);
  const anyIndex = all.find((s) => s.indexName);
  return {
    ...base,
    used: Boolean(usedStage),
    index_used: anyIndex ? anyIndex.indexName : null,
    plan_node: withoutInputs(usedStage || winning),
    plan_nodes: all.map((s) => `${s.stage}${s.indexName ? ` on ${s.indexName}` : ''}`),
  };
}

// What client/src/workloads/globalsign*.js ask of this database.
module.exports = {
  init: (target, opts) => init(target.handle(), opts),
  prepare: async () => {},
  stepsOn,
  encode,
  sizes: (target) => sizes(target.handle()),
  readBack: (target) => readBack(target.handle()),
  proof: (target, band) => proof(target.handle(), band),
  bandFilter,
};
