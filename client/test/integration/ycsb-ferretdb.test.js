'use strict';
// The ycsb workload against FerretDB v1.24 (SQLite handler), the MongoDB-protocol
// stand-in: these show the client speaks the protocol correctly; not MongoDB results.
const { Binary } = require('mongodb');
const { startFerretDB } = require('../helpers/ferretdb-server');
const { ycsbCases } = require('./ycsb-cases');

const strip = ({ _id, ...doc }) => ({ id: Buffer.from(_id.buffer).toString('hex'), doc });
const readAll = (s) => s.withDb(async (db) => (await db.collection('jsonbench').find({}).sort({ _id: 1 }).toArray()).map(strip));
const scanIds = (s, from, n) => s.withDb(async (db) => (await db.collection('jsonbench')
  .find({ _id: { $gte: new Binary(from, 4) } }).sort({ _id: 1 }).limit(n).toArray()).map((d) => strip(d).id));

ycsbCases({ name: 'FerretDB (MongoDB stand-in)', database: 'mongodb', start: startFerretDB, readAll, scanIds });
