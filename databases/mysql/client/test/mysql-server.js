'use strict';
// A real MySQL server for tests: a container of the official image compose.yaml pins when it is
// present, else of the lab's stand-in (databases/mysql/standin/: Debian's MySQL 9.7, built by
// `lab/standins/build.sh mysql`; lab/test.sh builds it before npm test), started through the
// image's own entrypoint (root without a password: MYSQL_ALLOW_EMPTY_PASSWORD; database jsonbench),
// published on a free port of 127.0.0.1, stopped and removed by its id. Binary log on in ROW format
// with FULL row images (MySQL's defaults, stated as compose.yaml states them); durability 'strict'
// (innodb_flush_log_at_trx_commit=1, sync_binlog=1: MySQL's defaults and the lab's DURABILITY
// default) unless asked for 'relaxed' (2 and 0).
const { execFileSync, spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');
const { clientRequire, CLIENT_DIR } = require('./deps');
const { freePort, waitUntil, readyOrCleanedUp } = require(path.join(CLIENT_DIR, 'test/helpers/processes'));

const mysql = clientRequire('mysql2/promise');
const MANIFEST = JSON.parse(fs.readFileSync(path.join(CLIENT_DIR, '../databases/mysql/database.json'), 'utf8'));
const OFFICIAL = MANIFEST.versions.images[MANIFEST.versions.default];
const STANDIN = MANIFEST.standin.image;

const present = (image) => spawnSync('docker', ['image', 'inspect', image], { stdio: 'ignore' }).status === 0;
// The image the tests run: the official one when present (a host with Docker Hub), else the stand-in.
const IMAGE = [OFFICIAL, STANDIN].find(present) || null;

// Why the MySQL tests cannot run here, or false. Under CI=true never a reason: the tests run and
// fail, naming what is missing (tests/ci_skips.py's rule for the Python suites, kept here too).
function unavailable() {
  if (process.env.CI && /^(true|1|yes)$/i.test(process.env.CI)) return false;
  if (spawnSync('docker', ['version'], { stdio: 'ignore' }).status !== 0) return 'no Docker engine answers';
  return IMAGE ? false : `neither ${OFFICIAL} nor ${STANDIN} is present (lab/standins/build.sh mysql builds the stand-in)`;
}

const docker = (...args) => execFileSync('docker', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

// bufferPool: --innodb-buffer-pool-size as given (InnoDB rounds it: mysql-stats.js CACHE_VARIABLES).
// bufferPoolMb: the pool as databases/mysql/lab.py sizes a bench's CACHE_MB (one instance of one chunk
// of that size: exactly that many MiB); default 64 MiB. args: further server options.
async function startMysql({ durability = 'strict', bufferPool = '64M', bufferPoolMb = null, args = [] } = {}) {
  if (!IMAGE) throw new Error(`neither ${OFFICIAL} nor ${STANDIN} is present (lab/standins/build.sh mysql builds the stand-in)`);
  const strict = durability === 'strict';
  const port = await freePort();
  const id = docker('run', '-d', '--label', 'jsonbench.test=mysql-client-test',
    '--label', `jsonbench.test.file=${path.basename(process.argv[1] || '')}`, '-p', `127.0.0.1:${port}:3306`,
    '-e', 'MYSQL_ALLOW_EMPTY_PASSWORD=1', '-e', 'MYSQL_DATABASE=jsonbench', IMAGE, 'mysqld',
    '--log-bin=binlog', '--binlog-format=ROW', '--binlog-row-image=FULL', '--binlog-row-value-options=PARTIAL_JSON',
    `--innodb-flush-log-at-trx-commit=${strict ? 1 : 2}`, `--sync-binlog=${strict ? 1 : 0}`,
    ...(bufferPoolMb ? [`--innodb-buffer-pool-size=${bufferPoolMb}M`, `--innodb-buffer-pool-chunk-size=${bufferPoolMb}M`,
      '--innodb-buffer-pool-instances=1'] : [`--innodb-buffer-pool-size=${bufferPool}`]),
    '--innodb-redo-log-capacity=64M', '--skip-name-resolve', ...args);
  const uri = `mysql://root@127.0.0.1:${port}/jsonbench`;
  const server = {
    port, uri, id, durability, image: IMAGE, standIn: IMAGE === STANDIN,
    // docker stop: SIGTERM to mysqld (PID 1), a clean shutdown closing the clients' sessions.
    stop() { docker('stop', '--time', '30', id); },
    // Same container: the same data and port; clients can reconnect to it.
    async restart() {
      this.stop();
      docker('start', id);
      await this.ready();
    },
    async cleanup() { spawnSync('docker', ['rm', '-f', '-v', id], { stdio: 'ignore' }); },
    logs() { return spawnSync('docker', ['logs', id], { encoding: 'utf8' }).stderr; },
    // One statement on a fresh connection (text protocol); rows as arrays.
    async query(sql, params) {
      const c = await mysql.createConnection({ host: '127.0.0.1', port, user: 'root', database: 'jsonbench', rowsAsArray: true, jsonStrings: true });
      try { return (await c.query(sql, params))[0]; } finally { await c.end(); }
    },
    // The entrypoint opens TCP only once its first-start work is done: a query over TCP is the final server.
    async ready() {
      await waitUntil(async () => {
        if (docker('inspect', '-f', '{{.State.Running}}', id) !== 'true') throw new Error(`the container exited: ${this.logs().slice(-2000)}`);
        await this.query('SELECT 1');
      }, 180000, `MySQL (${IMAGE})`);
    },
  };
  return readyOrCleanedUp(server, () => server.ready());
}

module.exports = { startMysql, unavailable, IMAGE, STANDIN, OFFICIAL };
