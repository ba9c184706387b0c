'use strict';
// WORKLOAD=events on MySQL: offered (this file's presence is the offer, client/src/databases.js
// offeredWorkloads). Its load puts whole documents (the binding's putDocument) and its query phases
// run the named query step kind (createIndexes, query, explain) with this database's forms of the
// events query set (../queries/events.js); nothing else of its own.
module.exports = {};
