'use strict';
// The MySQL binding against a real MariaDB 10.11 (the MySQL stand-in's server): the shared client
// behaviour (client/test/integration/shared-cases.js), the table each KEY/LAYOUT gets and the
// index InnoDB clusters it by, the documents stored byte for byte, the refusals (DURABILITY the
// server does not run with, a query set without MySQL forms, sequence keys for reads).
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');
const { CLIENT_DIR } = require('../deps');
const { startMariadb } = require('./mariadb-server');

const { sharedCases, tmpResult, readResult, SHAPE } = require(path.join(CLIENT_DIR, 'test/integration/shared-cases'));
const { runCli, startCli } = require(path.join(CLIENT_DIR, 'test/helpers/run-cli'));
const { sleep } = require(path.join(CLIENT_DIR, 'test/helpers/processes'));
const { DocumentGenerator } = require(path.join(CLIENT_DIR, 'src/docgen'));
const { keyGenerator } = require(path.join(CLIENT_DIR, 'src/keys'));
const { createTarget } = require(path.join(CLIENT_DIR, 'src/targets'));

const countInDb = async (s) => Number((await s.query('SELECT COUNT(*) FROM jsonbench'))[0][0]);

sharedCases({
  name: 'MariaDB (MySQL stand-in)', label: 'MariaDB (MySQL stand-in)', product: 'MariaDB', standIn: true, database: 'mysql', start: startMariadb, countInDb,
});

