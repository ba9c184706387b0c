'use strict';
// The TSBS query set (client/src/queries/tsbs-devops-queries.js) on the real PostgreSQL and the
// SecantusDB stand-in (0.7.0b3, a MongoDB wire server on WiredTiger), over a small seeded tsbs data
// set loaded in the event and in the bucket layout (docs/contracts.md "Storage layout"; each model
// in its own database, both in a table / collection named jsonbench, with the set's declared indexes).
// Every query's answer is checked four ways, for a few executions k:
// - PostgreSQL's digest equals the digest of the answer computed here in plain JS from the
//   generator's events (an independent reading of each query's definition, docs/datasets.md);
// - the event and the bucket model give the same digest;
// - the exact MongoDB pipeline evaluated by mingo (kofrasa/mingo, an in-memory implementation of
//   MongoDB's query language; a dev dependency) over the documents read back from the stand-in
//   gives PostgreSQL's digest;
// - the stand-in runs the same pipeline and gives PostgreSQL's digest (SecantusDB 0.7.0b3 runs all
//   13 on both models; a form it refused or answered wrongly would fail here, to be pinned with its
//   words). Neither mingo nor SecantusDB is MongoDB (none is here); together they show the
//   pipelines mean what the SQL means.
// And a deliberately different answer (>= for >, a host dropped) must be caught.
const test = require('node:test');
const assert = require('node:assert/strict');
const { Client } = require('pg');
const { MongoClient, UUID } = require('mongodb');
const mingo = require('mingo');
const { startPostgres } = require('../helpers/postgres-server');
const { startSecantus } = require('../helpers/secantus-server');
const tsbs = require('../../src/datasets/tsbs-devops');
const { queryNames, querySet } = require('../../src/queries');
// The set with every database's forms (databases/<name>/client/queries/tsbs.js).
const set = querySet('tsbs');
const { digestRows, compareDigests, pgRows } = require('../../src/query-digest');

// 10 hosts, 13 h at 60 s: the 12 h windows fit, starting on any second of the first hour.
const DATA = { seed: 7, hosts: 10, start: '2016-01-01T00:00:00Z', intervalSeconds: 60, spanSeconds: 13 * 3600 };
const KS = [0, 1, 2];
const MODELS = ['event', 'bucket'];
const HOUR_MS = 3600 * 1000;
const MINUTE_MS = 60 * 1000;
const { FIELD_NAMES } = tsbs;

// The query phase's digest options per database (its forms' paths: where its answers hold a column).
const { digestOptionsFor: digestOptions } = require('../../src/workloads/query');

