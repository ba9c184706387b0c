'use strict';
// The MySQL binding against a real MySQL (mysql-server.js: the official image when present, else
// the lab's stand-in, Debian's MySQL 9.7): the shared client behaviour
// (client/test/integration/shared-cases.js), the server's identity and the stand-in flag, the table
// each KEY/LAYOUT gets and the index InnoDB clusters it by, the documents stored as binary JSON and
// read back equal, the refusals (DURABILITY the server does not run with, a query set without MySQL
// forms, sequence keys for reads).
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');
const { CLIENT_DIR } = require('./deps');
const { startMysql, unavailable, IMAGE, STANDIN } = require('./mysql-server');

const { sharedCases, tmpResult, readResult, SHAPE } = require(path.join(CLIENT_DIR, 'test/integration/shared-cases'));
const { runCli, startCli } = require(path.join(CLIENT_DIR, 'test/helpers/run-cli'));
const { sleep } = require(path.join(CLIENT_DIR, 'test/helpers/processes'));
const { DocumentGenerator } = require(path.join(CLIENT_DIR, 'src/docgen'));
const { keyGenerator } = require(path.join(CLIENT_DIR, 'src/keys'));
const { createTarget } = require(path.join(CLIENT_DIR, 'src/targets'));

const countInDb = async (s) => Number((await s.query('SELECT COUNT(*) FROM jsonbench'))[0][0]);
const skip = unavailable();
const standIn = IMAGE === STANDIN;
const label = standIn ? "MySQL (MySQL's official image stand-in)" : 'MySQL';

if (!skip) sharedCases({ name: `MySQL (${IMAGE})`, label, product: 'MySQL', standIn, database: 'mysql', start: startMysql, countInDb });