test.describe('MariaDB (MySQL stand-in): tables, stored bytes, refusals', () => {
  let db;
  test.before(async () => { db = await startMariadb(); });
  test.after(async () => { if (db) await db.cleanup(); });

  const clustered = async () => (await db.query(`SELECT i.NAME, i.TYPE FROM information_schema.INNODB_SYS_INDEXES i
    JOIN information_schema.INNODB_SYS_TABLES t ON t.TABLE_ID = i.TABLE_ID WHERE t.NAME = 'jsonbench/jsonbench' ORDER BY i.INDEX_ID`));
  const columns = async () => (await db.query(`SELECT COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE, EXTRA FROM information_schema.COLUMNS
    WHERE TABLE_SCHEMA = 'jsonbench' AND TABLE_NAME = 'jsonbench' ORDER BY ORDINAL_POSITION`));
  const init = (key, layout) => runCli(['init', '--uri', db.uri, '--key', key, '--layout', layout]);

  test('each KEY x LAYOUT: the table, and InnoDB clusters rows by the key (clustered) or by its hidden row id (heap)', async () => {
    const cases = [
      ['uuidv7', 'clustered', [['PRIMARY', 3]], 'binary(16)', 'NO', ''],
      ['uuidv4', 'heap', [['GEN_CLUST_INDEX', 1], ['jsonbench_id', 2]], 'binary(16)', 'YES', ''],
      ['sequence', 'clustered', [['PRIMARY', 3]], 'bigint(20) unsigned', 'NO', 'auto_increment'],
      ['sequence', 'heap', [['GEN_CLUST_INDEX', 1], ['jsonbench_id', 0]], 'bigint(20) unsigned', 'NO', 'auto_increment'],
    ];
    for (const [key, layout, indexes, idType, nullable, extra] of cases) {
      const r = await init(key, layout);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^MariaDB \(MySQL stand-in\) 10\.11\.\d+-MariaDB/);
      assert.match(r.stdout, new RegExp(`rows clustered by ${indexes[0][0]}`));
      assert.deepEqual((await clustered()).map(([n, t]) => [n, Number(t)]), indexes, `${key} ${layout}`);
      const cols = await columns();
      assert.deepEqual(cols[0], ['id', idType, nullable, extra], `${key} ${layout}`);
      // MariaDB's JSON is LONGTEXT with a JSON_VALID check (MySQL's is its binary JSON type).
      assert.deepEqual(cols[1].slice(0, 3), ['data', 'longtext', 'NO']);
    }
  });

  test('inserts store exactly the generator\'s JSON bytes and keys; sequence keys come from AUTO_INCREMENT', async () => {
    assert.equal((await init('uuidv7', 'clustered')).code, 0);
    let r = await runCli(['run', '--uri', db.uri, '--key', 'uuidv7', '--layout', 'clustered', ...SHAPE, '--rate', '1000', '--docs', '30', '--client-id', '3']);
    assert.equal(r.code, 0, r.stderr);
    const gen = new DocumentGenerator({ seed: 1, clientId: '3', fields: 10, fieldBytes: 100 });
    const keys = keyGenerator('uuidv7', { seed: 1, clientId: '3' });
    const rows = await db.query('SELECT HEX(id), data FROM jsonbench ORDER BY id');
    assert.deepEqual(rows.map(([id, data]) => [id.toLowerCase(), data]),
      Array.from({ length: 30 }, (_, i) => [keys.buffer(i).toString('hex'), gen.json(i)]));

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
    const rows = await db.query('SELECT LENGTH(data), MD5(data) FROM jsonbench ORDER BY id');
    const md5 = (s) => require('crypto').createHash('md5').update(s, 'latin1').digest('hex');
    assert.deepEqual(rows.map(([n, h]) => [Number(n), h]), [0, 1].map((i) => [gen.jsonLength, md5(gen.json(i))]));
  });

  test('server restarted mid-run: errors counted, the client reconnects, prepares again and carries on', async () => {
    assert.equal((await init('uuidv4', 'heap')).code, 0);
    const out = tmpResult();
    try {
      const run = startCli(['run', '--uri', db.uri, '--key', 'uuidv4', '--layout', 'heap', ...SHAPE,
        '--rate', '100', '--docs', '500', '--reconnect-timeout-s', '30', '--result', out.file], { timeoutMs: 60000 });
      await sleep(1500);
      await db.restart();
      const r = await run.done;
      const res = readResult(out.file);
      assert.ok(res.reconnects >= 1, r.stdout);
      assert.equal(res.gave_up, null);
      assert.equal(res.docs_ok + res.errors + res.dropped, 500, 'every document settled, schedule carried on');
      // The insert in flight when mariadbd shut down may have committed with its answer lost (seen:
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

  test('a query set without MySQL forms is refused before anything starts, naming the set', async () => {
    for (const [workload, module] of [['events', 'github-events-queries.js'], ['tsbs', 'tsbs-devops-queries.js']]) {
      // Port 1: nothing listens there; the refusal comes before any connection.
      const r = await runCli(['init', '--uri', 'mysql://root@127.0.0.1:1/jsonbench', '--key', 'uuidv7', '--layout', 'clustered', '--workload', workload]);
      assert.equal(r.code, 2, r.stdout);
      assert.match(r.stderr, new RegExp(`the query set of WORKLOAD=${workload} \\(${module.replace('.', '\\.')}\\) has no mysql forms \\(none of its queries\\); allowed databases for it: mongodb, postgres`));
    }
  });

  test('workloads without a MySQL binding are refused naming them, nothing written', async () => {
    assert.equal((await init('uuidv7', 'clustered')).code, 0);
    const cases = [
      [['--workload', 'events', '--stage', 'load'], /the query set of WORKLOAD=events \(github-events-queries\.js\) has no mysql forms/],
      [['--workload', 'tsbs', '--model', 'event'], /the query set of WORKLOAD=tsbs \(tsbs-devops-queries\.js\) has no mysql forms/],
      [['--workload', 'booking'], /WORKLOAD=booking has no MySQL binding .* allowed with mysql: WORKLOAD=insert, ycsb/],
      [['--workload', 'oltp'], /WORKLOAD=oltp has no MySQL binding/],
    ];
    for (const [args, message] of cases) {
      const r = await runCli(['run', '--uri', db.uri, '--key', 'uuidv7', '--layout', 'clustered', ...args]);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, message);
    }
    assert.equal(await countInDb(db), 0);
  });

  test('wait-ready: authenticated as the URI\'s user on its database', async () => {
    const r = await runCli(['wait-ready', '--uri', db.uri, '--ready-timeout-s', '10']);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.deepEqual([out.ready, out.user, out.database], [true, 'root', 'jsonbench']);
  });
});
