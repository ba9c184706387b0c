'use strict';
// `server-stats` against a real PostgreSQL and SecantusDB 0.7.0b3 (the MongoDB
// stand-in): the servers' own counters move by exactly the lab's work for N
// inserts, and a foreign read of the table shows up.
const test = require('node:test');
const assert = require('node:assert/strict');
const { startPostgres } = require('../helpers/postgres-server');
const { startSecantus } = require('../helpers/secantus-server');
const { MongoClient } = require('mongodb');
const { runCli } = require('../helpers/run-cli');

const N = 60;
const stats = async (uri) => {
  const r = await runCli(['server-stats', '--uri', uri]);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
};
const delta = (a, b, key) => b.counters[key] - a.counters[key];
const cmdDelta = (a, b, name) => (b.commands[name] || 0) - (a.commands[name] || 0);
const insert = async (uri) => {
  const r = await runCli(['run', '--uri', uri, '--key', 'uuidv7', '--layout', 'heap', '--fields', '3',
    '--field-bytes', '50', '--rate', '500', '--docs', String(N)], { timeoutMs: 30000 });
  assert.equal(r.code, 0, r.stderr);
};

test.describe('server-stats: PostgreSQL', () => {
  let pg;
  // shared_buffers as the lab sets it (compose.yaml: -c shared_buffers=${PG_SHARED_BUFFERS}), at a
  // size that is neither the default (128MB) nor the lab's (.env 4GB): the reading must give it back
  test.before(async () => { pg = await startPostgres({ args: ['-c', 'shared_buffers=384MB'] }); });
  test.after(async () => { if (pg) await pg.cleanup(); });

  test('the cache as the server holds it: shared_buffers=384MB is 402653184 bytes, in no statement of its own', async () => {
    const s = await stats(pg.uri);
    assert.deepEqual({ bytes: s.cache.bytes, setting: s.cache.setting, reason: s.cache.reason },
      { bytes: 384 * 1024 * 1024, setting: 'shared_buffers', reason: null });
    // 49152 buffers of 8 kB: pg_settings' count times the block size, as the source says
    assert.equal(s.cache.source, 'pg_settings: shared_buffers 49152 buffers x block_size 8192 B');
    assert.deepEqual(s.cache.parts.shared_buffers, { setting: '49152', unit: '8kB' });
    assert.equal(s.reading.statements, 3);
  });

  test('counters and WAL position, each named; what the reading and a run session send', async () => {
    const s = await stats(pg.uri);
    assert.equal(s.database, 'postgres');
    assert.equal(s.server.product, 'PostgreSQL');
    assert.equal(s.server.name, 'postgres');
    assert.equal(s.server.version, (await pg.query('show server_version')).rows[0].server_version);
    for (const k of ['xact_commit', 'xact_rollback', 'tup_inserted', 'tup_returned', 'tup_fetched', 'tup_updated',
      'tup_deleted', 'numbackends', 'sessions', 'blks_read', 'blks_hit', 'wal_bytes', 'user_seq_tup_read']) {
      assert.equal(typeof s.counters[k], 'number', k);
    }
    assert.equal(s.counters.numbackends, 1, 'the reading is the only session');
    assert.equal(s.counters.other_client_backends, 0);
    assert.match(s.raw.wal_lsn, /^[0-9A-F]+\/[0-9A-F]+$/);
    assert.deepEqual(s.unavailable, {});
    assert.deepEqual([s.reading.connections, s.reading.statements, s.run_session.statements], [1, 3, 3]);
  });

  test('N inserts: tup_inserted +N, transactions = N + the sessions\' own, no user-table read; a scan shows', async () => {
    await runCli(['init', '--uri', pg.uri, '--key', 'uuidv7', '--layout', 'heap']);
    const a = await stats(pg.uri);
    await insert(pg.uri);
    const b = await stats(pg.uri);
    assert.equal(delta(a, b, 'tup_inserted'), N); // 3 x 50 B documents: no TOAST
    assert.equal(delta(a, b, 'user_n_tup_ins'), N);
    // N inserts + the run session (start-up transaction, show, set, prepare) + what of the two
    // readings (start-up, show, cluster select, select each) falls between their snapshots: 4 in
    // all, give or take one that the statistics flush (at most once a second per session) has not
    // yet published.
    const xacts = delta(a, b, 'xact_commit');
    assert.ok(xacts >= N + 7 && xacts <= N + 9, `xact_commit +${xacts}`);
    assert.equal(delta(a, b, 'xact_rollback'), 0);
    assert.ok([2, 3].includes(delta(a, b, 'sessions')), `sessions +${delta(a, b, 'sessions')}`);
    for (const k of ['user_seq_scan', 'user_seq_tup_read', 'user_idx_scan', 'user_idx_tup_fetch']) assert.equal(delta(a, b, k), 0, k);
    // the server's own maintenance on the lab's tables: none in a second (autovacuum's naptime is 60 s)
    for (const k of ['user_autovacuum_count', 'user_autoanalyze_count']) assert.equal(delta(a, b, k), 0, k);
    assert.ok(delta(a, b, 'wal_bytes') > N * 150, `WAL +${delta(a, b, 'wal_bytes')} B`);

    // a foreign full-table read, its session still connected at the reading
    const { Client } = require('pg');
    const other = new Client({ connectionString: pg.uri, application_name: 'monitoring' });
    await other.connect();
    try {
      await other.query('select * from jsonbench');
      const during = await stats(pg.uri);
      assert.equal(during.counters.other_client_backends, 1);
      assert.deepEqual(during.raw.other_sessions.map((x) => x.application_name), ['monitoring']);
    } finally { await other.end(); }
    // A session publishes its counters at most once a second while it lives (and when idle only
    // after 10 s), always when it ends: poll briefly for the ended session's flush.
    let c;
    for (let i = 0; i < 20; i++) {
      c = await stats(pg.uri);
      if (delta(b, c, 'user_seq_scan') > 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(c.counters.other_client_backends, 0);
    assert.equal(delta(b, c, 'user_seq_scan'), 1);
    assert.equal(delta(b, c, 'user_seq_tup_read'), N);
    assert.ok(delta(b, c, 'tup_returned') >= N);
  });
});

test.describe('server-stats: PostgreSQL, the whole cluster', () => {
  let pg;
  test.before(async () => {
    pg = await startPostgres();
    await pg.query('create database jsonbench');
  });
  test.after(async () => { if (pg) await pg.cleanup(); });

  test('foreign work on another database (generate_series, CHECKPOINT) shows in the cluster counters', async () => {
    const lab = pg.uri.replace(/\/postgres$/, '/jsonbench');
    const a = await stats(lab);
    for (const k of ['other_databases_xacts', 'other_databases_rows_read', 'other_databases_sessions',
      'other_databases_active_ms', 'other_database_backends', 'checkpoints_requested', 'max_wal_size_bytes']) {
      assert.equal(typeof a.counters[`cluster_${k}`], 'number', k);
    }
    assert.equal(a.counters.cluster_other_database_backends, 0);
    const { Client } = require('pg');
    const other = new Client({ connectionString: pg.uri, application_name: 'foreign' }); // database postgres
    await other.connect();
    try {
      await other.query('select count(*) from generate_series(1, 3000000)');
      const during = await stats(lab);
      assert.equal(during.counters.cluster_other_database_backends, 1, 'the foreign session, on database postgres');
      assert.equal(during.counters.other_client_backends, 0, 'the lab database alone sees nothing');
      await other.query('checkpoint');
    } finally { await other.end(); }
    let b;
    for (let i = 0; i < 20; i++) { // an ended session's counters are flushed as it ends: poll briefly
      b = await stats(lab);
      if (delta(a, b, 'cluster_other_databases_active_ms') > 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(delta(a, b, 'cluster_other_databases_sessions'), 1);
    assert.ok(delta(a, b, 'cluster_other_databases_active_ms') > 50, `active ${delta(a, b, 'cluster_other_databases_active_ms')} ms`);
    assert.equal(delta(a, b, 'cluster_checkpoints_requested'), 1);
    assert.equal(delta(a, b, 'user_seq_scan'), 0, 'the lab database saw none of it');
  });
});

test.describe('server-stats: SecantusDB (MongoDB stand-in)', () => {
  let fd;
  test.before(async () => { fd = await startSecantus(); });
  test.after(async () => { if (fd) await fd.cleanup(); });

  test('which server and version: secantus, the MongoDB version it emulates, its own release', async () => {
    const s = await stats(fd.uri);
    assert.deepEqual(s.server, { name: 'secantus', version: '8.2.11', stand_in_version: '0.7.0b3', product: 'SecantusDB', stand_in: true });
  });

  test('what SecantusDB 0.7.0b3 offers: opcounters and connections; every other counter null with the reason', async () => {
    const s = await stats(fd.uri);
    for (const k of ['opcounters_insert', 'opcounters_query', 'opcounters_command', 'connections_current', 'connections_total_created']) {
      assert.equal(typeof s.counters[k], 'number', k);
    }
    assert.equal(s.counters.wt_log_bytes_written, null);
    assert.equal(s.unavailable.wt_log_bytes_written, 'SecantusDB serverStatus has no wiredTiger.log section');
    // read I/O (runs[].read_io): WiredTiger's bytes read into cache, which SecantusDB has not
    assert.equal(s.counters.wt_cache_bytes_read, null);
    assert.equal(s.unavailable.wt_cache_bytes_read, 'SecantusDB serverStatus has no wiredTiger.cache section');
    assert.equal(s.unavailable.commands, 'SecantusDB serverStatus has no metrics.commands section');
    assert.equal(s.unavailable.tcmalloc, 'SecantusDB serverStatus has no tcmalloc section');
    for (const k of ['txn_total_started', 'txn_total_committed', 'txn_total_aborted', 'txn_current_open']) {
      assert.equal(s.counters[k], null, k);
      assert.equal(s.unavailable[k], 'SecantusDB serverStatus has no transactions section', k);
    }
    assert.deepEqual(s.commands, {});
    assert.equal(s.raw.tcmalloc, null);
    assert.doesNotMatch(JSON.stringify(s), /FerretDB/);
  });

  test('its cache: SecantusDB reports none (no wiredTiger section), so the reading is null with that reason', async () => {
    const s = await stats(fd.uri);
    assert.deepEqual(s.cache, {
      bytes: null, setting: 'wiredTigerCacheSizeGB', source: 'serverStatus wiredTiger.cache["maximum bytes configured"]',
      reason: 'SecantusDB serverStatus has no wiredTiger section',
    });
  });

  test('N inserts: opcounters.insert +N, no query, update or delete; a find counts one query', async () => {
    await runCli(['init', '--uri', fd.uri, '--key', 'uuidv7', '--layout', 'heap']);
    const a = await stats(fd.uri);
    await insert(fd.uri);
    const b = await stats(fd.uri);
    assert.equal(delta(a, b, 'opcounters_insert'), N);
    for (const k of ['opcounters_query', 'opcounters_update', 'opcounters_delete', 'opcounters_getmore']) assert.equal(delta(a, b, k), 0, k);
    // SecantusDB counts commands, not documents: one insertMany of 5 documents is +1 (mongod: +5).
    await fd.withDb((db) => db.collection('jsonbench').insertMany([1, 2, 3, 4, 5].map((i) => ({ i }))));
    const c = await stats(fd.uri);
    assert.equal(delta(b, c, 'opcounters_insert'), 1, 'an insertMany of 5 counts 1 on SecantusDB');
    await fd.withDb((db) => db.collection('jsonbench').find({}).toArray());
    const d = await stats(fd.uri);
    assert.equal(delta(c, d, 'opcounters_query'), 1);
  });
});

// A replica set runs multi-document transactions on the stand-in, and still its serverStatus has no
// transactions section: the counters stay null with the reason after a commit and an abort.
test('server-stats: SecantusDB as a replica set runs transactions but counts none of them', async (t) => {
  const rs = await startSecantus({ replset: true });
  t.after(() => rs.cleanup());
  const a = await stats(rs.uri);
  const client = new MongoClient(rs.uri);
  try {
    const coll = client.db('jsonbench').collection('txn_probe');
    await coll.insertOne({ _id: 0 });
    const session = client.startSession();
    try {
      session.startTransaction({ readConcern: { level: 'snapshot' }, writeConcern: { w: 'majority' } });
      await coll.insertOne({ _id: 1 }, { session });
      await session.commitTransaction();
      session.startTransaction();
      await coll.insertOne({ _id: 2 }, { session });
      await session.abortTransaction();
    } finally {
      await session.endSession();
    }
    assert.deepEqual((await coll.find({}).sort({ _id: 1 }).toArray()).map((d) => d._id), [0, 1]);
  } finally {
    await client.close();
  }
  const b = await stats(rs.uri);
  for (const s of [a, b]) {
    assert.equal(s.raw.transactions, null);
    assert.equal(s.counters.txn_total_committed, null);
    assert.equal(s.unavailable.txn_total_committed, 'SecantusDB serverStatus has no transactions section');
  }
});
