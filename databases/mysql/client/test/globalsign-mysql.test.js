'use strict';
// WORKLOAD=globalsign on a real MySQL (mysql-server.js: the official image when present, else the
// stand-in): the cases PostgreSQL and SecantusDB pass (client/test/integration/globalsign-cases.js),
// each expectation the generator's, so the three databases hold and return the same people.
const path = require('path');
const { CLIENT_DIR } = require('./deps');
const { startMysql, unavailable } = require('./mysql-server');
const mysql = require('../workloads/globalsign');

const { globalsignCases } = require(path.join(CLIENT_DIR, 'test/integration/globalsign-cases'));

if (unavailable()) {
  require('node:test').test('WORKLOAD=globalsign on MySQL', { skip: unavailable() }, () => {});
} else {
  globalsignCases({
    name: 'MySQL',
    start: startMysql,
    async rangeIds(server, band) {
      const rows = await server.query(mysql.rangeSql(band));
      return rows.map((r) => {
        const data = Array.isArray(r) ? r[0] : r.data;
        return (typeof data === 'string' ? JSON.parse(data) : data).id;
      });
    },
    dropIndex: (server) => server.query('DROP INDEX globalsign_age_band ON globalsign'),
  });
}
