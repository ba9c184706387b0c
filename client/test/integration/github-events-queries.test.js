'use strict';
// The OnGres query set (src/queries/github-events-queries.js) on a small seeded data set loaded by
// the events workload's own load stage into the real PostgreSQL and the SecantusDB stand-in: each
// query's MongoDB form (the one real MongoDB runs) gives PostgreSQL's answer digest on the stand-in
// and under mingo (an in-memory implementation of MongoDB's query language, over the documents
// read back from the stand-in); a deliberately different answer (a PostgreSQL form altered here)
// is caught; a query phase runs exactly K executions.
const test = require('node:test');
const assert = require('node:assert/strict');
const { startPostgres } = require('../helpers/postgres-server');
const mingo = require('mingo');
const { startSecantus } = require('../helpers/secantus-server');
const { createTarget } = require('../../src/targets');
const { querySet } = require('../../src/queries');
const { EventsLoad } = require('../../src/workloads/events');
const { QueryWorkload } = require('../../src/workloads/query');
const { Runner } = require('../../src/runner');
const { digestRows, compareDigests } = require('../../src/query-digest');

const OPTS = {
  workload: 'events', seed: 5, events: 3000, repos: 300, actors: 600, skew: 1, clients: 1, clientId: '1',
  key: 'uuidv7', layout: 'heap', durability: 'relaxed', keyFormat: 'binary', stage: 'load', loadRate: 0,
  reconnectTimeoutS: 5,
};
const NAMES = { names: ['postgres', 'mongodb'] };
const set = querySet('events');
const data = set.dataOf(OPTS);

async function load(target) {
  await target.init(OPTS.key, OPTS.layout);
  await target.createIndexes(set.indexes(data));
  await target.prepareInserts(OPTS);
  const w = new EventsLoad({ target, opts: OPTS });
  for (let i = 0; i < w.total; i++) await w.exec(w.build(i));
  return w.total;
}

const { rowsOf, digestOptionsFor } = require('../../src/workloads/query');

const runForm = async (target, form, def) => digestRows(rowsOf(await target.query(form)), digestOptionsFor(def.digest, target.database));

