'use strict';
// A real MariaDB server for tests (the MySQL stand-in's server: Debian 12's mariadb-server-core,
// 10.11): a fresh data directory in a temp folder, a free port on 127.0.0.1, stopped by pid.
// Nothing it answers is a MySQL result. Binary log on in ROW format as MySQL 8.4 ships it;
// durability 'strict' (innodb_flush_log_at_trx_commit=1, sync_binlog=1: MySQL's defaults and the
// lab's DURABILITY default) unless asked for 'relaxed' (2 and 0).
const { execFileSync, spawn } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { clientRequire, CLIENT_DIR } = require('../deps');
const { freePort, stopChild, waitUntil, readyOrCleanedUp, tail } = require(path.join(CLIENT_DIR, 'test/helpers/processes'));

const mysql = clientRequire('mysql2/promise');
const MARIADBD = '/usr/sbin/mariadbd';
const INSTALL_DB = '/usr/bin/mariadb-install-db';

// On a fresh CI machine (root, no stdin) install Debian's MariaDB server core (no init scripts:
// nothing is started by the install) and the client core (my_print_defaults, for install-db).
function ensureInstalled() {
  if (fs.existsSync(MARIADBD) && fs.existsSync(INSTALL_DB) && fs.existsSync('/usr/bin/my_print_defaults')) return;
  if (process.getuid() !== 0) throw new Error(`MariaDB is not installed (${MARIADBD}) and we are not root to apt-get it`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = () => execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'mariadb-server-core', 'mariadb-client-core'], { stdio: 'ignore', env });
  try { install(); } catch { execFileSync('apt-get', ['update'], { stdio: 'ignore', env }); install(); }
  if (!fs.existsSync(MARIADBD)) throw new Error('apt-get install mariadb-server-core did not provide mariadbd');
}

async function startMariadb({ durability = 'strict' } = {}) {
  ensureInstalled();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jsonbench-mariadb-'));
  const data = path.join(dir, 'data');
  // mariadbd runs as root only when told so; as any other user, as that user.
  const asUser = process.getuid() === 0 ? ['--user=root'] : [];
  execFileSync(INSTALL_DB, ['--no-defaults', `--datadir=${data}`, '--auth-root-authentication-method=normal', '--skip-test-db',
    '--skip-name-resolve', ...asUser], { stdio: 'ignore' });
  const port = await freePort();
  const logFile = path.join(dir, 'server.log');
  const strict = durability === 'strict';
  const args = ['--no-defaults', `--datadir=${data}`, `--socket=${path.join(dir, 'mysqld.sock')}`, `--port=${port}`,
    '--bind-address=127.0.0.1', `--pid-file=${path.join(dir, 'mysqld.pid')}`, ...asUser,
    // As the stand-in image (standin/standin.cnf): ROW format, no annotate events, a 64M packet, as MySQL 8.4 ships.
    '--log-bin=binlog', '--binlog-format=ROW', '--server-id=1', '--binlog-annotate-row-events=OFF', '--max-allowed-packet=64M',
    `--innodb-flush-log-at-trx-commit=${strict ? 1 : 2}`, `--sync-binlog=${strict ? 1 : 0}`,
    '--innodb-buffer-pool-size=64M', '--character-set-server=utf8mb4', '--collation-server=utf8mb4_general_ci', '--skip-name-resolve'];
  const spawnServer = () => {
    const log = fs.openSync(logFile, 'a');
    const child = spawn(MARIADBD, args, { stdio: ['ignore', log, log] });
    fs.closeSync(log);
    return child;
  };
  const uri = `mysql://root@127.0.0.1:${port}/jsonbench`;
  const server = {
    port, uri, dir, logFile, durability, child: spawnServer(),
    get pid() { return this.child.pid; },
    // SIGTERM: mariadbd shuts down, closing the sessions of connected clients.
    stop(signal = 'SIGTERM') { return stopChild(this.child, signal, 30000); },
    // Same data directory and port: clients can reconnect to it.
    async restart() {
      await this.stop();
      this.child = spawnServer();
      await this.ready();
    },
    async cleanup() {
      await stopChild(this.child, 'SIGTERM', 30000);
      fs.rmSync(dir, { recursive: true, force: true });
    },
    // One statement on a fresh connection (text protocol); rows as arrays.
    async query(sql, params) {
      const c = await mysql.createConnection({ host: '127.0.0.1', port, user: 'root', database: 'jsonbench', rowsAsArray: true, jsonStrings: true });
      try { return (await c.query(sql, params))[0]; } finally { await c.end(); }
    },
    async ready() {
      await waitUntil(async () => {
        if (this.child.exitCode !== null) throw new Error(`mariadbd exited: ${tail(logFile)}`);
        const c = await mysql.createConnection({ host: '127.0.0.1', port, user: 'root' });
        try { await c.query('CREATE DATABASE IF NOT EXISTS jsonbench'); } finally { await c.end(); }
      }, 30000, 'MariaDB');
    },
  };
  return readyOrCleanedUp(server, () => server.ready());
}

module.exports = { startMariadb };
