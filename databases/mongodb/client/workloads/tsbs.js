'use strict';
// WORKLOAD=tsbs on MongoDB: offered (this file's presence is the offer, client/src/databases.js
// offeredWorkloads). Its query phases run the named query step kind with this database's forms of
// the tsbs query set (../queries/tsbs.js). The ingest models' steps (prepareModel, insertDocument,
// upsertAppend, insertSeries, modelIndexes, count(storage)) are still the binding's methods: not
// yet moved here (issue 26).
module.exports = {};
