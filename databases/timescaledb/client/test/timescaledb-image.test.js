'use strict';
// TimescaleDB for real, from a local image (timescaledb-container.js: the lab's stand-in, Debian's
// 2.19.3 Apache edition, or JSONBENCH_TIMESCALEDB_IMAGE), through the client's own commands as the lab
// runs them, beside a real PostgreSQL with the same seed:
// - ingest (MODEL=native, 2 clients) and settle: the hypertable holds every event, in the chunks its 12 h
//   interval makes, with TSBS's two indexes on every chunk, row for row the rows of PostgreSQL's
//   native table;
// - the lab's explain of a 1 h one-host query: only the chunks of its window, through the index;
// - each of the 13 TSBS queries (3 executions) answers with the digest of PostgreSQL's form over
//   the same events (MODEL=event, the jsonb form), and of MongoDB's form on the MongoDB stand-in
//   (SecantusDB 0.7.0b3, MODEL=event: the Timescale study's MongoDB point);
// - native compression of every chunk, then the same 13 digests again; on the Apache edition (the
//   stand-in: timescaledb.license=apache), count with COMPRESS refused naming it, nothing changed.
// In CI it runs against the stand-in (lab/test.sh builds it first); elsewhere, without the image, it
// is skipped saying why.
const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('crypto');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { fromClient, CLIENT_DIR } = require('./deps');
const { startTimescaledb, imageAbsent, IMAGE } = require('./timescaledb-container');

const { Client } = fromClient('pg');
const { startPostgres } = require(path.join(CLIENT_DIR, 'test/helpers/postgres-server'));
const { startSecantus } = require(path.join(CLIENT_DIR, 'test/helpers/secantus-server'));
const { runCli } = require(path.join(CLIENT_DIR, 'test/helpers/run-cli'));
const { queryNames } = fromClient('./src/queries');
const { storageOf } = fromClient('./src/workloads/tsbs');

// 10 hosts every 60 s for 13 h from midnight: 7,800 events over two 12 h chunks; the 12 h windows fit.
const ENV = {
  WORKLOAD: 'tsbs', KEY: 'uuidv7', LAYOUT: 'clustered', CLIENTS: '2', RATE: '5000', SEED: '7',
  HOSTS: '10', INTERVAL_S: '60', SPAN_S: String(13 * 3600), START: '2016-01-01T00:00:00Z', DURABILITY: 'strict',
};
const EVENTS = 10 * 13 * 60;
const RUNS = 3;
const absent = imageAbsent();

async function cli(args, env) {
  const r = await runCli(args, { env, timeoutMs: 120000 });
  assert.equal(r.code, 0, `${args.join(' ')} ${env.MODEL || ''} ${env.QUERY || ''}: ${r.stderr}${r.stdout}`);
  return r;
}

async function ingest(uri, model) {
  const env = { ...ENV, MODEL: model, URI: uri };
  const init = await cli(['init'], env);
  // one client after the other (the lab runs them at once): the rows' order, and so the planner's
  // statistics (the time column's correlation), are the ones the explain test below was checked with
  for (const c of ['1', '2']) await cli(['run'], { ...env, CLIENT_ID: c });
  return { init: init.stdout, count: JSON.parse((await cli(['count'], env)).stdout) };
}

// Every query's result file `query` object (QUERY_RUNS executions back to back), by name.
async function runQueries(uri, model, dir) {
  const out = {};
  for (const name of queryNames('tsbs')) {
    const file = path.join(dir, `${model}-${name}-${crypto.randomBytes(4).toString('hex')}.json`);
    await cli(['run'], { ...ENV, MODEL: model, URI: uri, STAGE: 'query', QUERY: name, QUERY_RUNS: String(RUNS), QUERY_RATE: '0', RESULT: file });
    out[name] = JSON.parse(fs.readFileSync(file, 'utf8')).query;
  }
  return out;
}

