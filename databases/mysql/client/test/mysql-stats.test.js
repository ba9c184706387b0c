'use strict';
// The server's own counters through the binding (mysql-stats.js) against a real MariaDB 10.11:
// redo LSN checked against an independent reading (SHOW ENGINE INNODB STATUS "Log sequence number",
// taken just before and after), statement and byte counters against what the test sent, binary log
// bytes growing by at least the documents, storage after the flush, and what MariaDB lacks as null
// with the reason.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');
const { CLIENT_DIR, clientRequire } = require('../deps');
const { startMariadb } = require('./mariadb-server');

const { runCli } = require(path.join(CLIENT_DIR, 'test/helpers/run-cli'));
const { DocumentGenerator } = require(path.join(CLIENT_DIR, 'src/docgen'));
const { keyGenerator } = require(path.join(CLIENT_DIR, 'src/keys'));
const { createTarget } = require(path.join(CLIENT_DIR, 'src/targets'));

const mysql = clientRequire('mysql2/promise');
const N = 200;

test.describe('MariaDB (MySQL stand-in): server counters, redo and binary log bytes, storage', () => {
  let db;
  let probe; // the test's own connection: the independent reading
  test.before(async () => {
    db = await startMariadb();
    probe = await mysql.createConnection({ host: '127.0.0.1', port: db.port, user: 'root', database: 'jsonbench', jsonStrings: true });
  });
  test.after(async () => {
    if (probe) await probe.end();
    if (db) await db.cleanup();
  });

  const engineLsn = async () => {
    const [[row]] = await probe.query('SHOW ENGINE INNODB STATUS');
    const m = /Log sequence number\s+(\d+)/.exec(row.Status);
    assert.ok(m, 'SHOW ENGINE INNODB STATUS has a Log sequence number');
    return Number(m[1]);
  };
  // The binding's reading bracketed by two independent ones.
  const bracketed = async (target) => {
    const lo = await engineLsn();
    const stats = await target.serverStats();
    const hi = await engineLsn();
    assert.ok(lo <= stats.counters.redo_lsn && stats.counters.redo_lsn <= hi, `${lo} <= ${stats.counters.redo_lsn} <= ${hi}`);
    return { lo, hi, stats };
  };

  test(`${N} inserts then one JSON_SET: redo, binary log, statements and bytes as sent; the engine's LSN agrees`, async () => {
    assert.equal((await runCli(['init', '--uri', db.uri, '--key', 'uuidv7', '--layout', 'clustered'])).code, 0);
    const target = createTarget('mysql', db.uri);
    await target.connect();
    try {
      await target.prepareInserts({ key: 'uuidv7', durability: 'strict' });
      const gen = new DocumentGenerator({ seed: 1, clientId: '1', fields: 10, fieldBytes: 100 });
      const keys = keyGenerator('uuidv7', { seed: 1, clientId: '1' });
      const docBytes = gen.jsonLength;

      const a = await bracketed(target);
      for (let i = 0; i < N; i++) await target.send(target.build(gen, i, keys));
      const b = await bracketed(target);
      const d = (k) => b.stats.counters[k] - a.stats.counters[k];

      // Redo: the binding's delta lies within the independent readings' bounds, and holds at least
      // every document's bytes.
      assert.ok(d('redo_lsn') >= b.lo - a.hi && d('redo_lsn') <= b.hi - a.lo, `redo ${d('redo_lsn')}`);
      assert.ok(d('redo_lsn') >= N * docBytes, `redo ${d('redo_lsn')} bytes < ${N} x ${docBytes}`);
      // Binary log in ROW format: each insert's row image holds its document.
      assert.ok(d('binlog_bytes') >= N * docBytes, `binlog ${d('binlog_bytes')}`);
      assert.ok(b.stats.raw.binlog_files.length >= 1);
      // One COM_STMT_EXECUTE per insert, counted as Com_insert too; the readings add no insert.
      assert.equal(d('com_stmt_execute'), N);
      assert.equal(d('com_insert'), N);
      assert.ok(d('handler_write') >= N);
      assert.ok(d('bytes_received') >= N * docBytes, `bytes_received ${d('bytes_received')}`);
      assert.equal(d('connections'), 0, 'no connection was opened between the readings');
      assert.equal(b.stats.counters.threads_connected, 2, 'the binding\'s and the probe\'s');

      // One field changed with JSON_SET: one UPDATE. MariaDB has no partial JSON logging (no
      // binlog_row_value_options): its ROW event holds the whole row before and after.
      const path0 = ['attr3'];
      assert.equal(await target.patch(keys.buffer(7), path0, 'x'.repeat(100)), 1);
      const c = await bracketed(target);
      const e = (k) => c.stats.counters[k] - b.stats.counters[k];
      assert.equal(e('com_update'), 1);
      assert.equal(e('com_insert'), 0);
      assert.ok(e('redo_lsn') > 0 && e('redo_lsn') <= c.hi - b.lo);
      assert.ok(e('binlog_bytes') >= 2 * docBytes, `binlog of one JSON_SET on MariaDB: ${e('binlog_bytes')} bytes`);
      const [[[doc]]] = await probe.query({ sql: 'SELECT data FROM jsonbench WHERE id = ?', values: [keys.buffer(7)], rowsAsArray: true });
      const want = gen.object(7);
      want.attr3 = 'x'.repeat(100);
      assert.deepEqual(JSON.parse(doc), want, 'only attr3 changed');

      // What MariaDB does not have is null with the reason, never another counter's value.
      assert.equal(c.stats.counters.innodb_rows_inserted, null);
      assert.match(c.stats.unavailable.innodb_rows_inserted, /^MariaDB 10\.11\.\d+.* has no Innodb_rows_inserted status variable$/);
      assert.deepEqual(c.stats.server, { name: 'mysql', version: c.stats.server.version, product: 'MariaDB', stand_in: true });
      assert.equal(c.stats.reading.statements, 5);
    } finally {
      await target.close();
    }
  });

  test('count: documents and InnoDB sizes after the flush; server-stats and settle through the CLI', async () => {
    const binlog = async () => (await probe.query('SHOW BINARY LOGS'))[0].reduce((a, row) => a + Number(row.File_size), 0);
    const before = await binlog();
    const r = await runCli(['count', '--uri', db.uri]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(await binlog(), before, 'the lab\'s flush and ANALYZE LOCAL write nothing to the binary log');
    const c = JSON.parse(r.stdout);
    assert.equal(c.database, 'mysql');
    assert.equal(c.documents, N);
    assert.ok(c.table_bytes >= N * 1000, `table_bytes ${c.table_bytes}`);
    assert.equal(c.index_bytes, 0, 'a clustered table has no secondary index');
    assert.equal(c.settle.command, 'FLUSH TABLES jsonbench FOR EXPORT; UNLOCK TABLES; ANALYZE LOCAL TABLE jsonbench');
    assert.equal(c.server.product, 'MariaDB');

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
