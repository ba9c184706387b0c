'use strict';
// WORKLOAD=tsbs through the client's own commands (init, run, count), exactly as the lab runs
// them, on the real PostgreSQL and the SecantusDB stand-in (MongoDB protocol behaviour, not
// MongoDB results):
// - MODEL=event: both databases hold the generator's events under the same keys, value for value;
// - MODEL=bucket: the buckets hold exactly the events ingested (bucketCounts, counted back per
//   bucket from each database), keyed by the same UUIDv5 on both (and PostgreSQL's own
//   uuid_generate_v5 agrees), one update command per event on the MongoDB protocol;
// - MODEL=native: PostgreSQL's column table holds every event and has, from its creation, the
//   index MongoDB 6.3+ gives a time-series collection (metaField, timeField), reported by init as
//   an `index:` line; SecantusDB accepts `timeseries` but makes a plain collection (no buckets,
//   an _id index, no meta/time index), so init refuses it and so does validate-bench --stand-ins.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { Client } = require('pg');
const { startPostgres } = require('../helpers/postgres-server');
const { startSecantus } = require('../helpers/secantus-server');
const { runCli } = require('../helpers/run-cli');
const tsbs = require('../../src/datasets/tsbs-devops');
const { bucketCounts, eventCount } = require('../../src/datasets/tsbs-event-keys');
const { bucketKey, TSBS_BUCKET_NAMESPACE } = require('../../src/datasets/tsbs-bucket-key');
const { keyGenerator } = require('../../src/keys');
const { MongoTarget } = require('../../../databases/mongodb/client/mongodb');
const mongoTsbs = require('../../../databases/mongodb/client/workloads/tsbs');
const { seriesIndexes } = require('../../../databases/mongodb/client/workloads/tsbs/models');

const CLIENTS = 2;
// 5 hosts (client 1: 0, 2, 4; client 2: 1, 3), 30 s apart over 1 h 10 min from 00:40: three hours
// touched, partial first and last buckets.
const ENV = {
  KEY: 'uuidv7', LAYOUT: 'clustered', WORKLOAD: 'tsbs', CLIENTS: String(CLIENTS), RATE: '2000', SEED: '5',
  HOSTS: '5', INTERVAL_S: '30', SPAN_S: '4200', START: '2016-01-01T00:40:00Z',
};
const DATA = { seed: 5, hosts: 5, intervalSeconds: 30, spanSeconds: 4200, start: '2016-01-01T00:40:00Z' };
const EVENTS = eventCount(DATA);

