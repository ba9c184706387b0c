'use strict';
// A table's row count and sizes as every MySQL workload's count reports them. InnoDB caches
// information_schema.TABLES statistics for information_schema_stats_expiry seconds (default 86400):
// the caller sets it to 0 for its session first (MariaDB has no such cache and no such variable).
async function tableSizes(conn, table, note) {
  const [[[documents]]] = await conn.query(`SELECT COUNT(*) FROM ${table}`);
  const [[[data, index]]] = await conn.query(
    `SELECT DATA_LENGTH, INDEX_LENGTH FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = '${table}'`,
  );
  return {
    documents: Number(documents),
    table_bytes: Number(data),
    index_bytes: Number(index),
    total_bytes: Number(data) + Number(index),
    note,
  };
}

module.exports = { tableSizes };