test.describe('OnGres queries over generated events: PostgreSQL jsonb vs SecantusDB (MongoDB stand-in)', () => {
  let pg; let sdb; let pgt; let mgt; let stored;
  test.before(async () => {
    [pg, sdb] = await Promise.all([startPostgres(), startSecantus()]);
    pgt = createTarget('postgres', pg.uri);
    mgt = createTarget('mongodb', sdb.uri);
    await pgt.connect();
    await mgt.connect();
    const [a, b] = await Promise.all([load(pgt), load(mgt)]);
    assert.equal(a, OPTS.events);
    assert.equal(b, OPTS.events);
    stored = await mgt.db.collection('jsonbench').find({}).toArray(); // what mingo evaluates the pipelines over
  });
  test.after(async () => {
    if (pgt) await pgt.close();
    if (mgt) await mgt.close();
    if (pg) await pg.cleanup();
    if (sdb) await sdb.cleanup();
  });

  test('settle: VACUUM (ANALYZE) and CHECKPOINT on PostgreSQL, {fsync: 1} on MongoDB', async () => {
    assert.equal(await pgt.settle(), 'vacuum (analyze) jsonbench; CHECKPOINT');
    const { rows } = await pgt.client.query("select last_analyze is not null as analyzed, last_vacuum is not null as vacuumed from pg_stat_user_tables where relname = 'jsonbench'");
    assert.deepEqual(rows[0], { analyzed: true, vacuumed: true });
    // a stand-in without the command says so in the server's words
    assert.match(await mgt.settle(), /^\{fsync: 1\}( refused by the server: .+)?$/);
  });

  test('both hold exactly the generated events (count back)', async () => {
    assert.equal((await pgt.count()).documents, OPTS.events);
    assert.equal((await mgt.count()).documents, OPTS.events);
  });

  // What the stand-in does otherwise than real MongoDB (pinned with its words): it refuses the
  // $count stage inside olap-lookup's $lookup sub-pipeline (mongod runs it: $lookup with
  // localField/foreignField and a pipeline, MongoDB 5.0+). mingo still checks the form.
  const STANDIN_REFUSES = { 'olap-lookup': /^Unrecognized expression '\$count'$/ };

  // mingo resolves $lookup's `from` by name: the one collection, as read back. mingo 7.2.6 ignores
  // localField/foreignField when a $lookup also has a pipeline (it joined all 3,000 events), so
  // for mingo only that $lookup is spelled as what MongoDB defines it to mean ("an equality match
  // on the foreignField ... then the pipeline", $lookup manual, MongoDB 5.0+ concise syntax):
  // let + $match $expr $eq ahead of the same pipeline.
  const forMingo = (stage) => {
    const l = stage.$lookup;
    if (!l || !l.pipeline || !l.localField) return stage;
    const { localField, foreignField, pipeline, ...rest } = l;
    return { $lookup: { ...rest, let: { local: `$${localField}` }, pipeline: [{ $match: { $expr: { $eq: [`$${foreignField}`, '$$local'] } } }, ...pipeline] } };
  };
  const underMingo = (pipeline) => mingo.aggregate(structuredClone(stored), pipeline.map(forMingo), { collectionResolver: () => structuredClone(stored) });

  for (const [name, def] of Object.entries(set.queries)) {
    test(`${name}: PostgreSQL = SecantusDB = the MongoDB pipeline under mingo`, async (t) => {
      assert.equal(def.standinGaps, undefined, `${name}: the stand-in runs every form: no gap declared`);
      for (const k of [0, 1]) {
        const p = def.params(data, k);
        assert.deepEqual(JSON.parse(JSON.stringify(p)), def.params(data, k), 'params are JSON and deterministic');
        const a = await runForm(pgt, def.postgres(p, data), def);
        assert.ok(a.rows > 0, `${name} k=${k}: PostgreSQL answers rows`);
        const form = def.mongodb(p, data);
        const mi = digestRows(underMingo(form.aggregate), digestOptionsFor(def.digest, 'mongodb'));
        const cmi = compareDigests(a, mi, { names: ['postgres', 'mingo'] });
        assert.equal(cmi.equal, true, `${name} k=${k}: the MongoDB pipeline under mingo: ${cmi.message}`);
        if (STANDIN_REFUSES[name]) {
          await assert.rejects(runForm(mgt, form, def), (err) => {
            assert.match(err.message, STANDIN_REFUSES[name]);
            assert.ok(mgt.isUnsupported(err), `${err.code} ${err.codeName}: a refusal`);
            t.diagnostic(`SecantusDB refuses ${name} k=${k}: ${err.codeName} (${err.code}): ${err.message}; PostgreSQL = mingo (${a.rows} rows)`);
            return true;
          });
          continue;
        }
        const t0 = process.hrtime.bigint();
        const b = await runForm(mgt, form, def);
        const ms = Number(process.hrtime.bigint() - t0) / 1e6;
        const cmp = compareDigests(a, b, NAMES);
        assert.equal(cmp.equal, true, `${name} k=${k}: ${cmp.message}`);
        t.diagnostic(`${name} k=${k}: ${a.rows} rows, sha256 ${a.digest.slice(0, 12)} on all three; SecantusDB ${ms.toFixed(1)} ms`);
      }
    });
  }

  test('a deliberately different answer is caught (olap-a on PostgreSQL counting closed issues too)', async () => {
    const def = set.queries['olap-a'];
    const p = def.params(data, 0);
    const good = await runForm(mgt, def.mongodb(p, data), def);
    const altered = def.postgres(p, data);
    altered.text = altered.text.replace("data #>> '{payload,action}' = $2", "data #>> '{payload,action}' <> 'reopened' and $2::text is not null");
    const bad = await runForm(pgt, altered, def);
    const cmp = compareDigests(bad, good, NAMES);
    assert.equal(cmp.equal, false);
    assert.match(cmp.message, /answers differ at row \d+/);
  });

  test('a query phase runs exactly K executions at QUERY_RATE with the same parameters on both', async () => {
    const K = 4;
    const results = {};
    for (const [db, target] of [['postgres', pgt], ['mongodb', mgt]]) {
      const opts = { ...OPTS, database: db, stage: 'query', query: 'olap-b', queryRuns: K, queryRate: 10 };
      const w = new QueryWorkload({ target, opts });
      const r = new Runner({ target, workload: w, opts, log: () => {}, label: db });
      const t0 = Date.now();
      await r.run();
      const res = r.result({ server: {}, database: db });
      results[db] = { q: w.result(), res, ms: Date.now() - t0 };
    }
    for (const db of ['postgres', 'mongodb']) {
      const { q, res, ms } = results[db];
      assert.equal(res.docs_ok, K);
      assert.equal(res.operations['olap-b'].ok, K);
      assert.equal(q.per_execution.length, K);
      assert.deepEqual(q.per_execution.map((e) => e.k), [0, 1, 2, 3]);
      assert.ok(ms >= ((K - 1) / 10) * 1000 - 5, `${db}: paced at 10/s: ${ms} ms for ${K}`);
    }
    assert.equal(results.postgres.q.digest, results.mongodb.q.digest);
    assert.deepEqual(results.postgres.q.params_of_first, results.mongodb.q.params_of_first);
  });

  test('a refused query ends the phase after the first execution: status unsupported, the server\'s words', async () => {
    const opts = { ...OPTS, database: 'mongodb', stage: 'query', query: 'olap-lookup', queryRuns: 3, queryRate: 0 };
    const w = new QueryWorkload({ target: mgt, opts });
    const r = new Runner({ target: mgt, workload: w, opts, log: () => {}, label: 'secantus' });
    await r.run();
    const res = r.result({ server: {}, database: 'mongodb' });
    assert.equal(res.errors, 1);
    assert.equal(res.docs_ok, 0);
    assert.equal(res.not_sent, 2);
    const q = w.result();
    assert.equal(q.status, 'unsupported');
    assert.match(q.reason, /Unrecognized expression '\$count'/);
    assert.equal(q.digest, null);
  });

  // olap-lookup's correlated count per actor on the actor.login index, as MongoDB's $lookup on it
  // (before, under a.actor's COLLATE "C", PostgreSQL scanned the table once per actor)
  test('olap-lookup: PostgreSQL counts each actor\'s events through the actor.login index', async () => {
    const def = set.queries['olap-lookup'];
    const { plan } = await pgt.explain(def.postgres(def.params(data, 0), data));
    const nodes = [];
    const walk = (n) => { nodes.push(n); (n.Plans || []).forEach(walk); };
    walk(plan[0].Plan);
    const sub = nodes.find((n) => n['Subplan Name'] === 'SubPlan 1');
    assert.ok(sub, JSON.stringify(plan).slice(0, 300));
    const inSub = [];
    const walkSub = (n) => { inSub.push(n); (n.Plans || []).forEach(walkSub); };
    walkSub(sub);
    assert.ok(inSub.some((n) => n['Index Name'] === 'jsonbench_actor_login'),
      `the subplan reads ${inSub.map((n) => `${n['Node Type']}${n['Index Name'] ? ` ${n['Index Name']}` : ''}`).join(' / ')}`);
    assert.ok(!inSub.some((n) => n['Node Type'] === 'Seq Scan'));
  });

  test('explain gives each database\'s plan of execution 0', async () => {
    const def = set.queries['olap-a'];
    const p = def.params(data, 0);
    const a = await pgt.explain(def.postgres(p, data));
    assert.ok(Array.isArray(a.plan) && a.plan[0].Plan, JSON.stringify(a).slice(0, 200));
    assert.ok('Execution Time' in a.plan[0]);
    const b = await mgt.explain(def.mongodb(p, data));
    assert.ok(b.plan && typeof b.plan === 'object');
  });
});
