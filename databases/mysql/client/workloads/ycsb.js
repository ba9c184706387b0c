'use strict';
// WORKLOAD=ycsb on MySQL: offered (this file's presence is the offer, client/src/databases.js
// offeredWorkloads). It needs nothing beyond the binding's step kinds: put, get, patch, scan
// (prepareInserts, build, send, get, patch, scan), sizes (count, flush) and readBack.
module.exports = {};
