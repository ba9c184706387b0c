'use strict';
// The events query set (client/src/queries/github-events-queries.js) on a real MySQL
// (mysql-server.js: the official image when present, else the stand-in, Debian's MySQL 9.7) and a
// real PostgreSQL, each loaded by the events workload's own load stage with the same seed: the same
// documents on both, every query's answer equal by digest for two executions, the functional indexes
// usable by the forms (the optimizer lists them), ANALYZE TABLE in settle, a deliberately different
// answer caught, a query phase of exactly K executions digesting as PostgreSQL's, the plan, and a
// refusal of the server classed as one.
const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('crypto');
const path = require('path');
const { CLIENT_DIR } = require('./deps');
const { startMysql, unavailable, IMAGE } = require('./mysql-server');

const { startPostgres } = require(path.join(CLIENT_DIR, 'test/helpers/postgres-server'));
const { createTarget } = require(path.join(CLIENT_DIR, 'src/targets'));
const { querySet } = require(path.join(CLIENT_DIR, 'src/queries'));
const { EventsLoad } = require(path.join(CLIENT_DIR, 'src/workloads/events'));
const { QueryWorkload, rowsOf, digestOptionsFor } = require(path.join(CLIENT_DIR, 'src/workloads/query'));
const { Runner } = require(path.join(CLIENT_DIR, 'src/runner'));
const { digestRows, compareDigests } = require(path.join(CLIENT_DIR, 'src/query-digest'));

const OPTS = {
  workload: 'events', seed: 5, events: 3000, repos: 300, actors: 600, skew: 1, clients: 1, clientId: '1',
  key: 'uuidv7', layout: 'clustered', durability: 'strict', keyFormat: 'binary', stage: 'load', loadRate: 0,
  reconnectTimeoutS: 5,
};
const NAMES = { names: ['mysql', 'postgres'] };
const set = querySet('events');
const data = set.dataOf(OPTS);

async function load(target) {
  await target.init(OPTS.key, OPTS.layout);
  const ddl = await target.createIndexes(set.indexes(data));
  await target.prepareInserts(OPTS);
  const w = new EventsLoad({ target, opts: OPTS });
  for (let i = 0; i < w.total; i++) await w.exec(w.build(i));
  return { loaded: w.total, ddl };
}

const runForm = async (target, form, def) => digestRows(rowsOf(await target.query(form)), digestOptionsFor(def.digest, target.database));

// (key, document) in key order as JSON values (keys sorted): both store a binary form and print it anew.
const canonical = (v) => (v && typeof v === 'object' && !Array.isArray(v)
  ? `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}`
  : JSON.stringify(v));
const sha = (text) => crypto.createHash('sha256').update(text).digest('hex');
const documents = (rows) => sha(rows.map(([id, text]) => `${id}\t${canonical(JSON.parse(text))}`).join('\n'));

