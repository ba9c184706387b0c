'use strict';
// PostgreSQL's own operation counters for the connected database, read by
// `server-stats` at the lab's window edges (pg_stat_database, WAL position).
//
// pg_stat_database's tuple counters include the catalog reads every new
// session makes and every TOAST chunk (a 10 kB document is several rows);
// pg_stat_user_tables (summed, TOAST and catalogs excluded) counts one row
// per document inserted, and its scans are exactly zero for the lab's
// inserts, so any read of the lab's data shows. Its autovacuum_count and
// autoanalyze_count say when the server's own maintenance ran on the lab's
// tables: an ANALYZE evaluates an expression index on every sampled row,
// reading each document whole from TOAST (rows pg_stat_database counts).
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
       current_setting('block_size')::int as block_size,
       (select jsonb_build_object('seq_scan', coalesce(sum(seq_scan), 0), 'seq_tup_read', coalesce(sum(seq_tup_read), 0),
                                  'idx_scan', coalesce(sum(idx_scan), 0), 'idx_tup_fetch', coalesce(sum(idx_tup_fetch), 0),
                                  'n_tup_ins', coalesce(sum(n_tup_ins), 0), 'n_tup_upd', coalesce(sum(n_tup_upd), 0),
                                  'n_tup_del', coalesce(sum(n_tup_del), 0),
                                  'autovacuum_count', coalesce(sum(autovacuum_count), 0),
                                  'autoanalyze_count', coalesce(sum(autoanalyze_count), 0))
          from pg_stat_user_tables) as user_tables,
       (select coalesce(jsonb_object_agg(t.name, jsonb_build_object('n_tup_ins', s.n_tup_ins, 'n_tup_upd', s.n_tup_upd,
                                                                    'n_tup_del', s.n_tup_del)), '{}')
          from unnest($1::text[]) t(name) join pg_stat_user_tables s on s.relid = to_regclass(t.name)) as tables,
       (select coalesce(jsonb_agg(jsonb_build_object('application_name', a.application_name, 'state', a.state)), '[]')
          from pg_stat_activity a
         where a.datname = current_database() and a.backend_type = 'client backend'
           and a.pid <> pg_backend_pid()) as other_sessions
  from pg_stat_database d where d.datname = current_database()`;

// The workload's tables (server-stats' WORKLOAD: booking's five, oltp's sbtest) are also read one by
// one: `table_<name>_n_tup_ins|upd|del` (a table that is not there: null with the reason), so a
// workload's rows can be reconciled per table (analysis: databases/postgres/analysis.py).
const TABLE_COUNTERS = ['n_tup_ins', 'n_tup_upd', 'n_tup_del'];

// Statements the reading itself sends, counted by analysis as lab work: `show server_version`
// (connect.js), the select above (this database; it gives the server's version number) and the
// cluster's select (readClusterStats, written for that version), one connection, on every version.
const READING = { connections: 1, statements: 3, about: 'show server_version; select from pg_stat_database (this database); select from pg_stat_database (the cluster)' };

// The whole cluster, not only the lab's database: work in another database of the same server
// (a session on `postgres` running generate_series, a CHECKPOINT) spends the same CPU, WAL and
// buffers. Summed over pg_stat_database's rows of the other databases (the row with no datname,
// shared catalogs, which every connection reads, is left out), with the checkpointer's counters
// and the settings that bound how many checkpoints the WAL itself may force. PostgreSQL 17 moved
// the checkpoint counters out of pg_stat_bgwriter into a view of their own, pg_stat_checkpointer
// (checkpoints_req became num_requested), which no earlier version has: the select names the view
// its server has, so the reading is one statement on both.
const CHECKPOINTER_FROM = 170000;

// The cache as the server holds it (the independent check of CACHE_MB / .env's PG_SHARED_BUFFERS,
// analysis/figures/memory.py): pg_settings' shared_buffers is a count of buffers whose unit is the
// block size ('8kB' when block_size is 8192), so its bytes are setting x block_size, exactly. Read
// in the cluster's select: the reading sends no statement for it (READING is unchanged).
const CACHE_SELECT = `(select jsonb_object_agg(name, jsonb_build_object('setting', setting, 'unit', unit)) from pg_settings
         where name in ('shared_buffers', 'block_size')) as cache_settings`;

// {bytes, setting, source, reason} of the cache from pg_settings' two rows (null bytes, with the
// reason, when a row is missing or the unit is not the block size: nothing is converted by guess).
function cacheOf(rows) {
  const sb = rows && rows.shared_buffers;
  const bs = rows && rows.block_size;
  const out = { bytes: null, setting: 'shared_buffers', source: 'pg_settings: shared_buffers (buffers) x block_size', reason: null, parts: { shared_buffers: sb || null, block_size: bs || null } };
  if (!sb || !bs) {
    out.reason = `pg_settings has no ${sb ? 'block_size' : 'shared_buffers'} row`;
    return out;
  }
  const block = Number(bs.setting);
  if (sb.unit !== `${block / 1024}kB`) {
    out.reason = `pg_settings gives shared_buffers in ${sb.unit}, not in blocks of block_size ${block} B`;
    return out;
  }
  out.bytes = Number(sb.setting) * block;
  out.source = `pg_settings: shared_buffers ${sb.setting} buffers x block_size ${block} B`;
  return out;
}
function clusterSql(versionNum) {
  const checkpointer = versionNum >= CHECKPOINTER_FROM
    ? '(select to_jsonb(c) from pg_stat_checkpointer c) as checkpointer,'
    : '';
  return `select current_setting('server_version_num')::int as version_num,
       (select coalesce(jsonb_agg(to_jsonb(d)), '[]') from pg_stat_database d
         where d.datname is not null and d.datname <> current_database()) as other_databases,
       (select to_jsonb(b) from pg_stat_bgwriter b) as bgwriter, ${checkpointer}
       (select count(*) from pg_stat_activity a
         where a.backend_type = 'client backend' and a.pid <> pg_backend_pid()
           and a.datname is distinct from current_database())::int as other_database_backends,
       (select jsonb_object_agg(name, jsonb_build_object('setting', setting, 'unit', unit)) from pg_settings
         where name in ('max_wal_size', 'checkpoint_completion_target')) as settings,
       ${CACHE_SELECT}`;
}
const CLUSTER_SUMS = { xact_commit: 'xacts', xact_rollback: 'xacts', tup_returned: 'rows_read', tup_fetched: 'rows_read', sessions: 'sessions', active_time: 'active_ms' };
const UNIT_BYTES = { B: 1, kB: 1024, MB: 1024 ** 2, GB: 1024 ** 3 };

// versionNum: the server's server_version_num, as the database's select read it.
async function readClusterStats(client, versionNum) {
  const { rows: [r] } = await client.query(clusterSql(versionNum));
  const counters = {};
  const unavailable = {};
  for (const [col, name] of Object.entries(CLUSTER_SUMS)) {
    const key = `other_databases_${name}`;
    if (r.other_databases.some((d) => d[col] === undefined)) {
      counters[key] = null;
      unavailable[key] = `pg_stat_database has no column ${col} in PostgreSQL ${r.version_num}`;
    } else if (counters[key] !== null) {
      counters[key] = (counters[key] || 0) + r.other_databases.reduce((n, d) => n + Number(d[col] || 0), 0);
    }
  }
  counters.other_database_backends = r.other_database_backends;
  const checkpoints = r.checkpointer ? r.checkpointer.num_requested : r.bgwriter && r.bgwriter.checkpoints_req;
  counters.checkpoints_requested = checkpoints === undefined || checkpoints === null ? null : Number(checkpoints);
  if (counters.checkpoints_requested === null) unavailable.checkpoints_requested = `no requested-checkpoint counter in PostgreSQL ${r.version_num}`;
  const wal = r.settings.max_wal_size;
  const cct = r.settings.checkpoint_completion_target;
  counters.max_wal_size_bytes = wal && UNIT_BYTES[wal.unit] ? Number(wal.setting) * UNIT_BYTES[wal.unit] : null;
  counters.checkpoint_completion_target = cct ? Number(cct.setting) : null;
  const raw = { other_databases: r.other_databases, bgwriter: r.bgwriter, settings: r.settings };
  if (r.checkpointer) raw.checkpointer = r.checkpointer;
  return { counters, unavailable, raw, cache: cacheOf(r.cache_settings) };
}

// Read I/O (analysis/figures/read_io.py with databases/postgres/analysis.py READ_IO): blks_read
// (COUNTERS above) counts the blocks a backend did not find in shared_buffers and asked the kernel
// for: a read the OS page cache may serve, so not necessarily storage. block_size (fixed when the
// server was built, 8192 by default) turns it into bytes.
function readIoCounters(r) {
  return { block_size_bytes: Number(r.block_size) };
}

async function readPostgresStats(client, tables = []) {
  const { rows } = await client.query(STATS_SQL, [tables]);
  const r = rows[0];
  if (!r) throw new Error('pg_stat_database has no row for current_database()');
  const cluster = await readClusterStats(client, r.version_num);
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
  for (const t of tables) {
    for (const c of TABLE_COUNTERS) {
      const v = r.tables[t] ? r.tables[t][c] : undefined;
      counters[`table_${t}_${c}`] = v === undefined || v === null ? null : Number(v);
      if (counters[`table_${t}_${c}`] === null) unavailable[`table_${t}_${c}`] = `no table ${t} in pg_stat_user_tables`;
    }
  }
  // Other client sessions on this database at the moment of reading (numbackends also counts
  // autovacuum workers, which are the server's own upkeep).
  counters.other_client_backends = r.other_sessions.length;
  counters.wal_bytes = Number(r.wal_bytes); // pg_current_wal_lsn() as bytes since 0/0
  Object.assign(counters, readIoCounters(r));
  for (const [k, v] of Object.entries(cluster.counters)) counters[`cluster_${k}`] = v;
  for (const [k, v] of Object.entries(cluster.unavailable)) unavailable[`cluster_${k}`] = v;
  return {
    // The server's own version string (server_version, e.g. "15.14 (Debian 15.14-0+deb12u1)").
    server: { name: 'postgres', version: r.version, product: 'PostgreSQL', stand_in: false },
    counters, unavailable, server_time: r.server_time,
    raw: { pg_stat_database: r.row, user_tables: r.user_tables, tables: r.tables, other_sessions: r.other_sessions, wal_lsn: r.wal_lsn, server_version_num: r.version_num, cluster: cluster.raw },
    reading: READING,
    cache: cluster.cache,
  };
}

module.exports = {
  readPostgresStats, readClusterStats, COUNTERS, TABLE_COUNTERS, READING, cacheOf,
};
