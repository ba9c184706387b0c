'use strict';
// WORKLOAD=tsbs on PostgreSQL: the TSBS devops events in one of the three ingest models
// (client/src/workloads/tsbs.js; their tables and statements: tsbs/models.js), run through
// the binding's session: init (the model's table and index), prepare (the model's one statement,
// prepared under the insert's name, so the session sends what the put step kind's does: the
// binding's prepareInserts with the model's statement), one step per model (one round trip per
// event), count (events held and sizes). Its query phases run the named query step kind with this
// database's forms of the tsbs query set (../queries/tsbs.js).
const models = require('./tsbs/models');

const notConnected = () => Promise.reject(new Error('not connected'));

// The model's table (and the index MODEL=native has from its creation: seriesIndexDdl). Returns the
// DDL run, with what the binding says of LAYOUT where it does not apply it (its layoutNote).
async function init(target, storage, { layout }) {
  const client = target.handle();
  await client.query(`drop table if exists ${models.TABLE}`);
  const sql = models.ddlOf(storage);
  await client.query(sql);
  const note = target.layoutNote(layout);
  const index = models.seriesIndexDdl(storage);
  if (index) await client.query(index);
  return { created: `${sql}${note ? ` (${note})` : ''}`, indexes: index ? [index] : [] };
}

// The model's statement, prepared (again after every reconnect) by the binding's put step kind.
// A native row has no key (the binding's get, patch and scan refuse it, as for KEY=sequence).
function prepare(target, storage) {
  return target.prepareInserts({
    key: storage.model === 'native' ? 'sequence' : 'uuidv7', durability: storage.durability, statement: models.statementOf(storage),
  });
}

// One step per model, one round trip each, on the binding's session (its handle; null while it
// reconnects): a keyed document (json: its text), a bucket upsert that appends the entry to the
// bucket `key` (created as insertJson by its first entry), a row of the time-series table.
const onSession = (target, values) => {
  const client = target.handle();
  return client ? models.execute(client, values) : notConnected();
};
const MODELS = {
  event: (target, key, doc, json) => onSession(target, models.eventValues(key, json)),
  bucket: (target, key, head, field, entry, { insertJson, entryJson }) => onSession(target, models.bucketValues(key, insertJson, entryJson)),
  native: (target, doc, series) => onSession(target, models.seriesValues(doc, series)),
};

// documents = the events held (bucket: summed over the buckets' arrays); rows = table rows.
async function count(target, storage) {
  const { rows } = await target.handle().query(models.countQuery(storage));
  const r = rows[0];
  return {
    documents: Number(r.documents),
    rows: Number(r.rows),
    model: storage.model,
    table_bytes: Number(r.table_bytes),
    index_bytes: Number(r.index_bytes),
    total_bytes: Number(r.total_bytes),
    note: `documents = events${storage.model === 'bucket' ? ' (sum of jsonb_array_length of the buckets\' events), rows = buckets' : ', rows = table rows'}; `
      + 'table_bytes = pg_table_size (heap + TOAST + free space and visibility maps)',
  };
}

// What client/src/workloads/tsbs*.js ask of this database (docs/contracts.md §2a, "Workload files").
module.exports = {
  init, prepare, models: MODELS, count,
};
