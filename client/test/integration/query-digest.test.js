'use strict';
// One TSBS query answered by the real PostgreSQL (SQL over jsonb) and by the
// SecantusDB stand-in (aggregation pipeline) on the same seeded data: the
// digests of both answers must be equal, and a different answer must be
// caught. Every MongoDB form below is one real MongoDB runs; each must give
// PostgreSQL's answer on the stand-in.
const test = require('node:test');
const assert = require('node:assert/strict');
const { Client } = require('pg');
const { MongoClient, Long } = require('mongodb');
const { startPostgres } = require('../helpers/postgres-server');
const { startSecantus } = require('../helpers/secantus-server');
const tsbs = require('../../src/datasets/tsbs-devops');
const { digestRows, compareDigests, pgRows } = require('../../src/query-digest');

const DATA = { seed: 42, hosts: 3, intervalSeconds: 10, spanSeconds: 2 * 3600 + 600 }; // 3 clock hours
const HOST = 'host_1';
const HOUR_MS = 3600 * 1000;
const NAMES = { names: ['postgres', 'mongodb'] };

// max(usage_user) per hour for one host, ordered by hour.
const SQL = `select date_trunc('hour', (data->>'time')::timestamptz, 'UTC') as hour,
  max((data->>'usage_user')::int) as max_user
  from tsbs_cpu where data->'tags'->>'hostname' = $1 group by 1 order by 1`;
const PIPELINE = (host) => [
  { $match: { 'tags.hostname': host } },
  { $group: { _id: { $dateTrunc: { date: '$time', unit: 'hour' } }, max_user: { $max: '$usage_user' } } },
  { $sort: { _id: 1 } },
];
const PG_OPTS = { columns: ['hour', 'max_user'], ordered: true };
const MONGO_OPTS = { columns: { hour: '_id', max_user: 'max_user' }, ordered: true };

// The MongoDB forms, most direct first; each is one real MongoDB runs, and each is checked.
const hours = () => {
  const start = Date.parse('2016-01-01T00:00:00Z');
  return Array.from({ length: 3 }, (_, i) => new Date(start + i * HOUR_MS));
};
const MONGO_FORMS = [
  { name: '$group by {$dateTrunc} with $max (one pipeline)', run: (coll, host) => coll.aggregate(PIPELINE(host)).toArray() },
  {
    name: 'per hour: $match time range + $group {_id: null, $max}',
    run: async (coll, host) => {
      const out = [];
      for (const h of hours()) {
        const [r] = await coll.aggregate([
          { $match: { 'tags.hostname': host, time: { $gte: h, $lt: new Date(h.getTime() + HOUR_MS) } } },
          { $group: { _id: null, max_user: { $max: '$usage_user' } } },
        ]).toArray();
        if (r) out.push({ _id: h, max_user: r.max_user });
      }
      return out;
    },
  },
  {
    name: 'per hour: find time range, sort usage_user desc, limit 1',
    run: async (coll, host) => {
      const out = [];
      for (const h of hours()) {
        const [r] = await coll.find({ 'tags.hostname': host, time: { $gte: h, $lt: new Date(h.getTime() + HOUR_MS) } })
          .sort({ usage_user: -1 }).limit(1).toArray();
        if (r) out.push({ _id: h, max_user: r.usage_user });
      }
      return out;
    },
  },
];

