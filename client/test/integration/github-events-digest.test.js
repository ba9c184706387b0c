'use strict';
// The seeded GitHub-archive-like events loaded identically into the real
// PostgreSQL (jsonb) and the SecantusDB stand-in; OnGres-style analytical
// queries (counts by type, top repositories, per-day activity) must give the
// same answer digest on both, and a different answer must be caught.
const test = require('node:test');
const assert = require('node:assert/strict');
const { Client } = require('pg');
const { MongoClient } = require('mongodb');
const { startPostgres } = require('../helpers/postgres-server');
const { startSecantus } = require('../helpers/secantus-server');
const gh = require('../../src/datasets/github-events');
const { digestRows, compareDigests, pgRows } = require('../../src/query-digest');

const DATA = { seed: 11, count: 3000, repos: 2000, actors: 4000, spanSeconds: 3 * 86400 };
const NAMES = { names: ['postgres', 'mongodb'] };
const DAYS = ['2015-01-01', '2015-01-02', '2015-01-03'];

test.describe('query digest: GitHub-like events on PostgreSQL jsonb and SecantusDB (MongoDB stand-in)', () => {
  let pg; let sdb; let pgc; let mc; let coll;
  const events = [...gh.events(DATA)];

  test.before(async () => {
    [pg, sdb] = await Promise.all([startPostgres(), startSecantus()]);
    pgc = new Client({ connectionString: pg.uri });
    await pgc.connect();
    await pgc.query('create table gh_events (id bigint generated always as identity primary key, data jsonb not null)');
    for (let i = 0; i < events.length; i += 500) {
      await pgc.query('insert into gh_events (data) select x::jsonb from unnest($1::text[]) as x', [events.slice(i, i + 500).map(gh.toJson)]);
    }
    mc = new MongoClient(sdb.uri, { serverSelectionTimeoutMS: 5000 });
    await mc.connect();
    coll = mc.db().collection('gh_events');
    await coll.deleteMany({});
    // insertMany adds _id to the objects it is given: give it copies (the same values).
    for (let i = 0; i < events.length; i += 500) await coll.insertMany(events.slice(i, i + 500).map((e) => JSON.parse(gh.toJson(e))));
  });
  test.after(async () => {
    if (pgc) await pgc.end();
    if (mc) await mc.close();
    if (pg) await pg.cleanup();
    if (sdb) await sdb.cleanup();
  });

  test('both hold exactly the generated events', async () => {
    const gen = digestRows(events);
    const a = digestRows((await pgc.query('select data from gh_events')).rows.map((r) => r.data));
    const b = digestRows(await coll.find({}, { projection: { _id: 0 } }).toArray());
    assert.equal(a.rows, DATA.count);
    assert.equal(compareDigests(gen, a, { names: ['generator', 'postgres'] }).equal, true);
    const c = compareDigests(a, b, NAMES);
    assert.equal(c.equal, true, c.message);
  });

  test('events per type: same digest on both; an answer without one type is caught', async () => {
    const opts = { columns: { type: 'type', n: 'n' } };
    const sql = "select data->>'type' as type, count(*) as n from gh_events group by 1";
    const a = digestRows(pgRows(await pgc.query(sql)), opts);
    const b = digestRows(await coll.aggregate([{ $group: { _id: '$type', n: { $sum: 1 } } }]).toArray(), { columns: { type: '_id', n: 'n' } });
    assert.ok(a.rows >= 12);
    const same = compareDigests(a, b, NAMES);
    assert.equal(same.equal, true, same.message);
    const fewer = digestRows(await coll.aggregate([
      { $match: { type: { $ne: 'PublicEvent' } } }, { $group: { _id: '$type', n: { $sum: 1 } } },
    ]).toArray(), { columns: { type: '_id', n: 'n' } });
    const caught = compareDigests(a, fewer, NAMES);
    assert.equal(caught.equal, false);
    assert.match(caught.message, /answers differ at row \d+/);
  });

  test('top 10 repositories by events (ordered): same digest on both', async () => {
    const opts = { columns: { repo: 'repo', n: 'n' }, ordered: true };
    const sql = `select data->'repo'->>'name' as repo, count(*) as n from gh_events
      group by 1 order by n desc, repo asc limit 10`;
    const a = digestRows(pgRows(await pgc.query(sql)), opts);
    const b = digestRows(await coll.aggregate([
      { $group: { _id: '$repo.name', n: { $sum: 1 } } }, { $sort: { n: -1, _id: 1 } }, { $limit: 10 },
    ]).toArray(), { columns: { repo: '_id', n: 'n' }, ordered: true });
    assert.equal(a.rows, 10);
    const same = compareDigests(a, b, NAMES);
    assert.equal(same.equal, true, same.message);
  });

  test('PushEvent commits per day: one $group with two accumulators, as PostgreSQL', async () => {
    const opts = { columns: ['day', 'pushes', 'commits'], ordered: true };
    const sql = `select left(data->>'created_at', 10) as day, count(*) as pushes,
      sum((data->'payload'->>'size')::int) as commits
      from gh_events where data->>'type' = 'PushEvent' group by 1 order by 1`;
    const a = digestRows(pgRows(await pgc.query(sql)), opts);
    assert.equal(a.rows, DAYS.length);
    const b = digestRows(await coll.aggregate([
      { $match: { type: 'PushEvent' } },
      { $group: { _id: { $substrBytes: ['$created_at', 0, 10] }, pushes: { $sum: 1 }, commits: { $sum: '$payload.size' } } },
      { $sort: { _id: 1 } }, { $project: { _id: 0, day: '$_id', pushes: 1, commits: 1 } },
    ]).toArray(), opts);
    const cmp = compareDigests(a, b, NAMES);
    assert.equal(cmp.equal, true, cmp.message);
    assert.ok(a.sample.every((r) => r[2] > 0), 'every day has commits (the second accumulator is computed)');
  });
});
