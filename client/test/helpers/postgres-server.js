'use strict';
// A real PostgreSQL server for tests: Debian's packages, a fresh data
// directory in a temp folder, a free port on 127.0.0.1, stopped by pid.
// initdb refuses to run as root, so as root the server runs as `postgres`.
const { execFileSync, spawn } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { Client } = require('pg');
const { freePort, stopChild, waitUntil, readyOrCleanedUp, tail } = require('./processes');

function findBinDir() {
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return null;
  const versions = fs.readdirSync(root).filter((v) => fs.existsSync(path.join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length ? path.join(root, versions[0], 'bin') : null;
}

// On a fresh CI machine (root, no stdin) install Debian's PostgreSQL.
function ensureInstalled() {
  let bin = findBinDir();
  if (bin) return bin;
  if (process.getuid() !== 0) throw new Error('PostgreSQL is not installed (/usr/lib/postgresql/*/bin/initdb) and we are not root to apt-get it');
  execFileSync('apt-get', ['update'], { stdio: 'ignore', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'postgresql'], { stdio: 'ignore', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  bin = findBinDir();
  if (!bin) throw new Error('apt-get install postgresql did not provide initdb');
  return bin;
}

// uid/gid to run as: `postgres` when we are root, else ourselves.
function runAs() {
  if (process.getuid() !== 0) return {};
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
  return { uid, gid };
}

async function startPostgres() {
  const bin = ensureInstalled();
  const user = runAs();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jsonbench-pg-'));
  const data = path.join(dir, 'data');
  if (user.uid !== undefined) fs.chownSync(dir, user.uid, user.gid);
  execFileSync(path.join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync'], { ...user, stdio: 'ignore' });
  const port = await freePort();
  const logFile = path.join(dir, 'server.log');
  const uri = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const spawnServer = () => {
    const log = fs.openSync(logFile, 'a');
    if (user.uid !== undefined) fs.fchownSync(log, user.uid, user.gid);
    const child = spawn(path.join(bin, 'postgres'), [
      '-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1',
    ], { ...user, stdio: ['ignore', log, log] });
    fs.closeSync(log);
    return child;
  };
  const server = {
    port, uri, dir, logFile, child: spawnServer(),
    get pid() { return this.child.pid; },
    // PostgreSQL's SIGTERM is a "smart" shutdown that waits for sessions to
    // end; SIGINT (fast) is what stops a server under a connected client.
    stop(signal = 'SIGINT') { return stopChild(this.child, signal); },
    // Same data directory and port: clients can reconnect to it.
    async restart() {
      await this.stop();
      this.child = spawnServer();
      await this.ready();
    },
    async cleanup() {
      await stopChild(this.child, 'SIGINT');
      fs.rmSync(dir, { recursive: true, force: true });
    },
    async query(sql, params) {
      const c = new Client({ connectionString: uri });
      await c.connect();
      try { return await c.query(sql, params); } finally { await c.end(); }
    },
    ready() {
      return waitUntil(async () => {
        if (this.child.exitCode !== null) throw new Error(`postgres exited: ${tail(logFile)}`);
        await this.query('select 1');
      }, 30000, 'PostgreSQL');
    },
  };
  return readyOrCleanedUp(server, () => server.ready());
}

module.exports = { startPostgres };
