'use strict';
// MongoDB steps of the query phase and of loading whole documents (methods of MongoTarget):
// indexes from a query set's declaration, one document with a given key, one query, its plan
// (explain with executionStats). Names no workload.
const COLLECTION = 'jsonbench';
// A query's answer comes back in the first batch (one round trip where the answer fits 16 MiB):
// the sets' answers are at most a few thousand rows.
const BATCH = 100000;

const setAt = (obj, path, value) => {
  const keys = path.split('.');
  let o = obj;
  for (let i = 0; i < keys.length - 1; i++) {
    if (o[keys[i]] == null || typeof o[keys[i]] !== 'object') return;
    o = o[keys[i]];
  }
  if (o[keys[keys.length - 1]] !== undefined) o[keys[keys.length - 1]] = value;
};

const methods = {
  // Returns the createIndex calls it made.
  async createIndexes(indexes) {
    const coll = this.db.collection(COLLECTION);
    const out = [];
    for (const ix of indexes) {
      const keys = {};
      for (const f of ix.fields) keys[f.path] = 1;
      await coll.createIndex(keys, { name: ix.name });
      out.push(`createIndex(${JSON.stringify(keys)}, {"name": "${ix.name}"})`);
    }
    return out;
  },

  // doc: a JSON-able object; timePaths: its fields holding ISO text that MongoDB stores as Date.
  // The key goes first as _id (binary UUID or its text, KEY_FORMAT).
  putDocument(key, doc, { timePaths = [] } = {}) {
    const stored = { _id: this.idOf(key), ...doc };
    for (const p of timePaths) {
      const v = p.split('.').reduce((x, k) => (x == null ? undefined : x[k]), stored);
      if (typeof v === 'string') setAt(stored, p, new Date(v));
    }
    return this.db.collection(COLLECTION).insertOne(stored, this.insertOptions || {}).then(() => 1);
  },

  // form: { aggregate: pipeline } or { find, projection?, sort?, limit? }. Resolves to the rows.
  query(form) {
    const coll = this.db.collection(COLLECTION);
    if (form.aggregate) return coll.aggregate(form.aggregate, { batchSize: BATCH }).toArray();
    return coll.find(form.find, {
      projection: form.projection, sort: form.sort, limit: form.limit, batchSize: BATCH,
    }).toArray();
  },

  async explain(form) {
    const cmd = form.aggregate
      ? { aggregate: COLLECTION, pipeline: form.aggregate, cursor: {} }
      : { find: COLLECTION, filter: form.find, projection: form.projection, sort: form.sort, limit: form.limit };
    for (const k of Object.keys(cmd)) if (cmd[k] === undefined) delete cmd[k];
    const plan = await this.db.command({ explain: cmd, verbosity: 'executionStats' });
    return { command: { explain: cmd, verbosity: 'executionStats' }, plan };
  },

  // After a load phase and before each query phase, outside the windows (commands/settle.js):
  // MongoDB keeps no planner statistics (its planner trial-runs candidate plans), so settling is
  // the flush alone.
  async settle() {
    const f = await this.flush();
    return f.command || f.reason;
  },

  // {fsync: 1}: "Flushes all pending writes from the storage layer to disk"; with WiredTiger that
  // is a checkpoint (MongoDB 8.0 manual, fsync command; "To provide durable data, WiredTiger uses
  // checkpoints"). collStats.storageSize and totalIndexSize are the files' sizes, so pages still
  // dirty in the cache are in them only after it (the WiredTiger checkpoint otherwise comes every
  // storage.syncPeriodSecs, 60 s by default). A server without the command (a stand-in) says so:
  // the sizes are then read unflushed, with its words.
  async flush() {
    try {
      await this.client.db('admin').command({ fsync: 1 });
      return { command: '{fsync: 1}', reason: null };
    } catch (err) {
      if (this.isUnsupported(err) || err.code === 59 || err.codeName === 'CommandNotFound') {
        return { command: null, reason: `{fsync: 1} refused by the server: ${err.message}` };
      }
      throw err;
    }
  },

  // A server that lacks a stage or operator the form uses: NotImplemented (238),
  // InvalidPipelineOperator (168: "Unrecognized expression '$count'", SecantusDB 0.7.0b3 in a
  // $lookup sub-pipeline; mongod for an operator newer than itself) or an unknown stage (40324).
  isUnsupported(err) {
    return Boolean(err) && ([238, 168, 40324].includes(err.code) || ['NotImplemented', 'InvalidPipelineOperator'].includes(err.codeName)
      || /not implemented/i.test(String(err.message)));
  },
};

module.exports = { methods };