// The index translation the contract gives the bindings (docs/contracts.md "Query sets").
const pgIndexDdl = (ix) => `create index ${ix.name} on jsonbench (${ix.fields.map((f) => (f.type === 'number'
  ? `(((data #>> '{${f.path.split('.').join(',')}}')::numeric))` : `(data #>> '{${f.path.split('.').join(',')}}')`)).join(', ')})`;

// ---- the independent reading: each query's answer in plain JS from the generator's events -----
const EVENTS = [...tsbs.events(DATA)];
const floorTo = (ms, unit) => ms - (ms % unit);
const iso = (ms) => new Date(ms).toISOString();
const byteOrder = (a, b) => (a < b ? -1 : a > b ? 1 : 0);

function inWindow(p) {
  const from = p.from ? Date.parse(p.from) : -Infinity;
  const to = p.to ? Date.parse(p.to) : Infinity;
  const hosts = p.hostnames ? new Set(p.hostnames) : null;
  return EVENTS.filter((e) => e.time.getTime() >= from && e.time.getTime() < to && (!hosts || hosts.has(e.tags.hostname)));
}

function groupBy(events, keyOf) {
  const m = new Map();
  for (const e of events) {
    const k = keyOf(e);
    if (!m.has(k)) m.set(k, []);
    m.get(k).push(e);
  }
  return m;
}

function maxPerMinute(events, metrics) {
  return [...groupBy(events, (e) => floorTo(e.time.getTime(), MINUTE_MS))].map(([minute, es]) => {
    const row = { minute: iso(minute) };
    for (const m of metrics) row[`max_${m}`] = Math.max(...es.map((e) => e[m]));
    return row;
  }).sort((a, b) => byteOrder(a.minute, b.minute));
}

function expectedRows(name, p) {
  if (name.startsWith('single-groupby-')) return maxPerMinute(inWindow(p), p.metrics);
  if (name === 'groupby-orderby-limit') return maxPerMinute(inWindow(p), p.metrics).reverse().slice(0, p.limit);
  if (name.startsWith('double-groupby-')) {
    return [...groupBy(inWindow(p), (e) => `${iso(floorTo(e.time.getTime(), HOUR_MS))} ${e.tags.hostname}`)].map(([k, es]) => {
      const [hour, hostname] = k.split(' ');
      const row = { hour, hostname };
      for (const m of p.metrics) row[`avg_${m}`] = es.reduce((s, e) => s + e[m], 0) / es.length;
      return row;
    }).sort((a, b) => byteOrder(a.hour, b.hour) || byteOrder(a.hostname, b.hostname));
  }
  if (name.startsWith('high-cpu-')) {
    return inWindow(p).filter((e) => e.usage_user > p.threshold).map((e) => ({
      time: e.time.toISOString(), tags: { hostname: e.tags.hostname }, ...Object.fromEntries(FIELD_NAMES.map((m) => [m, e[m]])),
    }));
  }
  if (name === 'lastpoint') {
    return [...groupBy(EVENTS, (e) => e.tags.hostname)].map(([hostname, es]) => {
      const last = es.reduce((a, e) => (e.time > a.time ? e : a));
      return { hostname, time: last.time.toISOString(), ...Object.fromEntries(FIELD_NAMES.map((m) => [m, last[m]])) };
    }).sort((a, b) => byteOrder(a.hostname, b.hostname));
  }
  throw new Error(`no JS reading of ${name}`);
}

test.describe('TSBS query set on PostgreSQL jsonb and SecantusDB (MongoDB stand-in), event and bucket models', () => {
  let pg; let sdb; let mc;
  const pgc = {}; const mdb = {}; const stored = {};
  const data = Object.fromEntries(MODELS.map((model) => [model, set.dataOf({
    seed: DATA.seed, hosts: DATA.hosts, start: DATA.start, intervalS: DATA.intervalSeconds, spanS: DATA.spanSeconds, model,
  })]));

  test.before(async () => {
    [pg, sdb] = await Promise.all([startPostgres(), startSecantus()]);
    mc = new MongoClient(sdb.uri, { serverSelectionTimeoutMS: 5000 });
    await mc.connect();
    for (const model of MODELS) {
      await pg.query(`create database tsbs_${model}`);
      const c = new Client({ connectionString: pg.uri.replace(/\/postgres$/, `/tsbs_${model}`) });
      await c.connect();
      pgc[model] = c;
      await c.query('create table jsonbench (id uuid primary key, data jsonb not null)');
      mdb[model] = mc.db(`tsbs_${model}`);
      const coll = mdb[model].collection('jsonbench');
      for (const ix of set.indexes(data[model])) {
        await c.query(pgIndexDdl(ix));
        await coll.createIndex(Object.fromEntries(ix.fields.map((f) => [f.path, 1])), { name: ix.name });
      }
      // The stored forms (docs/contracts.md "Storage layout"): jsonb = the JSON text without the
      // key; MongoDB = the object with Dates, keyed by a binary UUID.
      const docs = model === 'event' ? EVENTS : [...tsbs.buckets(DATA)].map(({ _id, ...b }) => b); // eslint-disable-line no-unused-vars
      for (let i = 0; i < docs.length; i += 500) {
        const part = docs.slice(i, i + 500);
        await c.query('insert into jsonbench (id, data) select gen_random_uuid(), x::jsonb from unnest($1::text[]) as x', [part.map(tsbs.toJson)]);
        await coll.insertMany(part.map((d) => ({ _id: new UUID(), ...d })));
      }
      await c.query('analyze jsonbench');
      stored[model] = await coll.find({}).toArray(); // what mingo evaluates the pipelines over
    }
  });
  test.after(async () => {
    for (const c of Object.values(pgc)) await c.end();
    if (mc) await mc.close();
    if (pg) await pg.cleanup();
    if (sdb) await sdb.cleanup();
  });

  test('the set names exactly the tsbs query names, in order; MODEL=native has no forms', () => {
    assert.deepEqual(Object.keys(set.queries), queryNames('tsbs'));
    const p = set.queries.lastpoint.params(data.event, 0);
    assert.throws(() => set.queries.lastpoint.postgres(p, { ...data.event, model: 'native' }), /MODEL=native has no query forms/);
    assert.equal(EVENTS.length, 10 * 13 * 60);
  });

  const pgDigests = {}; // name -> model -> k -> digest
  const standinMs = {}; // 'name model' -> the stand-in's wall times (ms), reported at the end
  const pgMs = {}; // the same for PostgreSQL
  const runPg = async (name, model, k) => {
    const def = set.queries[name];
    const p = def.params(data[model], k);
    const form = def.postgres(p, data[model]);
    const t0 = process.hrtime.bigint();
    const answer = await pgc[model].query(form);
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    return { p, form, ms, d: digestRows(pgRows(answer), digestOptions(def.digest, 'postgres')) };
  };

  for (const name of queryNames('tsbs')) {
    test(`${name}: PostgreSQL = the JS reading = the MongoDB pipeline under mingo, on both models; event = bucket; SecantusDB gives the same digest`, async (t) => {
      const def = set.queries[name];
      pgDigests[name] = {};
      let rows = 0;
      for (const model of MODELS) {
        pgDigests[name][model] = {};
        for (const k of KS) {
          const { p, d, ms } = await runPg(name, model, k);
          (pgMs[`${name} ${model}`] ||= []).push(ms);
          assert.deepEqual(JSON.parse(JSON.stringify(p)), p, 'params are JSON-able');
          const js = digestRows(expectedRows(name, p), digestOptions(def.digest, 'postgres'));
          const c = compareDigests(js, d, { names: ['js', 'postgres'] });
          assert.equal(c.equal, true, `${model} k=${k}: ${c.message}`);
          pgDigests[name][model][k] = d;
          rows += d.rows;

          const pipeline = def.mongodb(p, data[model]).aggregate;
          const mi = digestRows(mingo.aggregate(structuredClone(stored[model]), pipeline), digestOptions(def.digest, 'mongodb'));
          const cmi = compareDigests(d, mi, { names: ['postgres', 'mingo'] });
          assert.equal(cmi.equal, true, `${model} k=${k}: the MongoDB pipeline under mingo: ${cmi.message}`);

          const t0 = process.hrtime.bigint();
          const answer = await mdb[model].collection('jsonbench').aggregate(pipeline).toArray();
          (standinMs[`${name} ${model}`] ||= []).push(Number(process.hrtime.bigint() - t0) / 1e6);
          const cm = compareDigests(d, digestRows(answer, digestOptions(def.digest, 'mongodb')), { names: ['postgres', 'secantus'] });
          assert.equal(cm.equal, true, `${model} k=${k}: SecantusDB: ${cm.message}`);
        }
      }
      for (const k of KS) {
        const c = compareDigests(pgDigests[name].event[k], pgDigests[name].bucket[k], { names: ['event', 'bucket'] });
        assert.equal(c.equal, true, `k=${k}: ${c.message}`);
      }
      assert.ok(rows > 0, `${name}: some rows over k=${KS.join(',')}`);
    });
  }

  test('a deliberately different answer is caught: high-cpu with >= for >', async () => {
    let caught = 0;
    for (const model of MODELS) {
      for (const k of [0, 1, 2, 3, 4, 5]) {
        const def = set.queries['high-cpu-all'];
        const { p, form, d } = await runPg('high-cpu-all', model, k);
        const wrongForm = { ...form, text: form.text.replace(")::numeric > $", ")::numeric >= $") };
        assert.notEqual(wrongForm.text, form.text);
        const wrong = digestRows(pgRows(await pgc[model].query(wrongForm)), digestOptions(def.digest, 'postgres'));
        const js = digestRows(expectedRows('high-cpu-all', p), digestOptions(def.digest, 'postgres'));
        const at90 = inWindow(p).filter((e) => e.usage_user === 90).length;
        const c = compareDigests(js, wrong, { names: ['js', 'postgres'] });
        assert.equal(c.equal, at90 === 0, `${model} k=${k}: ${at90} events at exactly 90; ${c.message || 'equal'}`);
        assert.equal(compareDigests(js, d).equal, true);
        // The same mistake in the MongoDB form ($gte for $gt), evaluated by mingo: caught alike.
        const pipeline = JSON.parse(JSON.stringify(def.mongodb(p, data[model]).aggregate).replace(/"\$gt":/g, '"$gte":'), (key, v) => (
          typeof v === 'string' && /^\d{4}-\d\d-\d\dT/.test(v) ? new Date(v) : v));
        const mwrong = digestRows(mingo.aggregate(structuredClone(stored[model]), pipeline), digestOptions(def.digest, 'mongodb'));
        assert.equal(compareDigests(d, mwrong).equal, at90 === 0, `${model} k=${k}: mingo with $gte`);
        if (!c.equal) {
          caught++;
          assert.match(c.message, /answers differ at row \d+/);
        }
      }
    }
    assert.ok(caught > 0, 'the data has events at exactly usage_user = 90 in some window');
  });

  test('a deliberately different answer is caught: lastpoint without one host, double-groupby with one value off', async () => {
    for (const model of MODELS) {
      const def = set.queries.lastpoint;
      const { form } = await runPg('lastpoint', model, 0);
      const rows = pgRows(await pgc[model].query(form));
      const opts = digestOptions(def.digest, 'postgres');
      const full = digestRows(rows, opts);
      const dropped = digestRows(rows.filter((r) => r.hostname !== 'host_3'), opts);
      assert.equal(full.rows, DATA.hosts);
      const c = compareDigests(full, dropped, { names: ['right', 'wrong'] });
      assert.equal(c.equal, false);
      assert.match(c.message, /host_4/); // the first differing row: host_4 where host_3 was

      const dg = set.queries['double-groupby-1'];
      const r = await runPg('double-groupby-1', model, 0);
      const drows = pgRows(await pgc[model].query(r.form));
      drows[5] = { ...drows[5], avg_usage_user: drows[5].avg_usage_user + 1e-9 };
      const off = digestRows(drows, digestOptions(dg.digest, 'postgres'));
      assert.equal(compareDigests(r.d, off).equal, false, 'a change in the 10th significant digit is caught');
    }
  });

  test('the PostgreSQL answers do not depend on the session time zone (minute and hour bins in UTC)', async () => {
    for (const model of MODELS) {
      await pgc[model].query("set timezone = 'Asia/Kolkata'"); // +05:30: a truncation in local time would shift hours
      try {
        for (const name of ['single-groupby-1-1-12', 'double-groupby-1', 'groupby-orderby-limit', 'high-cpu-1', 'lastpoint']) {
          const { d } = await runPg(name, model, 0);
          const c = compareDigests(pgDigests[name][model][0], d, { names: ['UTC', 'Asia/Kolkata'] });
          assert.equal(c.equal, true, `${model} ${name}: ${c.message}`);
        }
      } finally {
        await pgc[model].query('reset timezone');
      }
    }
  });

  test('the PostgreSQL forms filter with the declared index expressions (EXPLAIN, seq scans off)', async () => {
    const filtered = queryNames('tsbs').filter((n) => n !== 'lastpoint');
    for (const model of MODELS) {
      const names = set.indexes(data[model]).map((ix) => ix.name);
      await pgc[model].query('set enable_seqscan = off');
      try {
        for (const name of filtered) {
          const def = set.queries[name];
          const form = def.postgres(def.params(data[model], 0), data[model]);
          const plan = JSON.stringify((await pgc[model].query({ text: `explain (format json) ${form.text}`, values: form.values })).rows[0]['QUERY PLAN']);
          const used = names.filter((n) => plan.includes(`"Index Name":"${n}"`));
          assert.ok(used.length > 0, `${model} ${name}: no declared index in the plan: ${plan.slice(0, 600)}`);
          assert.doesNotMatch(plan, /"Node Type":"Seq Scan"/, `${model} ${name}`);
        }
      } finally {
        await pgc[model].query('reset enable_seqscan');
      }
    }
  });

  test('wall time per query, client side (diagnostic: the stand-in is a Python server, not a MongoDB figure)', (t) => {
    const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)].toFixed(1);
    for (const [k, v] of Object.entries(standinMs)) {
      t.diagnostic(`${k}: median of ${v.length}: SecantusDB ${median(v)} ms, PostgreSQL ${median(pgMs[k])} ms`);
    }
  });
});