const uuidText = (b) => { const h = b.toString('hex'); return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`; };
// A MongoDB document as the JSON it holds (Dates as ISO text, as jsonb holds them).
const asJson = (doc) => JSON.parse(JSON.stringify(doc));

async function ingest(server, model, resultDir) {
  const env = { ...ENV, MODEL: model, URI: server.uri };
  const init = await runCli(['init'], { env });
  assert.equal(init.code, 0, init.stderr + init.stdout);
  const results = [];
  for (let c = 1; c <= CLIENTS; c++) {
    const file = path.join(resultDir, `${server.name.split(' ')[0]}-${model}-${c}.json`);
    const r = await runCli(['run'], { env: { ...env, CLIENT_ID: String(c), RESULT: file }, timeoutMs: 180000 });
    assert.equal(r.code, 0, r.stderr + r.stdout);
    results.push(JSON.parse(fs.readFileSync(file, 'utf8')));
  }
  const count = await runCli(['count'], { env });
  assert.equal(count.code, 0, count.stderr);
  return { results, count: JSON.parse(count.stdout) };
}

test.describe('tsbs ingest models on PostgreSQL and SecantusDB (MongoDB stand-in)', () => {
  let pg; let fdb; let pgc; let dir;
  test.before(async () => {
    [pg, fdb] = await Promise.all([startPostgres(), startSecantus()]);
    pg.name = 'postgres';
    fdb.name = 'secantus';
    pgc = new Client({ connectionString: pg.uri });
    await pgc.connect();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jsonbench-tsbs-'));
  });
  test.after(async () => {
    if (pgc) await pgc.end();
    if (pg) await pg.cleanup();
    if (fdb) await fdb.cleanup();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  test('MODEL=event: the same keys and the generator\'s events, value for value, on both; results say which model ran', async () => {
    const p = await ingest(pg, 'event', dir);
    const m = await ingest(fdb, 'event', dir);
    for (const side of [p, m]) {
      assert.equal(side.count.documents, EVENTS);
      assert.equal(side.count.rows, EVENTS);
      assert.equal(side.count.model, 'event');
      const [r1, r2] = side.results;
      assert.deepEqual(Object.keys(r1.operations), ['insert']);
      assert.equal(r1.operations.insert.ok + r2.operations.insert.ok, EVENTS);
      assert.equal(r1.model, 'event');
      assert.equal(r1.tsbs.model, 'event');
      assert.deepEqual([r1.tsbs.host_ids, r2.tsbs.host_ids], [[0, 2, 4], [1, 3]]);
      // 00:40 .. 01:50 touches hours 00, 01: 2 host-hours per host
      assert.equal(r1.tsbs.host_hours + r2.tsbs.host_hours, 5 * 2);
      assert.ok(r1.timeline.seconds.length > 0);
    }
    // expected: client c's event i under key (seed, c, i)
    const expected = new Map();
    for (let c = 1; c <= CLIENTS; c++) {
      const keys = keyGenerator('uuidv7', { seed: 5, clientId: String(c) });
      let i = 0;
      for (const e of tsbs.events({ ...DATA, hostIds: tsbs.hostsOfClient(5, CLIENTS, c - 1) })) {
        expected.set(keys.buffer(i++).toString('hex'), tsbs.toJson(e));
      }
    }
    const pgRows = (await pgc.query("select encode(uuid_send(id), 'hex') as id, data::text as data from jsonbench")).rows;
    assert.equal(pgRows.length, EVENTS);
    for (const r of pgRows) assert.deepEqual(JSON.parse(r.data), JSON.parse(expected.get(r.id)), r.id);
    const docs = await fdb.withDb((db) => db.collection('jsonbench').find({}).toArray());
    assert.equal(docs.length, EVENTS);
    for (const { _id, ...doc } of docs) {
      const text = expected.get(Buffer.from(_id.buffer).toString('hex'));
      // BSON keeps the generator's key order: the same JSON text, byte for byte
      assert.equal(JSON.stringify(doc), text);
      assert.ok(doc.time instanceof Date);
    }
  });

  test('MODEL=bucket: every bucket holds exactly its events (bucketCounts), under the same UUIDv5 key on both', async () => {
    const p = await ingest(pg, 'bucket', dir);
    const m = await ingest(fdb, 'bucket', dir);
    const expected = bucketCounts(DATA);
    const byKey = new Map([...expected].map(([id, n]) => [bucketKey(id).toString('hex'), { id, n }]));
    for (const side of [p, m]) {
      assert.equal(side.count.documents, EVENTS, 'count: events = sum of the buckets\' arrays');
      assert.equal(side.count.rows, expected.size);
      const [r1, r2] = side.results;
      assert.deepEqual(Object.keys(r1.operations), ['bucket']);
      assert.equal(r1.operations.bucket.ok + r2.operations.bucket.ok, EVENTS);
      assert.equal(r1.tsbs.host_hours + r2.tsbs.host_hours, expected.size);
    }
    const pgRows = (await pgc.query(`select encode(uuid_send(id), 'hex') as id, data::text as data, jsonb_array_length(data->'events') as n
      from jsonbench`)).rows;
    assert.equal(pgRows.length, expected.size);
    const pgDocs = new Map();
    for (const r of pgRows) {
      assert.ok(byKey.has(r.id), `unexpected bucket key ${r.id}`);
      assert.equal(r.n, byKey.get(r.id).n, byKey.get(r.id).id);
      pgDocs.set(r.id, JSON.parse(r.data));
    }
    const docs = await fdb.withDb((db) => db.collection('jsonbench').find({}).toArray());
    assert.equal(docs.length, expected.size);
    const generated = new Map([...tsbs.buckets(DATA)].map((b) => [bucketKey(b._id).toString('hex'), b]));
    for (const { _id, ...doc } of docs) {
      const key = Buffer.from(_id.buffer).toString('hex');
      assert.equal(_id.sub_type, 4);
      assert.equal(doc.events.length, byKey.get(key).n, byKey.get(key).id);
      // the generator's bucket form, events in time order. Field order: the upsert builds the
      // document in lexicographic order of the updated fields (events, hour, tags: the stand-in as
      // MongoDB >= 5.0 documents for update operators), not the generator's; jsonb keeps no order.
      const { _id: textId, ...want } = generated.get(key);
      assert.deepEqual(Object.keys(doc), ['events', 'hour', 'tags']);
      assert.deepEqual(asJson(doc), asJson(want), textId);
      assert.equal(JSON.stringify(doc.events), JSON.stringify(want.events));
      assert.deepEqual(pgDocs.get(key), asJson(want));
    }
    // the key is PostgreSQL's own UUIDv5 of the bucket id (uuid-ossp), derived independently
    await pgc.query('create extension if not exists "uuid-ossp"');
    const { rows } = await pgc.query(`select id::text as id, uuid_generate_v5($1::uuid, $2) :: text as v5
      from jsonbench where id = $3`, [TSBS_BUCKET_NAMESPACE, 'host_3@2016-01-01T01:00:00.000Z', uuidText(bucketKey('host_3@2016-01-01T01:00:00.000Z'))]);
    assert.equal(rows.length, 1);
    assert.equal(rows[0].v5, rows[0].id);
  });

  test('MODEL=bucket on the MongoDB protocol: one update command per event ($setOnInsert + $push, upsert)', async () => {
    const target = new MongoTarget(fdb.uri, { monitorCommands: true });
    await target.connect();
    const commands = [];
    target.client.on('commandStarted', (e) => commands.push(e));
    try {
      const storage = { model: 'bucket', arrayField: 'events', series: null };
      await mongoTsbs.init(target, storage, { layout: 'heap' });
      await mongoTsbs.prepare(target, { ...storage, durability: 'strict', keyFormat: 'binary' });
      commands.length = 0;
      const some = [...tsbs.events({ ...DATA, hosts: 1, spanSeconds: 600 })];
      for (const e of some) {
        const b = tsbs.bucketOf(e);
        assert.equal(await mongoTsbs.models.bucket(target, bucketKey(b._id), { hour: b.hour, tags: b.tags }, 'events', tsbs.bucketEntry(e), {}), 1);
      }
      assert.deepEqual(commands.map((c) => c.commandName), some.map(() => 'update'));
      const u = commands[1].command;
      assert.equal(u.updates.length, 1);
      assert.equal(u.updates[0].upsert, true);
      assert.deepEqual(Object.keys(u.updates[0].u), ['$setOnInsert', '$push']);
      assert.deepEqual(u.writeConcern, { w: 1, j: true });
      const [doc] = await target.db.collection('jsonbench').find({}).toArray();
      assert.equal(doc.events.length, some.length);
    } finally {
      await target.close();
    }
  });

  test('MODEL=native: PostgreSQL\'s column table holds every event, with the meta+time index from creation; SecantusDB is refused, naming MODEL', async () => {
    const ddl = `create index jsonbench_tags_time on jsonbench (${[...tsbs.TAG_NAMES, 'time'].map((c) => `"${c}"`).join(', ')})`;
    const pinit = await runCli(['init'], { env: { ...ENV, MODEL: 'native', URI: pg.uri } });
    assert.equal(pinit.code, 0, pinit.stderr);
    assert.deepEqual(pinit.stdout.split('\n').filter((l) => l.startsWith('index: ')), [`index: ${ddl}`]);
    const p = await ingest(pg, 'native', dir);
    assert.equal(p.count.documents, EVENTS);
    assert.deepEqual(Object.keys(p.results[0].operations), ['insert']);
    const cols = (await pgc.query(`select column_name, data_type from information_schema.columns
      where table_name = 'jsonbench' order by ordinal_position`)).rows.map((r) => `${r.column_name} ${r.data_type}`);
    assert.deepEqual(cols, ['time timestamp with time zone', ...tsbs.TAG_NAMES.map((t) => `${t} text`), ...tsbs.FIELD_NAMES.map((f) => `${f} bigint`)]);
    const idx = (await pgc.query("select indexname, indexdef from pg_indexes where tablename = 'jsonbench'")).rows;
    assert.deepEqual(idx.map((r) => r.indexname), ['jsonbench_tags_time']);
    assert.match(idx[0].indexdef, new RegExp(`USING btree \\(${tsbs.TAG_NAMES.join(', ')}, "time"\\)$`));
    const { rows } = await pgc.query(`select * from jsonbench where hostname = 'host_4' order by time limit 1`);
    const first = [...tsbs.events({ ...DATA, hostIds: [4] })][0];
    assert.equal(rows[0].time.toISOString(), first.time.toISOString());
    assert.equal(rows[0].usage_user, String(first.usage_user)); // bigint comes back as text
    assert.equal(rows[0].rack, first.tags.rack);

    const init = await runCli(['init'], { env: { ...ENV, MODEL: 'native', URI: fdb.uri } });
    assert.equal(init.code, 2, init.stdout + init.stderr);
    assert.match(init.stderr, /MODEL=native: SecantusDB 0\.7\.0b3 accepted createCollection with timeseries but made a collection of type "collection", not "timeseries"/);
    // What the stand-in made (pinned: real MongoDB 8.0 lists type "timeseries", no _id index and
    // the {tags: 1, time: 1} index): a plain collection with only the _id index.
    await fdb.withDb(async (db) => {
      const [info] = await db.listCollections({ name: 'jsonbench' }).toArray();
      assert.equal(info.type, 'collection');
      assert.deepEqual(info.options.timeseries, { timeField: 'time', metaField: 'tags', granularity: 'seconds' });
      assert.deepEqual((await db.collection('jsonbench').listIndexes().toArray()).map((ix) => ix.key), [{ _id: 1 }]);
    });
  });

  test('MODEL=native on the MongoDB protocol: the meta+time index is read back, or created where the server did not make it', async () => {
    const target = new MongoTarget(fdb.uri);
    await target.connect();
    try {
      const storage = { model: 'native', series: { timeField: 'time', metaField: 'tags' } };
      // SecantusDB made no such index with the collection: the workload file's init creates it...
      assert.deepEqual(await seriesIndexes(target.db, 'jsonbench', storage), ['createIndex({"tags":1,"time":1}, {"name": "tags_1_time_1"}) (the server did not create it with the time-series collection)']);
      const keys = (await target.db.collection('jsonbench').listIndexes().toArray()).map((ix) => ix.key);
      assert.deepEqual(keys, [{ _id: 1 }, { tags: 1, time: 1 }]);
      // ...and where it exists (as MongoDB 6.3+ creates it), reports it as listed.
      assert.deepEqual(await seriesIndexes(target.db, 'jsonbench', storage), ['{"tags":1,"time":1} (name "tags_1_time_1": created by the server with the time-series collection)']);
      assert.deepEqual(await seriesIndexes(target.db, 'jsonbench', { model: 'event' }), []);
    } finally {
      await target.close();
    }

    const bench = path.join(dir, 'native.env');
    fs.writeFileSync(bench, 'DESCRIPTION=x\nKEY=uuidv7\nLAYOUT=heap\nCLIENTS=1\nRATE=10\nWORKLOAD=tsbs\nMODEL=native\n');
    const v = await runCli(['validate-bench', '--stand-ins', bench]);
    assert.equal(v.code, 2);
    assert.match(v.stderr, new RegExp(`${bench.replace(/[.]/g, '\\.')}:7: MODEL=native cannot run on the stand-ins`));
    assert.match(v.stderr, /allowed on the stand-ins: MODEL=event or MODEL=bucket, or MODEL=native with DATABASES=postgres/);
    assert.equal((await runCli(['validate-bench', bench])).code, 0, 'without --stand-ins (real MongoDB) it is valid');
  });
});
