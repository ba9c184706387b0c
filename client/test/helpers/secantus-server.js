'use strict';
// SecantusDB (a MongoDB wire server in Python on WiredTiger) as the MongoDB-protocol server for
// tests: no registry here ships a MongoDB server binary (see shared OFFLINE-CI.md). It is the
// lab's MongoDB stand-in, pinned with wheel hashes in databases/mongodb/standin/requirements.txt and
// named as such in test output; nothing it answers is a MongoDB result.
const { execFileSync, spawn } = require('child_process');
const crypto = require('crypto');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { MongoClient } = require('mongodb');
const { freePort, stopChild, waitUntil, readyOrCleanedUp, tail } = require('./processes');

const REQUIREMENTS = path.resolve(__dirname, '../../../databases/mongodb/standin/requirements.txt');
// CPython 3.11 (Debian 12's python3): the only Python the pinned wheels are built for.
const PYTHON = process.env.SECANTUS_PYTHON || (fs.existsSync('/usr/bin/python3.11') ? '/usr/bin/python3.11' : 'python3');

// The venv is made once per requirements file (keyed by its sha256) and reused: pip runs only
// when the pins change. It is built in a temporary folder and renamed into place, so a venv
// that exists is a complete one.
function secantusVenv() {
  const text = fs.readFileSync(REQUIREMENTS);
  const key = crypto.createHash('sha256').update(text).digest('hex').slice(0, 16);
  const root = path.join(process.env.JSONBENCH_CACHE || '/var/cache/jsonbench', 'secantus-venv');
  const venv = path.join(root, key);
  const bin = path.join(venv, 'bin', 'secantusd-py');
  if (fs.existsSync(bin)) return bin;
  fs.mkdirSync(root, { recursive: true });
  const tmp = fs.mkdtempSync(path.join(root, `${key}.tmp-`));
  try {
    execFileSync(PYTHON, ['-m', 'venv', tmp], { stdio: ['ignore', 'ignore', 'inherit'] });
    execFileSync(path.join(tmp, 'bin', 'pip'), ['install', '--quiet', '--disable-pip-version-check', '--no-deps',
      '--require-hashes', '--only-binary=:all:', '-r', REQUIREMENTS], { stdio: ['ignore', 'ignore', 'inherit'], timeout: 10 * 60 * 1000 });
    // A venv's scripts name its own path in their #! line: rewrite them for the final place.
    for (const f of fs.readdirSync(path.join(tmp, 'bin'))) {
      const p = path.join(tmp, 'bin', f);
      if (!fs.statSync(p).isFile()) continue;
      const s = fs.readFileSync(p, 'latin1');
      if (s.includes(tmp)) fs.writeFileSync(p, s.split(tmp).join(venv), 'latin1');
    }
    fs.writeFileSync(path.join(tmp, 'pyvenv.cfg'), fs.readFileSync(path.join(tmp, 'pyvenv.cfg'), 'utf8').split(tmp).join(venv));
    try {
      fs.renameSync(tmp, venv);
    } catch (err) {
      if (!fs.existsSync(bin)) throw err; // another process made it first: use theirs
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  return bin;
}

// replset: without --standalone, so it advertises a single-node replica set and runs
// multi-document transactions (the URI then has directConnection=true).
// args: more secantusd-py arguments (e.g. ['--cache-size', '8M']).
// The port is asked from the kernel and released before the server binds it: another process
// (the suites run side by side) can take it in between, seen once in CI ("Address already in use").
// The server then exits at once, and a start on another port is tried, up to PORT_TRIES times.
const PORT_TRIES = 5;

async function startSecantus(options = {}) {
  for (let i = 1; ; i++) {
    try {
      return await startSecantusOnce(options);
    } catch (err) {
      if (i >= PORT_TRIES || !/Address already in use/.test(err.message)) throw err;
    }
  }
}

async function startSecantusOnce({ replset = false, args = [] } = {}) {
  const bin = secantusVenv();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jsonbench-secantus-'));
  const port = await freePort();
  const logFile = path.join(dir, 'server.log');
  // --standalone: the lab's mongod runs standalone (no replica set) and the driver must see that
  // topology; --sync-on-commit: commits are durable, as the lab's journaled writes are on mongod.
  const spawnServer = () => {
    const log = fs.openSync(logFile, 'a');
    const c = spawn(bin, ['--host', '127.0.0.1', '--port', String(port), '--storage-path', path.join(dir, 'data'),
      '--sync-on-commit', ...(replset ? [] : ['--standalone']), '--log-level', 'WARNING', ...args], { stdio: ['ignore', log, log] });
    fs.closeSync(log);
    return c;
  };
  const uri = `mongodb://127.0.0.1:${port}/jsonbench${replset ? '?directConnection=true' : ''}`;
  const server = {
    port, uri, dir, child: spawnServer(), logFile, name: 'SecantusDB (MongoDB stand-in)',
    get pid() { return this.child.pid; },
    stop(signal = 'SIGTERM') { return stopChild(this.child, signal); },
    // Same data directory and port: clients can reconnect to it.
    async restart(signal = 'SIGTERM') {
      await this.stop(signal);
      this.child = spawnServer();
      await this.ready();
    },
    async cleanup() {
      await stopChild(this.child, 'SIGTERM');
      fs.rmSync(dir, { recursive: true, force: true });
    },
    async withDb(fn) {
      const c = new MongoClient(uri, { serverSelectionTimeoutMS: 3000 });
      await c.connect();
      try { return await fn(c.db()); } finally { await c.close(); }
    },
    ready() {
      return waitUntil(async () => {
        if (this.child.exitCode !== null) throw Object.assign(new Error(`secantusd-py exited: ${tail(logFile)}`), { notReadyEver: true });
        await this.withDb((db) => db.command({ ping: 1 }));
      }, 60000, 'SecantusDB');
    },
  };
  return readyOrCleanedUp(server, () => server.ready());
}

module.exports = { startSecantus, secantusVenv };
