'use strict';
// POOL=pgbouncer against real components: the pgbouncer image built from
// databases/postgres/pgbouncer/Dockerfile on the PostgreSQL stand-in image (the stand-in path: Debian
// 13's PgBouncer 1.24), started with compose exactly as the lab starts it (compose.yaml + the pgbouncer
// file + both stand-in overrides), in front of the real PostgreSQL stand-in container. The OLTP
// workload runs through the pool; the counts are reconciled with what the server saw, read directly
// (pg_stat_database: transactions, and at most POOL_SIZE server sessions for more client sessions;
// the server's statement log: what it parsed and executed).
// Needs the Docker engine and jsonbench-standin/postgres (lab/standins/build.sh postgres).
const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('crypto');
const { execFileSync, spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { Client } = require('pg');
const { runCli } = require('../helpers/run-cli');
const { freePort } = require('../helpers/processes');

const ROOT = path.resolve(__dirname, '../../..');
const BASE_IMAGE = 'jsonbench-standin/postgres:17';

function unavailable() {
  const docker = spawnSync('docker', ['image', 'inspect', BASE_IMAGE], { stdio: 'ignore' });
  if (docker.error) return 'no docker CLI';
  return docker.status === 0 ? null : `the image ${BASE_IMAGE} is not built (lab/standins/build.sh postgres)`;
}
const skip = unavailable();

test.describe('PgBouncer (stand-in path) in front of the PostgreSQL stand-in', { skip: skip || false }, () => {
  const project = `${process.env.JSONBENCH_E2E_PROJECT || 'jsonbench-test'}-pgbouncer`;
  const password = crypto.randomBytes(12).toString('hex');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'jsonbench-pgbouncer-'));
  const POOL_SIZE = 2;
  const SESSIONS = 4; // more client sessions than server connections: the pool shares them
  let env;
  let direct;
  let pooled;
  let admin;
  // the lab's own files: databases/postgres/compose*.yaml include pgbouncer's
  const files = () => ['compose.yaml', 'compose.standins.yaml'].map((f) => path.join(ROOT, f)).concat(path.join(tmp, 'ports.yaml'))
    .flatMap((f) => ['-f', f]);
  const compose = (...args) => execFileSync('docker', ['compose', '-p', project, '--project-directory', ROOT, ...files(), ...args],
    { env, cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const cli = async (args, extra = {}) => {
    const r = await runCli(args, { env: extra, timeoutMs: 180000 });
    assert.equal(r.code, 0, r.stderr + r.stdout);
    return r.stdout.trim().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l)).pop();
  };
  // pg_stat_database of the bench's database, read directly from the server (never through the pool)
  const serverCounts = async () => {
    const c = new Client({ connectionString: direct });
    await c.connect();
    try {
      await c.query('select pg_stat_clear_snapshot()');
      const { rows: [r] } = await c.query(`select xact_commit::bigint as commits, xact_rollback::bigint as rollbacks,
        sessions::bigint as sessions from pg_stat_database where datname = current_database()`);
      return { commits: Number(r.commits), rollbacks: Number(r.rollbacks), sessions: Number(r.sessions) };
    } finally { await c.end(); }
  };
  // The server's log, as lines (postgres logs to stderr; with log_min_duration_statement = 0 each
  // parse, bind and execute of the extended protocol, with the statement's name).
  const pgLog = () => spawnSync('docker', ['logs', compose('ps', '-q', 'postgres').trim()], { encoding: 'utf8' }).stderr.split('\n');
  const serverLog = async (value) => { // log_min_duration_statement, ms (0: every statement)
    const c = new Client({ connectionString: direct });
    await c.connect();
    try {
      await c.query(`alter system set log_min_duration_statement = ${value}`);
      await c.query('select pg_reload_conf()');
    } finally { await c.end(); }
  };
  // the pool's own counters of the bench's database (SHOW STATS, 1.21+: parses and binds)
  const poolStats = async () => {
    const c = new Client({ connectionString: admin });
    await c.connect();
    try {
      const { rows } = await c.query({ text: 'SHOW STATS', queryMode: 'simple' });
      // no row yet before the database's first client
      const r = rows.find((x) => x.database === 'jsonbench') || { total_client_parse_count: 0, total_server_parse_count: 0, total_bind_count: 0 };
      return { clientParses: Number(r.total_client_parse_count), serverParses: Number(r.total_server_parse_count), binds: Number(r.total_bind_count) };
    } finally { await c.end(); }
  };
  // session mode holds a server connection per client session (bench-schema refuses a smaller pool)
  const startPool = async (mode) => {
    env.POOL_MODE = mode;
    env.POOL_SIZE = String(mode === 'session' ? SESSIONS : POOL_SIZE);
    compose('up', '-d', '--no-deps', '--force-recreate', 'pgbouncer');
    return cli(['pool-ready', '--ready-timeout-s', '60'], { URI: admin });
  };
  // The rate is OPS a second: a client keeps at most a second of load waiting (at least 100), so one
  // that falls behind waits and cannot drop (at 100/s, 200 transactions beside the other suites in CI
  // dropped 15 and the run exited 1).
  const runOltp = async (mode, ops) => {
    const file = path.join(tmp, `oltp-${mode}.json`);
    await cli(['run'], {
      URI: pooled, WORKLOAD: 'oltp', KEY: 'uuidv7', LAYOUT: 'heap', SEED: '3', TABLE_ROWS: '1000', OLTP_MIX: '50/50',
      OPS: String(ops), RATE: String(ops), SESSIONS: String(SESSIONS), POOL: 'pgbouncer', POOL_MODE: mode, RESULT: file,
    });
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  };

  test.before(async () => {
    const [pgPort, poolPort] = [await freePort(), await freePort()];
    // the test's own override: the pool published on loopback so this process can reach it
    fs.writeFileSync(path.join(tmp, 'ports.yaml'), `services:\n  pgbouncer:\n    ports: ["127.0.0.1:${poolPort}:6432"]\n`);
    env = {
      PATH: process.env.PATH, POSTGRES_PASSWORD: password, PG_PORT: String(pgPort), BIND_ADDRESS: '127.0.0.1',
      DB_MEMORY: '1g', PG_SHARED_BUFFERS: '128MB', PG_SHM_SIZE: '256m',
      JSONBENCH_CLIENT_TAG: process.env.JSONBENCH_CLIENT_TAG || 'test', MONGO_PASSWORD: 'unused', GRAFANA_ADMIN_PASSWORD: 'unused',
    };
    direct = `postgres://jsonbench:${password}@127.0.0.1:${pgPort}/jsonbench`;
    pooled = `postgres://jsonbench:${password}@127.0.0.1:${poolPort}/jsonbench`;
    admin = `postgres://jsonbench:${password}@127.0.0.1:${poolPort}/pgbouncer`;
    compose('build', 'pgbouncer');
    compose('up', '-d', '--no-deps', 'postgres');
    await cli(['wait-ready', '--ready-timeout-s', '90'], { URI: direct });
    await cli(['init'], { URI: direct, WORKLOAD: 'oltp', KEY: 'uuidv7', LAYOUT: 'heap', SEED: '3', TABLE_ROWS: '1000' });
    // as the lab does: the load's vacuum and analyze done now, not by autovacuum during the run
    await cli(['settle'], { URI: direct, WORKLOAD: 'oltp' });
    // every statement in the server's log, with its protocol messages (read by the transaction-mode test)
    await serverLog(0);
  });
  test.after(() => {
    try { if (env) compose('down', '-v', '--timeout', '30'); } finally { fs.rmSync(tmp, { recursive: true, force: true }); }
  });

  test('the image: PgBouncer 1.24 from Debian as PID 1, no healthcheck, the stand-in label, auth by the generated password', async () => {
    const ready = await startPool('transaction');
    assert.equal(ready.product, 'PgBouncer');
    assert.match(ready.version, /^1\.24\./);
    assert.equal(ready.max_prepared_statements, 200);
    const id = compose('ps', '-q', 'pgbouncer').trim();
    const inspect = JSON.parse(execFileSync('docker', ['inspect', id], { encoding: 'utf8' }))[0];
    assert.ok(!inspect.Config.Healthcheck || inspect.Config.Healthcheck.Test[0] === 'NONE', JSON.stringify(inspect.Config.Healthcheck));
    assert.match(inspect.Config.Labels['jsonbench.stand_in'], /^PgBouncer 1\.24 \(Debian 13 package.*standing in for PGDG's PgBouncer on postgres:17\.6$/);
    // `docker top` reads the host's /proc: nothing runs in the container to find out
    const top = execFileSync('docker', ['top', id, '-o', 'pid,comm'], { encoding: 'utf8' }).trim().split('\n').slice(1);
    assert.deepEqual(top.map((l) => l.trim().split(/\s+/)[1]), ['pgbouncer']);
    const wrong = await runCli(['pool-ready', '--ready-timeout-s', '1'], { env: { URI: admin.replace(password, 'wrong') } });
    assert.equal(wrong.code, 2);
    assert.match(wrong.stderr, /password authentication failed|SASL|auth/i);
  });

  test('transaction mode: OLTP through the pool with named statements, each parsed once per server connection; the server saw every commit, on POOL_SIZE sessions', async (t) => {
    const before = await serverCounts();
    const stats0 = await poolStats();
    const from = pgLog().length;
    const res = await runOltp('transaction', 200);
    const log = pgLog().slice(from);
    const stats = await poolStats();
    assert.equal(res.transactions.committed, 200);
    assert.equal(res.transactions.statements, 'named');
    assert.equal(res.errors, 0);
    // What the server parsed and bound (its own log): named statements only (PgBouncer's names for the
    // clients' ones), each text parsed at most once per server connection, bound once per execution;
    // unnamed statements would be parsed at every execution (PgBouncer 1.18's way: 231 parses here).
    const ext = log.map((l) => /duration: [0-9.]+ ms {2}(parse|bind|execute) (\S+): (.*)$/.exec(l)).filter(Boolean);
    const parses = ext.filter((m) => m[1] === 'parse');
    const binds = ext.filter((m) => m[1] === 'bind');
    assert.deepEqual(ext.filter((m) => m[2] === '<unnamed>').map((m) => m[0]), []);
    const texts = new Set(parses.map((m) => m[3]));
    assert.ok(texts.size >= 3, `statements parsed: ${[...texts].join(' | ')}`);
    assert.ok(parses.length <= POOL_SIZE * texts.size, `${parses.length} parses of ${texts.size} statements on ${POOL_SIZE} server connections`);
    assert.ok(binds.length >= res.transactions.attempts, `${binds.length} binds for ${res.transactions.attempts} attempts`);
    // the pool says the same: the server parses it sent, the binds it forwarded; the clients parsed
    // each statement once per session (SESSIONS client sessions)
    assert.equal(stats.serverParses - stats0.serverParses, parses.length);
    assert.equal(stats.binds - stats0.binds, binds.length);
    assert.ok(stats.clientParses - stats0.clientParses <= SESSIONS * texts.size);
    t.diagnostic(`transaction mode: ${binds.length} executions of ${texts.size} statements, ${parses.length} server parses `
      + `(${POOL_SIZE} server connections), ${stats.clientParses - stats0.clientParses} client parses (${SESSIONS} sessions)`);
    const closed = await cli(['pool-close'], { URI: admin, POOL_DB: 'jsonbench' });
    assert.ok(closed.server_connections_closed >= 1 && closed.server_connections_closed <= POOL_SIZE, JSON.stringify(closed));
    assert.equal(closed.server_connections_left, 0);
    const after = await serverCounts();
    const attempts = res.transactions.attempts;
    // every attempt a transaction on the server; beyond them only bookkeeping: each client session's
    // `show server_version` and `set synchronous_commit`, each server connection's start-up and
    // connect_query, the reading before (its own session): 213 for 200 attempts here
    const commits = after.commits - before.commits;
    const rollbacks = after.rollbacks - before.rollbacks;
    assert.ok(commits + rollbacks >= attempts, `${commits}+${rollbacks} < ${attempts}`);
    // (+5: autovacuum visits, analysis/figures/reconcile.py's transactions_fixed; 215 were seen once)
    assert.ok(commits + rollbacks <= attempts + 2 * SESSIONS + 2 * POOL_SIZE + 1 + 5, `${commits}+${rollbacks} vs ${attempts} attempts`);
    // SESSIONS client sessions, at most POOL_SIZE server sessions (+1: the reading before)
    const sessions = after.sessions - before.sessions;
    assert.ok(sessions >= 1 && sessions <= POOL_SIZE + 1, `server sessions ${sessions}`);
    // the nothing-lost side, counted directly: a delete+insert keeps the id, the table keeps its rows
    const count = await cli(['count'], { URI: direct, WORKLOAD: 'oltp' });
    assert.equal(count.documents, 1000);
  });

  test('every server connection gets DURABILITY\'s synchronous_commit before a client uses it (connect_query)', async () => {
    env.POOL_SYNCHRONOUS_COMMIT = 'off';
    try {
      await startPool('transaction');
      // a session that sets nothing itself sees the server connection's setting
      const c = new Client({ connectionString: pooled });
      await c.connect();
      try {
        assert.equal((await c.query('show synchronous_commit')).rows[0].synchronous_commit, 'off');
      } finally { await c.end(); }
    } finally { delete env.POOL_SYNCHRONOUS_COMMIT; }
  });

  test('session mode: named prepared statements, as without a pool', async () => {
    await startPool('session');
    const res = await runOltp('session', 60);
    assert.equal(res.transactions.committed, 60);
    assert.equal(res.transactions.statements, 'named');
    const closed = await cli(['pool-close'], { URI: admin, POOL_DB: 'jsonbench' });
    assert.equal(closed.server_connections_left, 0);
  });
});
