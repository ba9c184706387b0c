'use strict';
// PostgreSQL's own operation counters for the connected database, read by
// `server-stats` at the lab's window edges (pg_stat_database, WAL position).
//
// pg_stat_database's tuple counters include the catalog reads every new
// session makes and every TOAST chunk (a 10 kB document is several rows);
// pg_stat_user_tables (summed, TOAST and catalogs excluded) counts one row
// per document inserted, and its scans are exactly zero for the lab's
// inserts, so any read of the lab's data shows.
//
// Read as to_jsonb(row) so every column the server has is kept raw, whatever
// its version; the fields the lab reconciles are then picked by name and a
// missing one (e.g. `sessions` before PostgreSQL 14) is null with the reason.
const COUNTERS = [
  'xact_commit', 'xact_rollback', 'tup_inserted', 'tup_returned', 'tup_fetched', 'tup_updated',
  'tup_deleted', 'numbackends', 'sessions', 'blks_read', 'blks_hit',
];

const STATS_SQL = `select to_jsonb(d) as row,
       pg_current_wal_lsn()::text as wal_lsn,
       pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::text as wal_bytes,
       current_setting('server_version_num')::int as version_num,
       current_setting('server_version') as version,
       extract(epoch from clock_timestamp())::float8 as server_time,
       (select jsonb_build_object('seq_scan', coalesce(sum(seq_scan), 0), 'seq_tup_read', coalesce(sum(seq_tup_read), 0),
                                  'idx_scan', coalesce(sum(idx_scan), 0), 'idx_tup_fetch', coalesce(sum(idx_tup_fetch), 0),
                                  'n_tup_ins', coalesce(sum(n_tup_ins), 0), 'n_tup_upd', coalesce(sum(n_tup_upd), 0),
                                  'n_tup_del', coalesce(sum(n_tup_del), 0))
          from pg_stat_user_tables) as user_tables,
       (select coalesce(jsonb_agg(jsonb_build_object('application_name', a.application_name, 'state', a.state)), '[]')
          from pg_stat_activity a
         where a.datname = current_database() and a.backend_type = 'client backend'
           and a.pid <> pg_backend_pid()) as other_sessions
  from pg_stat_database d where d.datname = current_database()`;

// Statements the reading itself sends, counted by analysis as lab work:
// `show server_version` (connect.js) and the select above, one connection.
const READING = { connections: 1, statements: 2, about: 'show server_version; select from pg_stat_database' };

async function readPostgresStats(client) {
  const { rows } = await client.query(STATS_SQL);
  const r = rows[0];
  if (!r) throw new Error('pg_stat_database has no row for current_database()');
  const counters = {};
  const unavailable = {};
  for (const name of COUNTERS) {
    if (r.row[name] === undefined) {
      counters[name] = null;
      unavailable[name] = `pg_stat_database has no column ${name} in PostgreSQL ${r.version_num}`
        + (name === 'sessions' ? ' (added in 14)' : '');
    } else {
      counters[name] = r.row[name] === null ? null : Number(r.row[name]);
    }
  }
  for (const [k, v] of Object.entries(r.user_tables)) counters[`user_${k}`] = Number(v);
  // Other client sessions on this database at the moment of reading (numbackends also counts
  // autovacuum workers, which are the server's own upkeep).
  counters.other_client_backends = r.other_sessions.length;
  counters.wal_bytes = Number(r.wal_bytes); // pg_current_wal_lsn() as bytes since 0/0
  return {
    // The server's own version string (server_version, e.g. "15.14 (Debian 15.14-0+deb12u1)").
    server: { name: 'postgres', version: r.version, product: 'PostgreSQL', stand_in: false },
    counters, unavailable, server_time: r.server_time,
    raw: { pg_stat_database: r.row, user_tables: r.user_tables, other_sessions: r.other_sessions, wal_lsn: r.wal_lsn, server_version_num: r.version_num },
    reading: READING,
  };
}

module.exports = { readPostgresStats, COUNTERS, READING };
