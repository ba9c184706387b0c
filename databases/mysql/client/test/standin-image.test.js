'use strict';
// The MySQL stand-in image (databases/mysql/standin/, MariaDB 10.11) run through Docker Compose
// exactly as the lab would run it: compose.yaml + databases/mysql/compose.yaml + both stand-in
// overrides, the official image's env contract, compose's `mysqld ...` command line. Checks the
// first start (database, root@'%' with the password and no other root account reachable), the
// settings compose states as the server's own variables, the label, the server as PID 1, a clean
// stop and a restart that keeps the data without initialising again, and the refusals. Needs the
// Docker engine and the image (lab/standins/build.sh mysql; lab/test.sh builds it before npm test).
const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('crypto');
const { execFileSync, spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');
const { CLIENT_DIR, clientRequire } = require('../deps');

const { runCli } = require(path.join(CLIENT_DIR, 'test/helpers/run-cli'));
const { freePort } = require(path.join(CLIENT_DIR, 'test/helpers/processes'));

const mysql = clientRequire('mysql2/promise');
const ROOT = path.resolve(CLIENT_DIR, '..');
const MANIFEST = JSON.parse(fs.readFileSync(path.join(ROOT, 'databases/mysql/database.json'), 'utf8'));
const IMAGE = `${MANIFEST.standin.image}:latest`;
const FILES = ['compose.yaml', 'databases/mysql/compose.yaml', 'compose.standins.yaml', 'databases/mysql/compose.standins.yaml']
  .flatMap((f) => ['-f', path.join(ROOT, f)]);

function unavailable() {
  const docker = spawnSync('docker', ['image', 'inspect', IMAGE], { stdio: 'ignore' });
  if (docker.error) return 'no docker CLI';
  return docker.status === 0 ? null : `the image ${IMAGE} is not built (lab/standins/build.sh mysql)`;
}

const skip = unavailable();

test.describe('the MySQL stand-in image through compose', { skip: skip || false }, () => {
  const project = `${process.env.JSONBENCH_E2E_PROJECT || 'jsonbench-test'}-mysql-standin`;
  const password = crypto.randomBytes(12).toString('hex');
  let port;
  let env;
  let uri;
  const compose = (...args) => execFileSync('docker', ['compose', '-p', project, ...FILES, ...args],
    { env, cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const container = () => compose('ps', '-aq', 'mysql').trim();
  const logs = () => compose('logs', '--no-color', 'mysql');
  const ready = async () => {
    const r = await runCli(['wait-ready', '--uri', uri, '--ready-timeout-s', '60'], { timeoutMs: 90000 });
    assert.equal(r.code, 0, r.stderr);
  };
  const connect = (user, pw) => mysql.createConnection({ host: '127.0.0.1', port, user, password: pw, database: 'jsonbench', rowsAsArray: true });

  test.before(async () => {
    port = await freePort();
    env = {
      PATH: process.env.PATH, MYSQL_PASSWORD: password, MYSQL_PORT: String(port), BIND_ADDRESS: '127.0.0.1',
      MYSQL_BUFFER_POOL_SIZE: '256M', MYSQL_REDO_LOG_CAPACITY: '128M', DB_MEMORY: '2g',
      POSTGRES_PASSWORD: 'unused', MONGO_PASSWORD: 'unused', GRAFANA_ADMIN_PASSWORD: 'unused',
    };
    uri = `mysql://root:${password}@127.0.0.1:${port}/jsonbench`;
    compose('up', '-d', '--no-deps', 'mysql');
    await ready();
  });
  test.after(() => { if (env) compose('down', '-v', '--timeout', '30'); });

  test('first start: the label, mariadbd as PID 1, the settings compose states, root only with the password', async () => {
    const id = container();
    assert.equal(execFileSync('docker', ['inspect', '-f', '{{index .Config.Labels "jsonbench.stand_in"}}', id], { encoding: 'utf8' }).trim(),
      MANIFEST.standin.label);
    assert.equal(execFileSync('docker', ['exec', id, 'cat', '/proc/1/comm'], { encoding: 'utf8' }).trim(), MANIFEST.standin.processes[0]);
    const c = await connect('root', password);
    try {
      const [[row]] = await c.query(`SELECT @@log_bin, @@binlog_format, @@sync_binlog, @@innodb_flush_log_at_trx_commit,
        @@innodb_doublewrite, @@innodb_buffer_pool_size, @@innodb_log_file_size, @@skip_name_resolve, @@binlog_annotate_row_events,
        @@character_set_server, @@max_connections, @@max_allowed_packet`);
      assert.deepEqual(row.map(String), ['1', 'ROW', '1', '1', '1', String(256 << 20), String(128 << 20), '1', '0', 'utf8mb4', '200', String(64 << 20)]);
      const [users] = await c.query("SELECT CONCAT(User, '@', Host) FROM mysql.user ORDER BY 1");
      assert.deepEqual(users.map(([u]) => u), ['mariadb.sys@localhost', 'root@%', 'root@localhost']);
    } finally {
      await c.end();
    }
    await assert.rejects(connect('root', ''), /Access denied/);
    await assert.rejects(connect('root', 'wrong'), /Access denied/);
    const log = logs();
    assert.match(log, /--binlog-row-value-options=PARTIAL_JSON: MariaDB has no partial JSON logging .* not applied/);
    assert.match(log, /--innodb-redo-log-capacity=128M -> mariadbd --innodb-log-file-size=128M/);
  });

  test('docker stop is a clean shutdown (exit 0); a restart keeps the data and does not initialise again', async () => {
    const c = await connect('root', password);
    await c.query('CREATE TABLE kept (id INT PRIMARY KEY)');
    await c.query('INSERT INTO kept VALUES (42)');
    await c.end();
    const id = container();
    execFileSync('docker', ['stop', '--time', '30', id]);
    assert.equal(execFileSync('docker', ['inspect', '-f', '{{.State.ExitCode}}', id], { encoding: 'utf8' }).trim(), '0');
    compose('start', 'mysql');
    await ready();
    const d = await connect('root', password);
    try {
      assert.deepEqual((await d.query('SELECT id FROM kept'))[0], [[42]]);
    } finally {
      await d.end();
    }
    assert.equal((logs().match(/standin-entrypoint: initialising/g) || []).length, 1);
  });

  test('refusals: no password option on first start; a mysqld option without a MariaDB mapping', () => {
    let r = spawnSync('docker', ['run', '--rm', IMAGE], { encoding: 'utf8' });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /no password option is set; set one of MYSQL_ROOT_PASSWORD, MYSQL_ALLOW_EMPTY_PASSWORD, MYSQL_RANDOM_ROOT_PASSWORD/);
    r = spawnSync('docker', ['run', '--rm', '-e', 'MYSQL_ROOT_PASSWORD=x', IMAGE, 'mysqld', '--innodb-dedicated-server=ON'], { encoding: 'utf8' });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /mysqld argument '--innodb-dedicated-server=ON' has no MariaDB mapping in this stand-in/);
  });
});
