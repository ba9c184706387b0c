'use strict';
// MongoDB's read I/O counter (databases/mongodb/client/mongodb-stats.js readIoCounters): serverStatus
// wiredTiger.cache 'bytes read into cache' as wt_cache_bytes_read; a server without the section or
// the field (SecantusDB, the stand-in: client/test/integration/server-stats.test.js reads the real
// one) null with the reason. No mongod runs here: the section as MongoDB 8.0's serverStatus holds it.
const test = require('node:test');
const assert = require('node:assert/strict');
const { fromStatus, readIoCounters } = require('../../../databases/mongodb/client/mongodb-stats');

test('wiredTiger.cache bytes read into cache -> wt_cache_bytes_read', () => {
  const status = { wiredTiger: { cache: { 'bytes read into cache': 123456789, 'bytes written from cache': 5 } } };
  assert.deepEqual(readIoCounters(status, 'serverStatus'), { counters: { wt_cache_bytes_read: 123456789 }, unavailable: {} });
  const { counters, unavailable } = fromStatus(status);
  assert.equal(counters.wt_cache_bytes_read, 123456789);
  assert.equal(unavailable.wt_cache_bytes_read, undefined);
});

test('no section, or no field: null with the reason', () => {
  assert.deepEqual(readIoCounters({}, 'SecantusDB serverStatus').unavailable,
    { wt_cache_bytes_read: 'SecantusDB serverStatus has no wiredTiger.cache section' });
  const r = readIoCounters({ wiredTiger: { cache: {} } }, 'serverStatus');
  assert.equal(r.counters.wt_cache_bytes_read, null);
  assert.equal(r.unavailable.wt_cache_bytes_read, "serverStatus wiredTiger.cache has no 'bytes read into cache'");
});