// The rows of a native table as text, UTC, in (hostname, time) order, digested.
async function tableDigest(uri) {
  const c = new Client({ connectionString: uri, options: '-c TimeZone=UTC' });
  await c.connect();
  try {
    const { rows } = await c.query('select to_json(t)::text as j from jsonbench t order by hostname, time');
    const h = crypto.createHash('sha256');
    for (const r of rows) h.update(`${r.j}\n`);
    return { rows: rows.length, digest: h.digest('hex') };
  } finally { await c.end(); }
}

function assertSameAnswers(ts, pg, when, other = 'PostgreSQL') {
  for (const name of queryNames('tsbs')) {
    assert.equal(ts[name].status, 'ok', `${name} on TimescaleDB ${when}: ${ts[name].reason}`);
    assert.equal(pg[name].status, 'ok', `${name} on ${other}: ${pg[name].reason}`);
    const rows = ts[name].per_execution.reduce((s, e) => s + e.rows, 0);
    assert.ok(rows > 0, `${name}: ${RUNS} executions answered no row at all (a test that could not tell answers apart)`);
    assert.equal(ts[name].digest, pg[name].digest, `${name} ${when}: TimescaleDB ${JSON.stringify(ts[name].answers[0].rows.slice(0, 3))} `
      + `vs ${other} ${JSON.stringify(pg[name].answers[0].rows.slice(0, 3))}`);
  }
}

