'use strict';
// WORKLOAD=globalsign on a real PostgreSQL and on SecantusDB (the MongoDB stand-in: protocol
// behaviour and its planner's answer, not MongoDB results): globalsign-cases.js.
const { startPostgres } = require('../helpers/postgres-server');
const { startSecantus } = require('../helpers/secantus-server');
const { globalsignCases } = require('./globalsign-cases');
const pg = require('../../../databases/postgres/client/workloads/globalsign');
const mongo = require('../../../databases/mongodb/client/workloads/globalsign');

globalsignCases({
  name: 'PostgreSQL',
  start: startPostgres,
  async rangeIds(server, band) {
    const { rows } = await server.query(pg.rangeStatement(band).text);
    return rows.map((r) => r.data.id);
  },
  dropIndex: (server) => server.query('drop index globalsign_age_band'),
});

globalsignCases({
  name: 'SecantusDB',
  start: startSecantus,
  rangeIds: (server, band) => server.withDb(async (db) => (await db.collection('globalsign').find(mongo.bandFilter(band)).toArray()).map((d) => d._id)),
  dropIndex: (server) => server.withDb((db) => db.collection('globalsign').dropIndex('globalsign_age_band')),
});
