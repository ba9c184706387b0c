'use strict';
// WORKLOAD=insert on MongoDB: offered (this file's presence is the offer, client/src/databases.js
// offeredWorkloads). It needs nothing beyond the binding's step kinds: put (prepareInserts, build,
// send), sizes (count, flush) and, for DIGEST=documents, readBack.
module.exports = {};
