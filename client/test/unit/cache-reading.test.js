'use strict';
// The cache readings' arithmetic on the servers' own shapes where no such server runs here (mongod's
// serverStatus: the stand-in has no wiredTiger section), and what is refused rather than converted by
// guess. The readings against real servers: client/test/integration/server-stats.test.js (PostgreSQL,
// SecantusDB), databases/mysql/client/test/mysql-stats.test.js (MySQL).
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');

const DBS = path.resolve(__dirname, '../../../databases');
// eslint-disable-next-line import/no-dynamic-require
const mongo = require(path.join(DBS, 'mongodb/client/mongodb-stats'));
// eslint-disable-next-line import/no-dynamic-require
const pg = require(path.join(DBS, 'postgres/client/postgres-stats'));

test('mongod: wiredTiger.cache "maximum bytes configured" is the cache, in bytes', () => {
  const c = mongo.cacheOf({ wiredTiger: { cache: { 'maximum bytes configured': 402653184 } } });
  assert.deepEqual([c.bytes, c.setting, c.reason], [402653184, 'wiredTigerCacheSizeGB', null]);
  assert.equal(mongo.cacheOf({ wiredTiger: { log: {} } }).reason, 'serverStatus has no wiredTiger.cache section');
});

test('PostgreSQL: shared_buffers counted in blocks other than block_size is refused, not converted', () => {
  const c = pg.cacheOf({ shared_buffers: { setting: '16384', unit: '8kB' }, block_size: { setting: '16384', unit: null } });
  assert.equal(c.bytes, null);
  assert.equal(c.reason, 'pg_settings gives shared_buffers in 8kB, not in blocks of block_size 16384 B');
  assert.equal(pg.cacheOf({ shared_buffers: { setting: '16384', unit: '16kB' }, block_size: { setting: '16384', unit: null } }).bytes,
    16384 * 16384);
});