test.describe('query digest: PostgreSQL jsonb vs SecantusDB (MongoDB stand-in) on TSBS devops data', () => {
  let pg; let sdb; let pgc; let mc; let coll;
  const events = [...tsbs.events(DATA)];

  test.before(async () => {
    [pg, sdb] = await Promise.all([startPostgres(), startSecantus()]);
    pgc = new Client({ connectionString: pg.uri });
    await pgc.connect();
    await pgc.query('create table tsbs_cpu (id bigint generated always as identity primary key, data jsonb not null)');
    for (let i = 0; i < events.length; i += 500) {
      const batch = events.slice(i, i + 500).map(tsbs.toJson);
      await pgc.query('insert into tsbs_cpu (data) select x::jsonb from unnest($1::text[]) as x', [batch]);
    }
    mc = new MongoClient(sdb.uri, { serverSelectionTimeoutMS: 5000 });
    await mc.connect();
    coll = mc.db().collection('tsbs_cpu');
    await coll.deleteMany({});
    // insertMany adds _id to the objects it is given: give it copies.
    for (let i = 0; i < events.length; i += 500) await coll.insertMany(events.slice(i, i + 500).map((e) => ({ ...e })));
  });
  test.after(async () => {
    if (pgc) await pgc.end();
    if (mc) await mc.close();
    if (pg) await pg.cleanup();
    if (sdb) await sdb.cleanup();
  });

  test('both hold exactly the generated events (digest of the whole data set)', async () => {
    assert.equal(events.length, 3 * 780);
    const pgData = (await pgc.query('select data from tsbs_cpu')).rows.map((r) => r.data);
    const mongoData = await coll.find({}, { projection: { _id: 0 } }).toArray();
    const gen = digestRows(events);
    const a = digestRows(pgData); const b = digestRows(mongoData);
    assert.equal(a.rows, events.length);
    assert.deepEqual(compareDigests(gen, a, { names: ['generator', 'postgres'] }).equal, true);
    const c = compareDigests(a, b, NAMES);
    assert.equal(c.equal, true, c.message);
  });

  test(`max(usage_user) per hour for ${HOST}: the same digest on both; another host's answer is caught`, async (t) => {
    const pgAnswer = digestRows(pgRows(await pgc.query(SQL, [HOST])), PG_OPTS);
    // The expected answer, from the generator itself.
    const expected = new Map();
    for (const e of events) {
      if (e.tags.hostname !== HOST) continue;
      const h = tsbs.hourOf(e.time.getTime());
      expected.set(h, Math.max(expected.get(h) ?? -1, e.usage_user));
    }
    const fromGen = digestRows([...expected].map(([h, m]) => ({ hour: new Date(h), max_user: m })), PG_OPTS);
    assert.equal(pgAnswer.rows, 3);
    assert.equal(compareDigests(fromGen, pgAnswer, { names: ['generator', 'postgres'] }).equal, true);

    for (const form of MONGO_FORMS) {
      const mongoAnswer = digestRows(await form.run(coll, HOST), MONGO_OPTS);
      const otherHost = digestRows(await form.run(coll, 'host_2'), MONGO_OPTS);
      const same = compareDigests(pgAnswer, mongoAnswer, NAMES);
      assert.equal(same.equal, true, `${form.name}: ${same.message}`);
      const caught = compareDigests(pgAnswer, otherHost, NAMES);
      assert.equal(caught.equal, false, form.name);
      assert.match(caught.message, /answers differ at row \d+/);
      t.diagnostic(`MongoDB form checked on SecantusDB: ${form.name}`);
    }
  });

  // Integers beyond 2^53 as the servers give them back: pg bigint (text) and a BSON Long stored in
  // and read from the stand-in: each value digests equal across the two, and 2^53 != 2^53 + 1.
  test('bigint beyond 2^53: PostgreSQL int8 = BSON Long read back; neighbours differ; null is not a missing field', async () => {
    const values = ['9007199254740992', '9007199254740993', '-9223372036854775807'];
    const big = mc.db().collection('big');
    await big.insertMany(values.map((v, i) => ({ i, n: Long.fromString(v) })));
    const opts = { columns: { i: 'i', n: 'n' }, ordered: true };
    const pgOf = async (i, v) => digestRows(pgRows(await pgc.query('select $1::int as i, $2::bigint as n', [i, v])), opts);
    const mongoOf = async (i) => digestRows(await big.find({ i }, { projection: { _id: 0 } }).toArray(), opts);
    const digests = [];
    for (const [i, v] of values.entries()) {
      const a = await pgOf(i, v);
      const c = compareDigests(a, await mongoOf(i), NAMES);
      assert.equal(c.equal, true, `${v}: ${c.message}`);
      digests.push(a.sample[0][1]);
    }
    assert.deepEqual(digests, values.map((v) => ({ $int: v })), '2^53 and 2^53 + 1 keep every digit');
    // A field holding null (PostgreSQL NULL, BSON null) vs a document without it.
    await big.insertMany([{ i: 10, n: null }, { i: 11 }]);
    const withNull = digestRows(await big.find({ i: 10 }, { projection: { _id: 0 } }).toArray(), { columns: { n: 'n' } });
    const without = digestRows(await big.find({ i: 11 }, { projection: { _id: 0 } }).toArray(), { columns: { n: 'n' } });
    const pgNull = digestRows(pgRows(await pgc.query('select null::bigint as n')), { columns: ['n'] });
    assert.equal(compareDigests(pgNull, withNull).equal, true);
    assert.equal(compareDigests(pgNull, without).equal, false);
  });
});
