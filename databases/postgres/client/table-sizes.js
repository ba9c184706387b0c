'use strict';
// A table's row count and sizes as every PostgreSQL workload's count reports them, in one statement:
// pg_table_size (heap + TOAST), pg_indexes_size, pg_total_relation_size.
async function tableSizes(client, table, note) {
  const { rows } = await client.query(`select count(*)::bigint as n, pg_table_size('${table}') as t, pg_indexes_size('${table}') as i,
    pg_total_relation_size('${table}') as a from ${table}`);
  const r = rows[0];
  return {
    documents: Number(r.n), table_bytes: Number(r.t), index_bytes: Number(r.i), total_bytes: Number(r.a), note,
  };
}

module.exports = { tableSizes };
