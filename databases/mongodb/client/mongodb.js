'use strict';
// MongoDB binding: collection jsonbench, one pooled connection. Step kinds:
// put (insertOne, build + send), get (findOne), patch (updateOne with $set
// of one field), scan (one find, sorted by _id, whose first batch holds all n
// documents: one round trip), writes with the write concern of the chosen
// durability. Reads come back as raw BSON (counted, not decoded). Also
// drives the MongoDB stand-ins (SecantusDB; FerretDB), which it detects and
// labels as stand-ins.
const { clientRequire, uuidString } = require('../../../client/src/sdk');

const { MongoClient, Binary, MongoNetworkError, MongoServerSelectionError } = clientRequire('mongodb');
const { readMongoStats } = require('./mongodb-stats');

const COLLECTION = 'jsonbench';
const DEFAULT_DB = 'jsonbench';

// A full count of a large collection can keep a server busy long enough that the driver's
// heartbeat (bounded by connectTimeoutMS) times out and the count fails with it: `patient` targets
// (count) wait minutes; the load path keeps short timeouts so a lost server shows up quickly.
const PATIENT_TIMEOUT_MS = 300000;
const QUICK_TIMEOUT_MS = 5000;

// A 16-byte key as the collection stores it: Binary subtype 4 = UUID, 16 bytes, like PostgreSQL's
// uuid; or its text form (KEY_FORMAT=string).
const keyOf = (keyBytes, keyFormat) => (keyFormat === 'string' ? uuidString(keyBytes) : new Binary(keyBytes, Binary.SUBTYPE_UUID));

// The write concern of a DURABILITY: acknowledged by the primary, journaled when strict.
const writeOptionsOf = (durability) => ({ writeConcern: { w: 1, journal: durability === 'strict' } });

function notFound(what, key) {
  const err = new Error(`${what}: no document with _id ${key.toString('hex')}`);
  err.code = 'JSONBENCH_NOT_FOUND';
  return err;
}

class MongoTarget {
  // monitorCommands: the driver emits commandStarted (tests count round trips).
  constructor(uri, { patient = false, monitorCommands = false } = {}) {
    this.uri = uri;
    this.database = 'mongodb';
    this.client = null;
    this.timeoutMs = patient ? PATIENT_TIMEOUT_MS : QUICK_TIMEOUT_MS;
    this.monitorCommands = monitorCommands;
  }

  async connect() {
    this.client = new MongoClient(this.uri, {
      maxPoolSize: 1, // one connection per client, as on PostgreSQL
      retryWrites: false, // a retried insert could duplicate a driver-made ObjectId
      serverSelectionTimeoutMS: this.timeoutMs,
      connectTimeoutMS: this.timeoutMs,
      monitorCommands: this.monitorCommands,
    });
    await this.client.connect();
    // The URI's database if it names one, else jsonbench.
    this.db = new URL(this.uri).pathname.length > 1 ? this.client.db() : this.client.db(DEFAULT_DB);
    await this.db.command({ ping: 1 });
  }

  // The connect step kind's handle: the URI's database on the connection connect opened (the
  // driver's Db), on which a workload file makes its own collections, checks and steps.
  handle() { return this.db; }

  async serverInfo() {
    const info = await this.client.db('admin').command({ buildInfo: 1 });
    // SecantusDB (the lab's MongoDB stand-in) answers as the MongoDB version it emulates
    // (8.2.11 for 0.7.0b3) and adds `secantusVersion`.
    if (info.secantusVersion) return { product: 'SecantusDB', version: String(info.secantusVersion), stand_in: true, compat_version: String(info.version) };
    // FerretDB answers as MongoDB 7.0.x but adds its own fields:
    // `ferretdbVersion` (1.x) or a `ferretdb` document (2.x).
    const ferret = info.ferretdbVersion || (info.ferretdb && (info.ferretdb.version || 'unknown'));
    if (ferret) return { product: 'FerretDB', version: String(ferret), stand_in: true, compat_version: String(info.version) };
    return { product: 'MongoDB', version: String(info.version), stand_in: false };
  }

  // Who this connection is authenticated as: the lab's readiness check (wait-ready) passes only
  // on a server that authenticated the URI's user. The image's temporary start-up mongod runs
  // without --auth, where a connection is never authenticated (authenticatedUsers is empty).
  async authenticatedIdentity() {
    const status = await this.client.db('admin').command({ connectionStatus: 1 });
    const users = (status.authInfo && status.authInfo.authenticatedUsers) || [];
    if (users.length === 0) throw new Error('connected, but the connection is not authenticated (connectionStatus.authInfo.authenticatedUsers is empty)');
    return { user: users[0].user, database: users[0].db };
  }

  // The document collection for a key strategy and layout (a workload with collections of its own
  // makes them in its workload file: workloads/<workload>.js).
  async init(key, layout) {
    await this.db.collection(COLLECTION).drop().catch((err) => {
      if (err.codeName !== 'NamespaceNotFound' && err.code !== 26) throw err;
    });
    const options = layout === 'clustered'
      ? { clusteredIndex: { key: { _id: 1 }, unique: true, name: 'jsonbench_clustered' } }
      : {};
    await this.db.createCollection(COLLECTION, options);
    return `createCollection("${COLLECTION}", ${JSON.stringify(options)}) (key ${key}${key === 'sequence' ? ': driver ObjectId' : ''})`;
  }

