'use strict';
// The ycsb workload against SecantusDB 0.7.0b3, the MongoDB
// stand-in: these show the client speaks the protocol correctly; not MongoDB results.
const { Binary } = require('mongodb');
const { startSecantus } = require('../helpers/secantus-server');
const { ycsbCases } = require('./ycsb-cases');

const strip = ({ _id, ...doc }) => ({ id: Buffer.from(_id.buffer).toString('hex'), doc });
const readAll = (s) => s.withDb(async (db) => (await db.collection('jsonbench').find({}).sort({ _id: 1 }).toArray()).map(strip));
const scanIds = (s, from, n) => s.withDb(async (db) => (await db.collection('jsonbench')
  .find({ _id: { $gte: new Binary(from, 4) } }).sort({ _id: 1 }).limit(n).toArray()).map((d) => strip(d).id));

ycsbCases({ name: 'SecantusDB (MongoDB stand-in)', database: 'mongodb', start: startSecantus, readAll, scanIds });
