'use strict';
// The MySQL stand-in image (databases/mysql/standin/, Debian's MySQL 9.7) run through Docker
// Compose exactly as the lab would run it: compose.yaml + databases/mysql/compose.yaml + both
// stand-in overrides, the official image's env contract, compose's `mysqld ...` command line. Checks
// the first start (database, root@'%' with the password and no other root account reachable), the
// settings compose states as the server's own variables, the label, the server as PID 1, a clean
// stop and a restart that keeps the data without initialising again, /docker-entrypoint-initdb.d,
// and the refusals. Needs the Docker engine and the image (lab/standins/build.sh mysql; lab/test.sh
// builds it before npm test).
const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('crypto');
const { execFileSync, spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { CLIENT_DIR, clientRequire } = require('./deps');

const { runCli } = require(path.join(CLIENT_DIR, 'test/helpers/run-cli'));
const { freePort } = require(path.join(CLIENT_DIR, 'test/helpers/processes'));

const mysql = clientRequire('mysql2/promise');
const ROOT = path.resolve(CLIENT_DIR, '..');
const MANIFEST = JSON.parse(fs.readFileSync(path.join(ROOT, 'databases/mysql/database.json'), 'utf8'));
const IMAGE = MANIFEST.standin.image;
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
  // /docker-entrypoint-initdb.d with one SQL file, through a compose override in a temp folder
  const extra = fs.mkdtempSync(path.join(os.tmpdir(), 'jsonbench-mysql-initdb-'));
  const initdb = path.join(extra, 'initdb');
  fs.mkdirSync(initdb, { mode: 0o755 });
  fs.chmodSync(initdb, 0o755);
  fs.writeFileSync(path.join(initdb, '01-note.sql'), "CREATE TABLE initdb (note TEXT); INSERT INTO initdb VALUES ('ran');\n", { mode: 0o644 });
  fs.writeFileSync(path.join(extra, 'initdb.yaml'), `services:\n  mysql:\n    volumes:\n      - ${initdb}:/docker-entrypoint-initdb.d:ro\n`);
  const compose = (...args) => execFileSync('docker', ['compose', '-p', project, ...FILES, '-f', path.join(extra, 'initdb.yaml'), ...args],
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
  test.after(() => {
    if (env) compose('down', '-v', '--timeout', '30');
    fs.rmSync(extra, { recursive: true, force: true });
  });

  test('first start: the label, mysqld as PID 1, the settings compose states, root only with the password', async () => {
    const id = container();
    assert.equal(execFileSync('docker', ['inspect', '-f', '{{index .Config.Labels "jsonbench.stand_in"}}', id], { encoding: 'utf8' }).trim(),
      MANIFEST.standin.label);
    assert.equal(execFileSync('docker', ['exec', id, 'cat', '/proc/1/comm'], { encoding: 'utf8' }).trim(), MANIFEST.standin.processes[0]);
    const c = await connect('root', password);
    try {
      const [[row]] = await c.query(`SELECT VERSION(), @@version_comment, @@log_bin, @@binlog_format, @@binlog_row_image,
        @@binlog_row_value_options, @@sync_binlog, @@innodb_flush_log_at_trx_commit, @@innodb_doublewrite, @@innodb_buffer_pool_size,
        @@innodb_redo_log_capacity, @@skip_name_resolve, @@binlog_rows_query_log_events, @@character_set_server, @@max_connections,
        @@max_allowed_packet, @@sql_generate_invisible_primary_key`);
      assert.deepEqual(row.map(String), ['9.7.4-2', '(Debian)', '1', 'ROW', 'FULL', 'PARTIAL_JSON', '1', '1', 'ON', String(256 << 20),
        String(128 << 20), '1', '0', 'utf8mb4', '200', String(64 << 20), '0']);
      const [users] = await c.query("SELECT CONCAT(User, '@', Host) FROM mysql.user ORDER BY 1");
      assert.deepEqual(users.map(([u]) => u), ['mysql.infoschema@localhost', 'mysql.session@localhost', 'mysql.sys@localhost', 'root@%', 'root@localhost']);
      // the init script ran once, on the temporary server, in MYSQL_DATABASE
      assert.deepEqual((await c.query('SELECT note FROM jsonbench.initdb'))[0], [['ran']]);
    } finally {
      await c.end();
    }
    await assert.rejects(connect('root', ''), /Access denied/);
    await assert.rejects(connect('root', 'wrong'), /Access denied/);
    const log = logs();
    // only the final server listened on TCP: the temporary one had no networking
    assert.match(log, /standin-entrypoint: starting the temporary server \(socket only, no networking\)/);
    assert.equal((log.match(/ready for connections\. Version: '9\.7\.4-2'\s+socket: '[^']+'\s+port: 3306/g) || []).length, 1, log);
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

  test('refusals: no password option on first start; an option mysqld does not know; a *_FILE variable', () => {
    let r = spawnSync('docker', ['run', '--rm', IMAGE], { encoding: 'utf8' });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /no password option is set; set one of MYSQL_ROOT_PASSWORD, MYSQL_ALLOW_EMPTY_PASSWORD, MYSQL_RANDOM_ROOT_PASSWORD/);
    r = spawnSync('docker', ['run', '--rm', '-e', 'MYSQL_ROOT_PASSWORD=x', IMAGE, 'mysqld', '--no-such-option=ON'], { encoding: 'utf8' });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /mysqld refused its configuration: mysqld --no-such-option=ON: .*unknown variable 'no-such-option=ON'/);
    r = spawnSync('docker', ['run', '--rm', '-e', 'MYSQL_ROOT_PASSWORD_FILE=/run/secrets/x', IMAGE], { encoding: 'utf8' });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /MYSQL_ROOT_PASSWORD_FILE is not supported by this stand-in/);
  });
});