test.describe(`events query set: MySQL (${IMAGE}) vs PostgreSQL on the same events`, { skip: unavailable() }, () => {
  let my; let pg; let myt; let pgt; let ddl;
  test.before(async () => {
    [my, pg] = await Promise.all([startMysql(), startPostgres()]);
    myt = createTarget('mysql', my.uri);
    pgt = createTarget('postgres', pg.uri);
    await myt.connect();
    await pgt.connect();
    const [a, b] = await Promise.all([load(myt), load(pgt)]);
    assert.equal(a.loaded, OPTS.events);
    assert.equal(b.loaded, OPTS.events);
    ddl = a.ddl;
  });
  test.after(async () => {
    if (myt) await myt.close();
    if (pgt) await pgt.close();
    await Promise.all([my && my.cleanup(), pg && pg.cleanup()]);
  });

  test('both hold the same events under the same keys', async () => {
    const a = documents(await my.query('SELECT LOWER(HEX(id)), data FROM jsonbench ORDER BY id'));
    const b = documents((await pg.query("select encode(uuid_send(id), 'hex') as id, data::text as data from jsonbench order by id"))
      .rows.map((r) => [r.id, r.data]));
    assert.equal(a, b);
    assert.equal((await myt.count()).documents, OPTS.events);
  });

  test('the three functional indexes exist', async () => {
    assert.equal(ddl.length, 3);
    const names = (await my.query("SELECT DISTINCT INDEX_NAME FROM information_schema.STATISTICS WHERE TABLE_NAME = 'jsonbench' AND EXPRESSION IS NOT NULL ORDER BY 1"))
      .map((r) => r[0]);
    assert.deepEqual(names, ['jsonbench_actor_login', 'jsonbench_repo_name', 'jsonbench_type']);
  });

  test('settle: the flush and ANALYZE TABLE, which recomputes the indexes\' statistics', async () => {
    const [[[before]]] = await myt.conn.query('SELECT UNIX_TIMESTAMP()');
    await new Promise((r) => { setTimeout(r, 1100); }); // last_update has a one-second resolution
    assert.equal(await myt.settle(), 'FLUSH TABLES jsonbench FOR EXPORT; UNLOCK TABLES; ANALYZE LOCAL TABLE jsonbench');
    const rows = await my.query("SELECT index_name, MIN(UNIX_TIMESTAMP(last_update)) > ? FROM mysql.innodb_index_stats WHERE table_name = 'jsonbench' GROUP BY 1 ORDER BY 1", [before]);
    assert.deepEqual(rows.map((r) => [r[0], Number(r[1])]),
      [['PRIMARY', 1], ['jsonbench_actor_login', 1], ['jsonbench_repo_name', 1], ['jsonbench_type', 1]]);
    await pgt.settle();
  });

  // After ANALYZE TABLE (settle, above). Before it, on the statistics of the near-empty table, MySQL
  // 9.7 was seen counting olap-lookup's actors by a table scan of all 3,000 rows per actor.
  test('after settle the optimizer looks the forms\' expressions up in the functional indexes', async (t) => {
    // EXPLAIN ANALYZE (a dependent subquery shows only in it): an index lookup only where the form's
    // expression is the index's own
    const plan = async (name, k = 0) => {
      const def = set.queries[name];
      const f = def.mysql(def.params(data, k), data);
      const [rows] = await myt.conn.query({ sql: `EXPLAIN ANALYZE ${myt.conn.format(f.sql, f.values)}`, rowsAsArray: true });
      return rows.map((r) => r[0]).join('\n');
    };
    assert.match(await plan('olap-a'), /Index lookup on jsonbench using jsonbench_type/);
    assert.match(await plan('olap-d'), /Index lookup on jsonbench using jsonbench_type/);
    const lookup = await plan('olap-lookup');
    assert.match(lookup, /Index lookup on jsonbench using jsonbench_repo_name/);
    assert.match(lookup, /Index lookup on e using jsonbench_actor_login/, `the correlated count on the actor index: ${lookup}`);
    for (const name of ['olap-b', 'olap-c']) t.diagnostic(`${name}: ${(await plan(name)).split('\n').filter(Boolean).pop().trim()}`);
  });

  for (const [name, def] of Object.entries(set.queries)) {
    test(`${name}: MySQL's answer = PostgreSQL's by digest (executions 0 and 1)`, async (t) => {
      for (const k of [0, 1]) {
        const p = def.params(data, k);
        const b = await runForm(pgt, def.postgres(p, data), def);
        assert.ok(b.rows > 0, `${name} k=${k}: PostgreSQL answers rows`);
        const t0 = process.hrtime.bigint();
        const a = await runForm(myt, def.mysql(p, data), def);
        const ms = Number(process.hrtime.bigint() - t0) / 1e6;
        const cmp = compareDigests(a, b, NAMES);
        assert.equal(cmp.equal, true, `${name} k=${k}: ${cmp.message}`);
        t.diagnostic(`${name} k=${k}: ${a.rows} rows, sha256 ${a.digest.slice(0, 12)} on both; MySQL ${ms.toFixed(1)} ms; first ${JSON.stringify(a.sample[0])}`);
      }
    });
  }

  test('a deliberately different answer is caught (olap-a on MySQL counting closed issues too)', async () => {
    const def = set.queries['olap-a'];
    const p = def.params(data, 0);
    const good = await runForm(pgt, def.postgres(p, data), def);
    const altered = def.mysql(p, data);
    altered.sql = altered.sql.replace(/COLLATE utf8mb4_0900_bin = \?\s+GROUP BY/, "COLLATE utf8mb4_0900_bin <> 'reopened' AND ? IS NOT NULL GROUP BY");
    assert.notEqual(altered.sql, def.mysql(p, data).sql);
    const bad = await runForm(myt, altered, def);
    const cmp = compareDigests(bad, good, NAMES);
    assert.equal(cmp.equal, false);
    assert.match(cmp.message, /answers differ at row \d+/);
  });

  test('a query phase runs exactly K executions and digests as PostgreSQL\'s', async () => {
    const K = 4;
    const out = {};
    for (const [db, target] of [['mysql', myt], ['postgres', pgt]]) {
      const opts = { ...OPTS, database: db, stage: 'query', query: 'olap-lookup', queryRuns: K, queryRate: 0 };
      const w = new QueryWorkload({ target, opts });
      const r = new Runner({ target, workload: w, opts, log: () => {}, label: db });
      await r.run();
      const res = r.result({ server: {}, database: db });
      assert.equal(res.docs_ok, K, db);
      out[db] = w.result();
    }
    assert.equal(out.mysql.status, 'ok');
    assert.deepEqual(out.mysql.per_execution.map((e) => e.k), [0, 1, 2, 3]);
    assert.equal(out.mysql.digest, out.postgres.digest);
    assert.deepEqual(out.mysql.params_of_first, out.postgres.params_of_first);
    assert.deepEqual(out.mysql.normalisation, out.postgres.normalisation);
  });

  test('explain: EXPLAIN ANALYZE of execution 0, the statement as sent', async () => {
    const def = set.queries['olap-a'];
    const p = def.params(data, 0);
    const e = await myt.explain(def.mysql(p, data));
    assert.match(e.command, /^EXPLAIN ANALYZE SELECT /);
    assert.deepEqual(e.values, ['IssuesEvent', 'opened', 10]);
    assert.match(e.plan, /actual time=/);
  });

  test('a feature the server lacks is a refusal (1235); a wrong statement is not', async () => {
    const refused = await myt.query({ sql: 'SELECT id FROM jsonbench WHERE id IN (SELECT id FROM jsonbench LIMIT 1)', values: [] }).catch((e) => e);
    assert.equal(refused.errno, 1235, String(refused));
    assert.equal(myt.isUnsupported(refused), true);
    const wrong = await myt.query({ sql: 'SELECT nope FROM jsonbench', values: [] }).catch((e) => e);
    assert.equal(wrong.errno, 1054);
    assert.equal(myt.isUnsupported(wrong), false);
  });
});