  prepareInserts({ key, durability, keyFormat }) {
    this.collection = this.db.collection(COLLECTION);
    this.insertOptions = writeOptionsOf(durability);
    this.withKey = key !== 'sequence';
    this.keyFormat = keyFormat;
  }

  // Builds the document for `index` (generation is client work, kept out of
  // service time); send() hands it to the driver. keys: key generator
  // (keys.js), or null for `sequence`.
  build(gen, index, keys) {
    const doc = gen.object(index);
    if (this.withKey) {
      // _id first, so the stored document starts with its key like a
      // PostgreSQL row.
      return { _id: this.idOf(keys.buffer(index)), ...doc };
    }
    return doc; // the driver adds an ObjectId _id
  }

  // The key as the collection stores it (keyOf, the key format of prepareInserts).
  idOf(keyBytes) {
    return keyOf(keyBytes, this.keyFormat);
  }

  send(doc) {
    return this.collection.insertOne(doc, this.insertOptions);
  }

  refuseSequence(step) {
    return Promise.reject(new Error(`${step}: sequence keys (driver ObjectIds) cannot be chosen by key (refused)`));
  }

  // key: 16-byte Buffer. Resolves to 1; a read that finds nothing is an error.
  get(key) {
    if (!this.withKey) return this.refuseSequence('get');
    return this.collection.findOne({ _id: this.idOf(key) }, { raw: true }).then((doc) => {
      if (!doc) throw notFound('get', key);
      return 1;
    });
  }

  // path: ['n1', 'attr3'] (shape.js) -> $set of "n1.attr3"; value: a string.
  patch(key, path, value) {
    if (!this.withKey) return this.refuseSequence('patch');
    return this.collection.updateOne({ _id: this.idOf(key) }, { $set: { [path.join('.')]: value } }, this.insertOptions).then((r) => {
      if (r.matchedCount !== 1) throw notFound('patch', key);
      return 1;
    });
  }

  // Up to n documents from `key` on, in _id order, in ONE round trip: the
  // driver's first batch would hold 101 documents and fetch the rest with
  // getMore, so batchSize = limit = n and singleBatch (the server closes the
  // cursor: no getMore, no killCursors). bench-schema.js refuses a SCAN_MAX
  // whose documents would not fit one 16 MiB batch.
  scan(key, n) {
    if (!this.withKey) return this.refuseSequence('scan');
    return this.collection.find({ _id: { $gte: this.idOf(key) } }, {
      sort: { _id: 1 }, limit: n, batchSize: n, singleBatch: true, raw: true,
    }).toArray().then((docs) => {
      if (docs.length === 0) throw notFound('scan', key);
      return docs.length;
    });
  }

  // DIGEST=documents (client/src/document-digest.js): every document with its key as hex (null
  // for KEY=sequence: driver ObjectIds), _id taken out of the document.
  async* readBack(key) {
    const cursor = this.db.collection(COLLECTION).find({}, { batchSize: 1000 });
    for await (const doc of cursor) {
      const id = doc._id;
      delete doc._id;
      let hex = null;
      if (key !== 'sequence') hex = typeof id === 'string' ? id.replace(/-/g, '').toLowerCase() : Buffer.from(id.buffer).toString('hex');
      yield [hex, doc];
    }
  }

  isConnectionLost(err) {
    return err instanceof MongoNetworkError || err instanceof MongoServerSelectionError;
  }

  // The driver re-establishes connections itself; a ping tells whether it
  // has (and fails after serverSelectionTimeoutMS if it has not).
  async reconnect() {
    await this.db.command({ ping: 1 });
  }

  async count() {
    const documents = await this.db.collection(COLLECTION).countDocuments({});
    const stats = await this.db.command({ collStats: COLLECTION });
    return {
      documents,
      table_bytes: Number(stats.storageSize),
      index_bytes: Number(stats.totalIndexSize),
      total_bytes: Number(stats.storageSize) + Number(stats.totalIndexSize),
      note: 'collStats storageSize and totalIndexSize',
    };
  }

  // serverStatus counters (mongodb-stats.js; the stand-ins offer fewer), and
  // what each `run` session sends besides its operations, for analysis to
  // count as the lab's own work: ping, buildInfo (connect.js), endSessions at
  // close (a workload whose sessions send more says so in its workload file:
  // runSession, server-stats.js). The driver's handshakes and monitoring come
  // per connection on top.
  async serverStats(server, collections = []) {
    const stats = await readMongoStats(this.client, server || {}, { db: this.db.databaseName, collections });
    return { ...stats, run_session: { connections: 1, statements: 3, about: 'ping; buildInfo; endSessions' } };
  }

  async close() {
    const c = this.client;
    this.client = null;
    if (this.session) await this.session.endSession().catch(() => {});
    this.session = null;
    if (c) await c.close().catch(() => {});
  }
}

// The query phase's steps and whole-document loads (mongodb-queries.js).
Object.assign(MongoTarget.prototype, require('./mongodb-queries').methods);
// The transaction step kind (mongodb-txn.js); what a workload runs in it is its workload file's
// (workloads/<workload>.js).
Object.assign(MongoTarget.prototype, require('./mongodb-txn').methods);

module.exports = { MongoTarget, keyOf, writeOptionsOf };