test.describe(`MySQL (${IMAGE}): identity, tables, stored documents, refusals`, { skip }, () => {
  let db;
  test.before(async () => { db = await startMysql(); });
  test.after(async () => { if (db) await db.cleanup(); });

  const clustered = async () => (await db.query(`SELECT i.NAME, i.TYPE FROM information_schema.INNODB_INDEXES i
    JOIN information_schema.INNODB_TABLES t ON t.TABLE_ID = i.TABLE_ID WHERE t.NAME = 'jsonbench/jsonbench' ORDER BY i.INDEX_ID`));
  const columns = async () => (await db.query(`SELECT COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE, EXTRA FROM information_schema.COLUMNS
    WHERE TABLE_SCHEMA = 'jsonbench' AND TABLE_NAME = 'jsonbench' ORDER BY ORDINAL_POSITION`));
  const init = (key, layout) => runCli(['init', '--uri', db.uri, '--key', key, '--layout', layout]);

  test('the server as it says it is: VERSION(), @@version_comment; a build other than the official image\'s is a stand-in', async () => {
    const [[version, comment]] = await db.query('SELECT VERSION(), @@version_comment');
    const target = createTarget('mysql', db.uri);
    await target.connect();
    try {
      const info = await target.serverInfo();
      if (standIn) {
        // Debian's build of MySQL 9.7 (the image's pinned package): the same server line, not the official image
        assert.match(version, /^9\.7\.\d+-\d+$/);
        assert.equal(comment, '(Debian)');
        assert.deepEqual(info, { product: 'MySQL', version, version_comment: comment, stand_in: true, stands_in_for: "MySQL's official image" });
      } else {
        assert.deepEqual(info, { product: 'MySQL', version, version_comment: 'MySQL Community Server - GPL', stand_in: false });
      }
      const stats = await target.serverStats();
      assert.deepEqual(stats.server, { name: 'mysql', version, product: 'MySQL', stand_in: standIn, version_comment: comment });
    } finally {
      await target.close();
    }
  });

  test('each KEY x LAYOUT: the table, and InnoDB clusters rows by the key (clustered) or by its hidden row id (heap)', async () => {
    const cases = [
      ['uuidv7', 'clustered', [['PRIMARY', 3]], 'binary(16)', 'NO', ''],
      ['uuidv4', 'heap', [['GEN_CLUST_INDEX', 1], ['jsonbench_id', 2]], 'binary(16)', 'YES', ''],
      ['sequence', 'clustered', [['PRIMARY', 3]], 'bigint unsigned', 'NO', 'auto_increment'],
      ['sequence', 'heap', [['GEN_CLUST_INDEX', 1], ['jsonbench_id', 0]], 'bigint unsigned', 'NO', 'auto_increment'],
    ];
    for (const [key, layout, indexes, idType, nullable, extra] of cases) {
      const r = await init(key, layout);
      assert.equal(r.code, 0, r.stderr);
      assert.ok(r.stdout.startsWith(`${label} 9.7.`), r.stdout);
      assert.match(r.stdout, new RegExp(`rows clustered by ${indexes[0][0]}`));
      assert.deepEqual((await clustered()).map(([n, t]) => [n, Number(t)]), indexes, `${key} ${layout}`);
      const cols = await columns();
      assert.deepEqual(cols[0], ['id', idType, nullable, extra], `${key} ${layout}`);
      // MySQL's JSON type: binary JSON (MariaDB, the stand-in of earlier runs, had LONGTEXT)
      assert.deepEqual(cols[1].slice(0, 3), ['data', 'json', 'NO']);
    }
  });

  test('inserts store the generator\'s documents as binary JSON, read back equal, with their keys; sequence keys come from AUTO_INCREMENT', async () => {
    assert.equal((await init('uuidv7', 'clustered')).code, 0);
    let r = await runCli(['run', '--uri', db.uri, '--key', 'uuidv7', '--layout', 'clustered', ...SHAPE, '--rate', '1000', '--docs', '30', '--client-id', '3']);
    assert.equal(r.code, 0, r.stderr);
    const gen = new DocumentGenerator({ seed: 1, clientId: '3', fields: 10, fieldBytes: 100 });
    const keys = keyGenerator('uuidv7', { seed: 1, clientId: '3' });
    const rows = await db.query('SELECT HEX(id), data, JSON_STORAGE_SIZE(data), JSON_TYPE(data) FROM jsonbench ORDER BY id');
    assert.deepEqual(rows.map(([id, data]) => [id.toLowerCase(), JSON.parse(data)]),
      Array.from({ length: 30 }, (_, i) => [keys.buffer(i).toString('hex'), gen.object(i)]));
    // Binary JSON: the server stores its own encoding (JSON_STORAGE_SIZE, which a text column has
    // not) and prints the document anew (sorted keys, a space after each ':' and ','), not the text sent
    for (const [i, [, data, size, type]] of rows.entries()) {
      assert.equal(type, 'OBJECT');
      assert.ok(Number(size) > 10 * 100 && Number(size) < gen.jsonLength + 200, `JSON_STORAGE_SIZE ${size}`);
      assert.notEqual(data, gen.json(i));
    }

    assert.equal((await init('sequence', 'heap')).code, 0);
    r = await runCli(['run', '--uri', db.uri, '--key', 'sequence', '--layout', 'heap', ...SHAPE, '--rate', '1000', '--docs', '5']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual((await db.query('SELECT id FROM jsonbench ORDER BY id')).map(([id]) => Number(id)), [1, 2, 3, 4, 5]);
    const target = createTarget('mysql', db.uri);
    await target.connect();
    try {
      await target.prepareInserts({ key: 'sequence', durability: 'strict' });
      await assert.rejects(target.get(Buffer.alloc(16)), /get: sequence keys \(AUTO_INCREMENT\) cannot be chosen by key/);
    } finally {
      await target.close();
    }
  });

  test('doc-size: documents near MongoDB\'s 16 MiB limit (15 x 1,000,000 bytes) are stored and read back whole', async () => {
    assert.equal((await init('uuidv7', 'clustered')).code, 0);
    const r = await runCli(['run', '--uri', db.uri, '--key', 'uuidv7', '--layout', 'clustered', '--fields', '15', '--field-bytes', '1000000',
      '--rate', '10', '--docs', '2'], { timeoutMs: 60000 });
    assert.equal(r.code, 0, r.stderr);
    const gen = new DocumentGenerator({ seed: 1, clientId: '1', fields: 15, fieldBytes: 1000000 });
    const rows = await db.query('SELECT data, JSON_STORAGE_SIZE(data) FROM jsonbench ORDER BY id');
    assert.equal(rows.length, 2);
    for (const [data, size] of rows) assert.ok(Number(size) >= 15 * 1000000, `JSON_STORAGE_SIZE ${size}`);
    const stored = rows.map(([data]) => JSON.parse(data));
    const sent = [0, 1].map((i) => gen.object(i));
    const byKey = (docs) => docs.map((d) => JSON.stringify(Object.keys(d).sort().map((k) => [k, d[k]])));
    assert.deepEqual(byKey(stored).sort(), byKey(sent).sort());
  });

  test('server restarted mid-run: errors counted, the client reconnects, prepares again and carries on', async () => {
    const DOCS = 1500;
    assert.equal((await init('uuidv4', 'heap')).code, 0);
    const out = tmpResult();
    try {
      // 15 s of schedule: a restart under load (the CI's suites side by side) took over the 3.5 s that
      // 500 documents left after it, and no insert came after the restart (docs_ok 140)
      const run = startCli(['run', '--uri', db.uri, '--key', 'uuidv4', '--layout', 'heap', ...SHAPE,
        '--rate', '100', '--docs', String(DOCS), '--reconnect-timeout-s', '30', '--result', out.file], { timeoutMs: 90000 });
      await sleep(1500);
      await db.restart();
      const r = await run.done;
      const res = readResult(out.file);
      assert.ok(res.reconnects >= 1, r.stdout);
      assert.equal(res.gave_up, null);
      assert.equal(res.docs_ok + res.errors + res.dropped, DOCS, 'every document settled, schedule carried on');
      // The insert in flight when mysqld shut down may have committed with its answer lost (seen:
      // 500 stored, 499 acknowledged): the client counts it as an error, never as done.
      const stored = await countInDb(db);
      assert.ok(stored - res.docs_ok >= 0 && stored - res.docs_ok <= 1, `stored ${stored}, acknowledged ${res.docs_ok}`);
      assert.ok(res.errors >= stored - res.docs_ok);
      assert.ok(res.docs_ok > 150, `inserts after the restart: docs_ok ${res.docs_ok}`);
      assert.match(r.stdout, /reconnected after/);
    } finally {
      out.cleanup();
    }
  });

  test('DURABILITY=relaxed on a server running strict is refused, naming both settings', async () => {
    assert.equal((await init('uuidv7', 'clustered')).code, 0);
    const r = await runCli(['run', '--uri', db.uri, '--key', 'uuidv7', '--layout', 'clustered', ...SHAPE, '--docs', '5', '--durability', 'relaxed']);
    assert.equal(r.code, 2, r.stdout);
    assert.match(r.stderr, /DURABILITY=relaxed needs the MySQL server started with innodb_flush_log_at_trx_commit=2 and sync_binlog=0; it runs with 1 and 1/);
    assert.equal(await countInDb(db), 0, 'nothing was inserted');
  });

  // tsbs is refused on MySQL as a workload (no databases/mysql/client/workloads/tsbs.js), before its
  // query set is looked at: the refusal names the folder, the reason its manifest gives and what it offers.
  const TSBS_REFUSED = /WORKLOAD=tsbs does not run on mysql: TSBS has no MySQL target .*\(databases\/mysql\/client\/workloads\/ has no tsbs\.js; mysql offers WORKLOAD=booking, events, globalsign, insert, oltp, ycsb\); allowed with WORKLOAD=tsbs: DATABASES of mongodb, postgres, timescaledb/;

  test('a workload MySQL does not offer is refused before anything starts, naming its folder and what it offers', async () => {
    // Port 1: nothing listens there; the refusal comes before any connection.
    const r = await runCli(['init', '--uri', 'mysql://root@127.0.0.1:1/jsonbench', '--key', 'uuidv7', '--layout', 'clustered', '--workload', 'tsbs']);
    assert.equal(r.code, 2, r.stdout);
    assert.match(r.stderr, TSBS_REFUSED);
  });

  test('a workload MySQL does not offer is refused, nothing written; a transaction workload without its tables names init', async () => {
    assert.equal((await init('uuidv7', 'clustered')).code, 0);
    const cases = [
      [['--workload', 'tsbs', '--model', 'event'], TSBS_REFUSED],
    ];
    for (const [args, message] of cases) {
      const r = await runCli(['run', '--uri', db.uri, '--key', 'uuidv7', '--layout', 'clustered', ...args]);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, message);
    }
    assert.equal(await countInDb(db), 0);
    const b = await runCli(['run', '--uri', db.uri, '--key', 'uuidv7', '--layout', 'clustered', '--workload', 'booking']);
    assert.notEqual(b.code, 0);
    assert.match(b.stderr, /Table 'jsonbench\.\w+' doesn't exist \(was init run with WORKLOAD=booking on this database\?\)/);
  });

  test('wait-ready: authenticated as the URI\'s user on its database', async () => {
    const r = await runCli(['wait-ready', '--uri', db.uri, '--ready-timeout-s', '10']);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.deepEqual([out.ready, out.user, out.database], [true, 'root', 'jsonbench']);
  });
});
