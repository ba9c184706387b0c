'use strict';
// The server's own counters through the binding (mysql-stats.js) against a real MySQL
// (mysql-server.js: the official image when present, else the stand-in, Debian's MySQL 9.7): redo
// LSN checked against an independent reading (SHOW ENGINE INNODB STATUS "Log sequence number",
// taken just before and after, once the log is idle), statement, row and byte counters against what the test sent, binary
// log bytes against the test's own SHOW BINARY LOGS, an update's binary log with FULL row images and
// PARTIAL_JSON (the before-image whole, the after-image the change), storage after the flush.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');
const { CLIENT_DIR, clientRequire } = require('./deps');
const { startMysql, unavailable, IMAGE, STANDIN } = require('./mysql-server');

const { runCli } = require(path.join(CLIENT_DIR, 'test/helpers/run-cli'));
const { DocumentGenerator } = require(path.join(CLIENT_DIR, 'src/docgen'));
const { keyGenerator } = require(path.join(CLIENT_DIR, 'src/keys'));
const { createTarget } = require(path.join(CLIENT_DIR, 'src/targets'));
const { sleep } = require(path.join(CLIENT_DIR, 'test/helpers/processes'));

const mysql = clientRequire('mysql2/promise');
const N = 200;

test.describe(`MySQL (${IMAGE}): server counters, redo and binary log bytes, storage`, { skip: unavailable() }, () => {
  let db;
  let probe; // the test's own connection: the independent reading
  test.before(async () => {
    // a buffer pool InnoDB must round (320M is no multiple of its 128M chunk): the reading's cache test
    db = await startMysql({ bufferPool: '320M' });
    probe = await mysql.createConnection({ host: '127.0.0.1', port: db.port, user: 'root', database: 'jsonbench', jsonStrings: true });
  });
  test.after(async () => {
    if (probe) await probe.end();
    if (db) await db.cleanup();
  });

  // The engine's own text: SHOW ENGINE INNODB STATUS "Log sequence number", the LSN that
  // Innodb_redo_log_current_lsn reports once InnoDB is idle. Right after a burst of commits the
  // status variable trails it (measured: up to 66 kB for about 200 ms), so the readings are
  // compared once the log is idle: the status variable equal to the engine's LSN (at most 10 s).
  const engineLsn = async () => {
    const [[row]] = await probe.query('SHOW ENGINE INNODB STATUS');
    const m = /Log sequence number\s+(\d+)/.exec(row.Status);
    assert.ok(m, 'SHOW ENGINE INNODB STATUS has a Log sequence number');
    return Number(m[1]);
  };
  let probeStatusRows = 0; // each of the probe's SHOW GLOBAL STATUS counts one Handler_write too
  const idle = async () => {
    for (let i = 0; i < 100; i++) {
      const [[{ Value: lsn }]] = await probe.query("SHOW GLOBAL STATUS LIKE 'Innodb_redo_log_current_lsn'");
      probeStatusRows += 1;
      if (Number(lsn) === await engineLsn()) return;
      await sleep(100);
    }
    assert.fail('InnoDB\'s log did not become idle within 10 s');
  };
  // The binding's reading bracketed by two independent ones.
  const binlog = async () => (await probe.query('SHOW BINARY LOGS'))[0].reduce((a, row) => a + Number(row.File_size), 0);
  // InnoDB's background threads (purge, the page cleaner) may write redo between the readings, and
  // the status variable then trails the engine's own LSN for a moment (a CI run on a loaded host saw
  // 19560975 <= 19560775 <= 19561139): such a bracket, one in which the engine's LSN moved, is taken
  // again; one in which it stood still must hold the binding's reading exactly.
  const bracketed = async (target) => {
    for (let attempt = 1; ; attempt++) {
      await idle();
      const lo = await engineLsn();
      const stats = await target.serverStats();
      const hi = await engineLsn();
      const inside = lo <= stats.counters.redo_lsn && stats.counters.redo_lsn <= hi;
      if (inside || lo === hi || attempt >= 5) {
        assert.ok(inside, `${lo} <= ${stats.counters.redo_lsn} <= ${hi}`);
        return { lo, hi, stats };
      }
      // the reading taken again: the one let go wrote its status rows too (Handler_write below)
      probeStatusRows += Object.keys(stats.raw.status).length;
    }
  };

  test('the buffer pool as the server holds it: 320M asked, 384M allocated (whole 128M chunks x 1 instance), in no statement of its own', async () => {
    const r = await runCli(['server-stats', '--uri', db.uri]);
    assert.equal(r.code, 0, r.stderr);
    const s = JSON.parse(r.stdout);
    assert.deepEqual({ bytes: s.cache.bytes, setting: s.cache.setting, reason: s.cache.reason, parts: s.cache.parts }, {
      bytes: 384 * 1024 * 1024,
      setting: 'innodb_buffer_pool_size',
      reason: null,
      parts: { innodb_buffer_pool_size: 384 * 1024 * 1024, innodb_buffer_pool_chunk_size: 128 * 1024 * 1024, innodb_buffer_pool_instances: 1 },
    });
    assert.equal(s.reading.statements, 5, 'SELECT VERSION(); SHOW GLOBAL STATUS; the clock and the pool in one SELECT; @@log_bin ...; SHOW BINARY LOGS');
  });

  test(`${N} inserts then one JSON_SET: redo, binary log, statements and bytes as sent; the engine's LSN agrees`, async () => {
    assert.equal((await runCli(['init', '--uri', db.uri, '--key', 'uuidv7', '--layout', 'clustered'])).code, 0);
    const target = createTarget('mysql', db.uri);
    await target.connect();
    try {
      await target.prepareInserts({ key: 'uuidv7', durability: 'strict' });
      const gen = new DocumentGenerator({ seed: 1, clientId: '1', fields: 10, fieldBytes: 1000 });
      const keys = keyGenerator('uuidv7', { seed: 1, clientId: '1' });
      const docBytes = gen.jsonLength;

      const a = await bracketed(target);
      const polls = probeStatusRows;
      for (let i = 0; i < N; i++) await target.send(target.build(gen, i, keys));
      const b = await bracketed(target);
      const d = (k) => b.stats.counters[k] - a.stats.counters[k];

      // Redo: the binding's delta lies within the independent readings' bounds, and holds at least
      // every document's bytes.
      assert.ok(d('redo_lsn') >= b.lo - a.hi && d('redo_lsn') <= b.hi - a.lo, `redo ${d('redo_lsn')}`);
      assert.ok(d('redo_lsn') >= N * docBytes, `redo ${d('redo_lsn')} bytes < ${N} x ${docBytes}`);
      // Binary log in ROW format: each insert's row image holds its document; the test's own SHOW
      // BINARY LOGS, taken after the binding's reading, agrees (nothing commits in between).
      assert.ok(d('binlog_bytes') >= N * docBytes, `binlog ${d('binlog_bytes')}`);
      assert.equal(b.stats.counters.binlog_bytes, await binlog());
      assert.ok(b.stats.raw.binlog_files.length >= 1);
      // One COM_STMT_EXECUTE per insert, counted as Com_insert too; the readings add no insert.
      assert.equal(d('com_stmt_execute'), N);
      assert.equal(d('com_insert'), N);
      assert.equal(d('innodb_rows_inserted'), N);
      // Handler_write: the rows inserted, and one per row the reading's SHOW GLOBAL STATUS puts in
      // its temporary table (measured on MySQL 9.7), and the probe's own while it waited for an idle log
      assert.equal(d('handler_write'), N + Object.keys(b.stats.raw.status).length + (probeStatusRows - polls));
      assert.ok(d('bytes_received') >= N * docBytes, `bytes_received ${d('bytes_received')}`);
      assert.equal(d('connections'), 0, 'no connection was opened between the readings');
      assert.equal(b.stats.counters.threads_connected, 2, 'the binding\'s and the probe\'s');

      // One field changed with JSON_SET: one UPDATE. binlog_row_image=FULL: the row event's
      // before-image is the whole document; PARTIAL_JSON: its after-image is the change only.
      assert.deepEqual(b.stats.raw.variables, { log_bin: '1', binlog_format: 'ROW', binlog_row_image: 'FULL', binlog_row_value_options: 'PARTIAL_JSON' });
      const path0 = ['attr3'];
      assert.equal(await target.patch(keys.buffer(7), path0, 'x'.repeat(1000)), 1);
      const c = await bracketed(target);
      const e = (k) => c.stats.counters[k] - b.stats.counters[k];
      assert.equal(e('com_update'), 1);
      assert.equal(e('com_insert'), 0);
      assert.equal(e('innodb_rows_updated'), 1);
      assert.ok(e('redo_lsn') > 0 && e('redo_lsn') <= c.hi - b.lo);
      assert.ok(e('binlog_bytes') > docBytes && e('binlog_bytes') < 1.5 * docBytes, `binlog of one JSON_SET: ${e('binlog_bytes')} bytes`);
      const [[[doc, free]]] = await probe.query({ sql: 'SELECT data, JSON_STORAGE_FREE(data) FROM jsonbench WHERE id = ?', values: [keys.buffer(7)], rowsAsArray: true });
      const want = gen.object(7);
      want.attr3 = 'x'.repeat(1000);
      assert.deepEqual(JSON.parse(doc), want, 'only attr3 changed');
      assert.equal(Number(free), 0, 'a same-length value replaced in place: no space freed');

      assert.deepEqual(c.stats.server, { name: 'mysql', version: c.stats.server.version, product: 'MySQL', stand_in: IMAGE === STANDIN, version_comment: c.stats.server.version_comment });
      assert.match(c.stats.server.version, /^9\.7\./);
      assert.deepEqual(c.stats.unavailable, {});
      assert.equal(c.stats.reading.statements, 5);
      assert.equal(c.stats.reading.status_names, Object.keys(c.stats.raw.status).length, 'every name asked is a status variable of this server');
    } finally {
      await target.close();
    }
  });

  test('count: documents and InnoDB sizes after the flush; server-stats and settle through the CLI', async () => {
    const before = await binlog();
    const r = await runCli(['count', '--uri', db.uri]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(await binlog(), before, 'the lab\'s flush and ANALYZE LOCAL write nothing to the binary log');
    const c = JSON.parse(r.stdout);
    assert.equal(c.database, 'mysql');
    assert.equal(c.documents, N);
    assert.ok(c.table_bytes >= N * 10000, `table_bytes ${c.table_bytes}`);
    assert.equal(c.index_bytes, 0, 'a clustered table has no secondary index');
    assert.equal(c.settle.command, 'FLUSH TABLES jsonbench FOR EXPORT; UNLOCK TABLES; ANALYZE LOCAL TABLE jsonbench');
    assert.equal(c.server.product, 'MySQL');

    const s = await runCli(['server-stats', '--uri', db.uri]);
    assert.equal(s.code, 0, s.stderr);
    const st = JSON.parse(s.stdout);
    assert.equal(st.database, 'mysql');
    assert.equal(typeof st.counters.redo_lsn, 'number');
    assert.equal(typeof st.counters.binlog_bytes, 'number');
    assert.deepEqual(st.run_session, { connections: 1, statements: 2, prepares: 4, about: st.run_session.about });

    const t = await runCli(['settle', '--uri', db.uri]);
    assert.equal(t.code, 0, t.stderr);
    assert.match(t.stdout, /^settle: FLUSH TABLES jsonbench FOR EXPORT; UNLOCK TABLES; ANALYZE LOCAL TABLE jsonbench/);
  });
});
