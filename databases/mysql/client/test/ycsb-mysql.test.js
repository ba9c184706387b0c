'use strict';
// The ycsb workload's shared cases (client/test/integration/ycsb-cases.js: load, each step's
// effect, the run stage through the CLI) against a real MySQL (mysql-server.js: the official image
// when present, else the lab's stand-in, Debian's MySQL 9.7).
const test = require('node:test');
const path = require('path');
const { CLIENT_DIR } = require('./deps');
const { startMysql, unavailable, IMAGE } = require('./mysql-server');

const { ycsbCases } = require(path.join(CLIENT_DIR, 'test/integration/ycsb-cases'));

const readAll = async (s) => (await s.query('SELECT HEX(id), data FROM jsonbench ORDER BY id'))
  .map(([id, data]) => ({ id: id.toLowerCase(), doc: JSON.parse(data) }));
const scanIds = async (s, from, n) => (await s.query('SELECT HEX(id) FROM jsonbench WHERE id >= ? ORDER BY id LIMIT ?', [from, n]))
  .map(([id]) => id.toLowerCase());

// The shared cases run with DURABILITY=relaxed: the server runs relaxed too (a global setting in MySQL).
const skip = unavailable();
if (skip) test('ycsb shared cases on MySQL', { skip }, () => {});
else ycsbCases({ name: `MySQL (${IMAGE})`, database: 'mysql', start: () => startMysql({ durability: 'relaxed' }), readAll, scanIds });
