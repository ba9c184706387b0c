'use strict';
// FerretDB (SQLite handler) as the MongoDB-protocol server for tests: no
// registry here ships a MongoDB server binary (see shared OFFLINE-CI.md).
// It is a stand-in, named as such in test output; not a MongoDB result.
const { execFileSync, spawn } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { MongoClient } = require('mongodb');
const { freePort, stopChild, waitUntil, readyOrCleanedUp, tail } = require('./processes');

const BUILD_SCRIPT = path.resolve(__dirname, '../../../lab/standins/ferretdb/build-binary.sh');

// The lab's build script (idempotent, cached) prints the binary's path on
// its last stdout line. FERRETDB_BIN overrides it.
let binary = null;
function ferretdbBinary() {
  if (process.env.FERRETDB_BIN) return process.env.FERRETDB_BIN;
  if (binary) return binary;
  const out = execFileSync('bash', [BUILD_SCRIPT], { stdio: ['ignore', 'pipe', 'inherit'], timeout: 20 * 60 * 1000 });
  const lines = out.toString().trim().split('\n');
  binary = lines[lines.length - 1].trim();
  return binary;
}

async function startFerretDB() {
  const bin = ferretdbBinary();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jsonbench-ferretdb-'));
  const port = await freePort();
  const debugPort = await freePort();
  const logFile = path.join(dir, 'server.log');
  const log = fs.openSync(logFile, 'a');
  const child = spawn(bin, [
    '--handler=sqlite', `--sqlite-url=file:${dir}/`, `--listen-addr=127.0.0.1:${port}`,
    `--debug-addr=127.0.0.1:${debugPort}`, `--state-dir=${dir}`, '--telemetry=disable', '--log-level=WARN',
  ], { stdio: ['ignore', log, log] });
  fs.closeSync(log);
  const uri = `mongodb://127.0.0.1:${port}/jsonbench`;
  const server = {
    port, uri, dir, child, pid: child.pid, logFile, name: 'FerretDB (MongoDB stand-in)',
    stop: (signal = 'SIGTERM') => stopChild(child, signal),
    async cleanup() {
      await stopChild(child, 'SIGTERM');
      fs.rmSync(dir, { recursive: true, force: true });
    },
    async withDb(fn) {
      const c = new MongoClient(uri, { serverSelectionTimeoutMS: 3000 });
      await c.connect();
      try { return await fn(c.db()); } finally { await c.close(); }
    },
  };
  return readyOrCleanedUp(server, () => waitUntil(async () => {
    if (child.exitCode !== null) throw new Error(`ferretdb exited: ${tail(logFile)}`);
    await server.withDb((db) => db.command({ ping: 1 }));
  }, 30000, 'FerretDB'));
}

module.exports = { startFerretDB };
