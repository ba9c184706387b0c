'use strict';
// The ycsb workload against a real PostgreSQL (Debian's packages).
const { startPostgres } = require('../helpers/postgres-server');
const { ycsbCases } = require('./ycsb-cases');

const readAll = async (s) => (await s.query("select encode(uuid_send(id), 'hex') as id, data::text as data from jsonbench order by id"))
  .rows.map((r) => ({ id: r.id, doc: JSON.parse(r.data) }));
const scanIds = async (s, from, n) => (await s.query("select encode(uuid_send(id), 'hex') as id from jsonbench where id >= $1 order by id limit $2",
  [require('../../src/keys').uuidString(from), n])).rows.map((r) => r.id);

ycsbCases({ name: 'PostgreSQL', database: 'postgres', start: startPostgres, readAll, scanIds });