// Without the image: one skipped test saying why (counted as skipped in npm test's summary).
if (absent) test(`TimescaleDB from ${IMAGE}: TSBS ingest and the 13 queries against PostgreSQL and the MongoDB stand-in`, { skip: absent }, () => {});
else test.describe(`TimescaleDB from ${IMAGE}: TSBS ingest and the 13 queries against PostgreSQL and the MongoDB stand-in`, () => {
  let ts; let pg; let sdb; let dir;
  const pgUri = {};
  const figures = {};

  test.before(async () => {
    [ts, pg, sdb] = await Promise.all([startTimescaledb(), startPostgres(), startSecantus()]);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jsonbench-tsdb-'));
    for (const model of ['event', 'native']) {
      await pg.query(`create database tsbs_${model}`);
      pgUri[model] = pg.uri.replace(/\/postgres$/, `/tsbs_${model}`);
    }
  });
  test.after(async () => {
    if (ts) await ts.cleanup();
    if (pg) await pg.cleanup();
    if (sdb) await sdb.cleanup();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
    // The figures quoted in the README (read by a person, so printed, not asserted further).
    if (Object.keys(figures).length) console.log(`# timescaledb figures: ${JSON.stringify(figures)}`);
  });

  test('server-stats reads the cache TimescaleDB holds: its command line\'s shared_buffers=128MB, 134217728 bytes', async () => {
    const s = JSON.parse((await cli(['server-stats', '--uri', ts.uri], {})).stdout);
    assert.equal(s.server.product, 'TimescaleDB');
    assert.deepEqual([s.cache.bytes, s.cache.setting, s.cache.reason], [128 * 1024 * 1024, 'shared_buffers', null]);
    assert.equal(s.cache.source, 'pg_settings: shared_buffers 16384 buffers x block_size 8192 B');
  });

  let pgAnswers;
  test('ingest: every event in the hypertable, 2 chunks of 12 h, TSBS\'s indexes, the rows of PostgreSQL\'s native table', async () => {
    // the four servers' ingests at once (each its own server or database): the MongoDB stand-in's
    // for the queries below
    const [t] = await Promise.all([ingest(ts.uri, 'native'), ingest(pgUri.native, 'native'), ingest(pgUri.event, 'event'),
      ingest(sdb.uri, 'event')]);
    // The lab's settle after a load: VACUUM (ANALYZE) of the hypertable reaches its chunks.
    assert.match((await cli(['settle'], { URI: ts.uri, WORKLOAD: 'tsbs' })).stdout, /^settle: vacuum \(analyze\) jsonbench; CHECKPOINT/);
    assert.match(t.init, /create_hypertable\('jsonbench', 'time', chunk_time_interval => interval '12 hours', create_default_indexes => false\)/);
    assert.equal(t.count.documents, EVENTS);
    assert.equal(t.count.chunks, 2, 'events from 00:00 to 13:00 fall in the 00-12 h and 12-24 h chunks');
    assert.equal(t.count.server.product, 'TimescaleDB');
    assert.equal(t.count.server.extension_version, t.count.server.version.split(' ')[0]);
    // init unscheduled TimescaleDB's background jobs (job 3, the job history's retention, at least);
    // count found none scheduled
    assert.match(t.init, /background jobs unscheduled: job 3 \(_timescaledb_functions\.policy_job_stat_history_retention, every 1 mon\) in [a-z, ]*postgres/);
    assert.ok(t.count.jobs.found.length && t.count.jobs.found.every((j) => !j.scheduled), JSON.stringify(t.count.jobs));
    figures.jobs = t.init.split('background jobs unscheduled: ')[1].split('\n')[0];
    const c = new Client({ connectionString: ts.pgUri });
    await c.connect();
    try {
      // Every chunk has the two indexes of the parent, and no other (create_default_indexes => false).
      const { rows } = await c.query(`select c.chunk_name, array_agg(substring(i.indexdef from '\\((.*)\\)') order by i.indexdef) as defs
        from timescaledb_information.chunks c join pg_indexes i on i.schemaname = c.chunk_schema and i.tablename = c.chunk_name
        where c.hypertable_name = 'jsonbench' group by 1 order by 1`);
      assert.equal(rows.length, 2);
      const analyzed = await c.query(`select count(*)::int as n from timescaledb_information.chunks c
        join pg_stat_user_tables s on s.schemaname = c.chunk_schema and s.relname = c.chunk_name
        where c.hypertable_name = 'jsonbench' and s.last_analyze is not null`);
      assert.equal(analyzed.rows[0].n, 2, 'settle analyzed every chunk');
      for (const r of rows) assert.deepEqual(r.defs, ['hostname, "time" DESC', '"time" DESC']);
      figures.version = t.count.server.version;
      figures.rows = t.count.documents;
      figures.chunks = t.count.chunks;
      figures.hypertable_bytes = { table: t.count.table_bytes, index: t.count.index_bytes, toast: t.count.toast_bytes, total: t.count.total_bytes };
    } finally { await c.end(); }
    const [a, b] = await Promise.all([tableDigest(ts.pgUri), tableDigest(pgUri.native)]);
    assert.equal(a.rows, EVENTS);
    assert.deepEqual(a, b, 'TimescaleDB\'s rows are PostgreSQL\'s native rows');
  });

  test('the lab\'s explain: a 1 h window of one host reads one chunk, through TSBS\'s (hostname, time) index', async () => {
    const r = await cli(['explain'], { ...ENV, MODEL: 'native', URI: ts.uri, QUERY: 'single-groupby-1-1-1' });
    const out = JSON.parse(r.stdout);
    const plan = JSON.stringify(out.plan);
    const chunks = new Set(plan.match(/_hyper_\d+_\d+_chunk/g));
    // Which 12 h chunk a time falls in (the data starts on a chunk boundary); `to` is exclusive.
    const chunkOf = (ms) => Math.floor((ms - Date.parse(ENV.START)) / (12 * 3600e3));
    const spans = new Set([chunkOf(Date.parse(out.params.from)), chunkOf(Date.parse(out.params.to) - 1)]).size;
    assert.equal(chunks.size, spans, `window ${out.params.from}..${out.params.to} reads ${[...chunks].join(', ')} (chunk exclusion)`);
    assert.match(plan, /jsonbench_hostname_time/, 'the (hostname, time desc) index of the chunk');
    figures.explain_single_groupby_1_1_1 = { window: [out.params.from, out.params.to], chunks: [...chunks] };
  });

  test('the 13 queries: TimescaleDB\'s forms give PostgreSQL\'s digests and MongoDB\'s (on its stand-in)', async () => {
    // and MongoDB's forms on the MongoDB stand-in (SecantusDB: not MongoDB) over the same events, per
    // event as the Timescale study's MongoDB point (tsbs-timescale); the three servers at once
    let tsAnswers; let mongoAnswers;
    [pgAnswers, tsAnswers, mongoAnswers] = await Promise.all([runQueries(pgUri.event, 'event', dir),
      runQueries(ts.uri, 'native', dir), runQueries(sdb.uri, 'event', dir)]);
    assertSameAnswers(tsAnswers, pgAnswers, 'uncompressed');
    assertSameAnswers(tsAnswers, mongoAnswers, 'uncompressed', 'the MongoDB stand-in (SecantusDB)');
    figures.digests = Object.fromEntries(queryNames('tsbs').map((n) => [n, tsAnswers[n].digest === pgAnswers[n].digest ? 'equal' : 'different']));
    figures.rows_answered = Object.fromEntries(queryNames('tsbs').map((n) => [n, tsAnswers[n].per_execution.map((e) => e.rows)]));
  });

  test('native compression of every chunk: the same 13 digests (the Apache edition: refused, naming it)', async () => {
    assert.ok(pgAnswers, 'the uncompressed queries ran first');
    const c = new Client({ connectionString: ts.pgUri });
    await c.connect();
    let license;
    try {
      license = (await c.query("select current_setting('timescaledb.license') as l")).rows[0].l;
    } finally { await c.end(); }
    figures.license = license;
    if (license === 'apache') {
      // the stand-in: no compression to run (the lab refuses COMPRESS on it before anything starts;
      // the binding says it too, for an image of one's own of that edition)
      const r = await runCli(['count'], { env: { ...ENV, MODEL: 'native', COMPRESS: 'after:12h', URI: ts.uri }, timeoutMs: 120000 });
      assert.equal(r.code, 2, r.stderr + r.stdout);
      assert.match(r.stderr, /COMPRESS=after:12h: this TimescaleDB is the Apache-2\.0 edition \(timescaledb\.license=apache\), which has no compression; allowed on it: COMPRESS=none/);
      const after = JSON.parse((await cli(['count'], { ...ENV, MODEL: 'native', URI: ts.uri })).stdout);
      assert.equal(after.compressed_chunks, 0);
      assert.equal(after.documents, EVENTS);
      return;
    }
    // COMPRESS as the lab passes it to count after the ingest: settings, then every chunk compressed
    const count = JSON.parse((await cli(['count'], { ...ENV, MODEL: 'native', COMPRESS: 'after:12h', URI: ts.uri })).stdout);
    assert.match(count.compress.statements[0], /compress_segmentby = 'hostname'/);
    assert.equal(count.compress.chunks_compressed_now, 2);
    assert.equal(count.documents, EVENTS);
    assert.equal(count.compressed_chunks, 2);
    assert.ok(count.total_bytes < count.compress.uncompressed.total_bytes, 'compressed smaller than before');
    // a second count (after a query phase) compresses nothing more and keeps the settings
    const again = JSON.parse((await cli(['count'], { ...ENV, MODEL: 'native', COMPRESS: 'after:12h', URI: ts.uri })).stdout);
    assert.equal(again.compress.chunks_compressed_now, 0);
    assert.equal(again.compress.statements.length, 1);
    figures.compressed_bytes = { table: count.table_bytes, index: count.index_bytes, toast: count.toast_bytes, total: count.total_bytes };
    assertSameAnswers(await runQueries(ts.uri, 'native', dir), pgAnswers, 'compressed');
  });
});

