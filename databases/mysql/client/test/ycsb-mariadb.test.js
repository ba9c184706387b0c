'use strict';
// The ycsb workload's shared cases (client/test/integration/ycsb-cases.js: load, each step's
// effect, the run stage through the CLI) against a real MariaDB 10.11, the MySQL stand-in's server.
const path = require('path');
const { CLIENT_DIR } = require('../deps');
const { startMariadb } = require('./mariadb-server');

const { ycsbCases } = require(path.join(CLIENT_DIR, 'test/integration/ycsb-cases'));

const readAll = async (s) => (await s.query('SELECT HEX(id), data FROM jsonbench ORDER BY id'))
  .map(([id, data]) => ({ id: id.toLowerCase(), doc: JSON.parse(data) }));
const scanIds = async (s, from, n) => (await s.query('SELECT HEX(id) FROM jsonbench WHERE id >= ? ORDER BY id LIMIT ?', [from, n]))
  .map(([id]) => id.toLowerCase());

// The shared cases run with DURABILITY=relaxed: the server runs relaxed too (a global setting in MySQL).
ycsbCases({ name: 'MariaDB (MySQL stand-in)', database: 'mysql', start: () => startMariadb({ durability: 'relaxed' }), readAll, scanIds });
