'use strict';
// Against a real PostgreSQL started by the test (Debian's packages).
const test = require('node:test');
const assert = require('node:assert/strict');
const { startPostgres } = require('../helpers/postgres-server');
const { runCli, startCli } = require('../helpers/run-cli');
const { sleep } = require('../helpers/processes');
const { DocumentGenerator } = require('../../src/docgen');
const { PostgresTarget } = require('../../../databases/postgres/client/postgres');
const { sharedCases, tmpResult, readResult, SHAPE } = require('./shared-cases');

const countInDb = async (s) => Number((await s.query('select count(*) as n from jsonbench')).rows[0].n);

sharedCases({
  name: 'PostgreSQL', label: 'PostgreSQL', product: 'PostgreSQL', database: 'postgres', start: startPostgres, countInDb,
});

test.describe('PostgreSQL: DDL, stored documents, durability, reconnect, metrics', () => {
  let pg;
  test.before(async () => { pg = await startPostgres(); });
  test.after(async () => { if (pg) await pg.cleanup(); });

  const columns = async () => (await pg.query(`select column_name, data_type, is_nullable, is_identity, identity_generation
    from information_schema.columns where table_name = 'jsonbench' order by ordinal_position`)).rows;
  const primaryKey = async () => (await pg.query(`select a.attname from pg_index i
    join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
    where i.indrelid = 'jsonbench'::regclass and i.indisprimary`)).rows.map((r) => r.attname);

  test('init uuid keys: id uuid primary key, data jsonb not null, a heap', async () => {
    const r = await runCli(['init', '--uri', pg.uri, '--key', 'uuidv4', '--layout', 'clustered']);
    assert.equal(r.code, 0, r.stderr);
    // the binding's layoutNote: LAYOUT=clustered is said not to apply
    assert.match(r.stdout, /^PostgreSQL [^:]+: create table jsonbench \(id uuid primary key, data jsonb not null\) \(PostgreSQL is always a heap; layout applies to MongoDB\)\n$/);
    const cols = await columns();
    assert.deepEqual(cols.map((c) => [c.column_name, c.data_type, c.is_nullable, c.is_identity]),
      [['id', 'uuid', 'NO', 'NO'], ['data', 'jsonb', 'NO', 'NO']]);
    assert.deepEqual(await primaryKey(), ['id']);
    const { rows } = await pg.query(`select c.relkind, am.amname as am from pg_class c join pg_am am on am.oid = c.relam where c.relname = 'jsonbench'`);
    assert.deepEqual(rows[0], { relkind: 'r', am: 'heap' });
  });

  test('init sequence: bigint identity (always, cache 100) primary key; init drops earlier data', async () => {
    await runCli(['init', '--uri', pg.uri, '--key', 'uuidv4', '--layout', 'heap']);
    await pg.query(`insert into jsonbench (id, data) values (gen_random_uuid(), '{}')`);
    const r = await runCli(['init', '--uri', pg.uri, '--key', 'sequence', '--layout', 'heap']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^PostgreSQL [^:]+: create table jsonbench \(id bigint generated always as identity \(cache 100\) primary key, data jsonb not null\)\n$/);
    const cols = await columns();
    assert.deepEqual(cols.map((c) => [c.column_name, c.data_type, c.is_identity, c.identity_generation]),
      [['id', 'bigint', 'YES', 'ALWAYS'], ['data', 'jsonb', 'NO', null]]);
    assert.deepEqual(await primaryKey(), ['id']);
    const seq = await pg.query(`select s.seqcache from pg_sequence s where s.seqrelid = pg_get_serial_sequence('jsonbench', 'id')::regclass`);
    assert.equal(Number(seq.rows[0].seqcache), 100);
    assert.equal(await countInDb(pg), 0);
  });

  test('sequence run: database-made ids, the seeded documents stored byte for byte', async () => {
    const r = await runCli(['run', '--uri', pg.uri, '--key', 'sequence', '--layout', 'heap', '--fields', '3', '--field-bytes', '50',
      '--rate', '200', '--docs', '40', '--seed', '9', '--client-id', '2', '--durability', 'relaxed']);
    assert.equal(r.code, 0, r.stderr);
    const { rows } = await pg.query('select id, data::text as data from jsonbench order by id');
    assert.deepEqual(rows.map((x) => Number(x.id)), Array.from({ length: 40 }, (_, i) => i + 1));
    const gen = new DocumentGenerator({ seed: 9, clientId: '2', fields: 3, fieldBytes: 50 });
    // jsonb prints `"k": "v"` with a space; compare parsed documents in order.
    assert.deepEqual(rows.map((x) => JSON.parse(x.data)), Array.from({ length: 40 }, (_, i) => gen.object(i)));
  });

  test('uuidv7 run: ids are version 7 and increase in insert order', async () => {
    await runCli(['init', '--uri', pg.uri, '--key', 'uuidv7', '--layout', 'heap']);
    const r = await runCli(['run', '--uri', pg.uri, '--key', 'uuidv7', '--layout', 'heap', ...SHAPE, '--rate', '500', '--docs', '300']);
    assert.equal(r.code, 0, r.stderr);
    const { rows } = await pg.query('select id::text as id from jsonbench order by ctid');
    assert.equal(rows.length, 300);
    assert.ok(rows.every((x) => x.id[14] === '7'));
    const ids = rows.map((x) => x.id);
    assert.deepEqual([...ids].sort(), ids);
  });

  test('a failed insert (duplicate key) rejects with the server\'s code; the session carries on', { timeout: 20000 }, async () => {
    await runCli(['init', '--uri', pg.uri, '--key', 'uuidv4', '--layout', 'heap']);
    const target = new PostgresTarget(pg.uri);
    await target.connect();
    try {
      await target.prepareInserts({ key: 'uuidv4', durability: 'strict' });
      const gen = new DocumentGenerator({ seed: 1, clientId: 'dup', fields: 2, fieldBytes: 10 });
      // A key source that repeats itself, in the shape of keys.js generators.
      const fixedKey = (hex) => ({ into: (index, b) => Buffer.from(hex, 'hex').copy(b) });
      const key = fixedKey('0190f3c5a1b27c3d8e4f5a6b7c8d9e0f');
      await target.send(target.build(gen, 0, key));
      const err = await target.send(target.build(gen, 1, key)).then(() => null, (e) => e);
      assert.equal(err?.code, '23505', String(err));
      assert.equal(target.isConnectionLost(err), false);
      await target.send(target.build(gen, 2, fixedKey('0190f3c5a1b27c3d8e4f5a6b7c8d9e10')));
      const { rows } = await pg.query('select id::text as id, data::text as data from jsonbench order by id');
      assert.deepEqual(rows.map((x) => x.id), ['0190f3c5-a1b2-7c3d-8e4f-5a6b7c8d9e0f', '0190f3c5-a1b2-7c3d-8e4f-5a6b7c8d9e10']);
      assert.deepEqual(rows.map((x) => JSON.parse(x.data)), [gen.object(0), gen.object(2)]);
    } finally {
      await target.close();
    }
  });

  test('a database slower than the rate: start lag grows with the queue, the scheduler\'s own lag does not', { timeout: 60000 }, async () => {
    await runCli(['init', '--uri', pg.uri, '--key', 'uuidv4', '--layout', 'heap']);
    // Every insert takes >= 20 ms in the server; 100 docs/s offers one per 10 ms.
    await pg.query(`create function jsonbench_slow() returns trigger language plpgsql as
      $$ begin perform pg_sleep(0.02); return new; end $$`);
    await pg.query('create trigger jsonbench_slow before insert on jsonbench for each row execute function jsonbench_slow()');
    const out = tmpResult();
    try {
      const r = await runCli(['run', '--uri', pg.uri, '--key', 'uuidv4', '--layout', 'heap', ...SHAPE,
        '--rate', '100', '--docs', '100', '--result', out.file], { timeoutMs: 30000 });
      assert.equal(r.code, 0, r.stderr);
      const res = readResult(out.file);
      assert.equal(res.docs_ok, 100);
      assert.ok(res.service_ms.p50 >= 20, `service p50 ${res.service_ms.p50}`);
      // Document i waits for the i inserts before it: ~10 ms more each.
      assert.ok(res.start_lag_ms.max >= 500, `start lag max ${res.start_lag_ms.max}`);
      // the client's own lateness stays small while the queue grows: a timing figure of the machine,
      // printed with met/MISSED by `npm run bench` (bench/slow-database.js), not asserted here
    } finally {
      out.cleanup();
      await pg.query('drop function jsonbench_slow() cascade');
    }
  });

  test('server restarted mid-run: errors counted, client reconnects and carries on', async () => {
    await runCli(['init', '--uri', pg.uri, '--key', 'uuidv4', '--layout', 'heap']);
    const out = tmpResult();
    try {
      const run = startCli(['run', '--uri', pg.uri, '--key', 'uuidv4', '--layout', 'heap', ...SHAPE,
        '--rate', '100', '--docs', '500', '--reconnect-timeout-s', '30', '--result', out.file], { timeoutMs: 60000 });
      await sleep(1500);
      await pg.restart();
      const r = await run.done;
      assert.equal(r.code, 1, r.stdout + r.stderr); // some inserts failed
      const res = readResult(out.file);
      assert.ok(res.errors >= 1);
      assert.ok(res.reconnects >= 1, r.stdout);
      assert.equal(res.gave_up, null);
      assert.equal(res.docs_ok + res.errors + res.dropped, 500, 'every document settled, schedule carried on');
      assert.equal(res.docs_ok, await countInDb(pg));
      assert.match(r.stdout, /reconnected after/);
    } finally {
      out.cleanup();
    }
  });

  test('Prometheus endpoint: contract metric names and labels while running; target rate gone after', async () => {
    await runCli(['init', '--uri', pg.uri, '--key', 'uuidv7', '--layout', 'heap']);
    const port = await require('../helpers/processes').freePort();
    const run = startCli(['run', '--uri', pg.uri, '--key', 'uuidv7', '--layout', 'heap', ...SHAPE, '--rate', '100', '--docs', '200',
      '--metrics-port', String(port), '--metrics-linger-s', '3'], { timeoutMs: 30000, env: { BENCH: 'bench9', CLIENT_ID: '5' } });
    const scrape = async () => (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    let body = '';
    for (let i = 0; i < 50 && !/jsonbench_client_docs_ok_total\{[^}]*\} [1-9]/.test(body); i++) {
      await sleep(100);
      body = await scrape().catch(() => '');
    }
    const labels = 'bench="bench9",database="postgres",client_id="5"';
    // Operation series carry `op` too.
    assert.match(body, new RegExp(`jsonbench_client_docs_ok_total\\{op="insert",${labels}\\} [1-9]`));
    assert.match(body, new RegExp(`jsonbench_client_target_rate\\{${labels}\\} 100`));
    for (const m of ['jsonbench_client_errors_total', 'jsonbench_client_dropped_total', 'jsonbench_client_latency_seconds_bucket',
      'jsonbench_client_service_seconds_count', 'process_cpu_user_seconds_total']) assert.match(body, new RegExp(m));
    while (/jsonbench_client_target_rate\{/.test(body)) {
      await sleep(200);
      body = await scrape();
    }
    assert.match(body, new RegExp(`jsonbench_client_docs_ok_total\\{op="insert",${labels}\\} 200`));
    assert.match(body, new RegExp(`jsonbench_client_latency_seconds_count\\{${labels},op="insert"\\} 200`));
    const r = await run.done;
    assert.equal(r.code, 0, r.stderr);
  });
});
