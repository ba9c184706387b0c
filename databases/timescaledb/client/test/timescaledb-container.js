'use strict';
// A TimescaleDB server for tests, from a local image: the lab's stand-in (database.json
// standin.image: Debian's TimescaleDB 2.19.3, Apache edition, on the PostgreSQL 17 stand-in; built
// by lab/standins/build.sh, which lab/test.sh runs before the suites), or with JSONBENCH_STANDINS=0
// the official image compose.yaml names (timescale/timescaledb:2.28.3-pg17, where a registry reached
// it), or any image named by JSONBENCH_TIMESCALEDB_IMAGE (e.g. one built by hand from TimescaleDB's
// source: databases/timescaledb/README.md). Absent, the tests say so and skip, except under CI=true
// on the stand-ins, where lab/test.sh has built it: there its absence fails (a test that skips on
// every CI run tests nothing).
// The container publishes 5432 on a free loopback port and is stopped (and removed) by its id.
const { execFileSync } = require('child_process');
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');
const { fromClient, CLIENT_DIR } = require('./deps');

const { Client } = fromClient('pg');
const { waitUntil } = require(path.join(CLIENT_DIR, 'test/helpers/processes'));

const MANIFEST = JSON.parse(fs.readFileSync(path.join(__dirname, '../../database.json'), 'utf8'));
const COMPOSE = fs.readFileSync(path.join(__dirname, '../../compose.yaml'), 'utf8');
const OFFICIAL = /\$\{TIMESCALEDB_IMAGE:-([^}]+)\}/.exec(COMPOSE)[1];
const OFFICIAL_PATH = process.env.JSONBENCH_STANDINS === '0';
const IMAGE = process.env.JSONBENCH_TIMESCALEDB_IMAGE || (OFFICIAL_PATH ? OFFICIAL : MANIFEST.standin.image);
const IN_CI = ['true', '1', 'yes'].includes(String(process.env.CI || '').toLowerCase());

const docker = (args) => execFileSync('docker', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

// Why the image cannot be used here, or null.
function imageAbsent() {
  try {
    docker(['image', 'inspect', '--format', '{{.Id}}', IMAGE]);
    return null;
  } catch (err) {
    const why = err.code === 'ENOENT' ? 'no docker command' : `no local image ${IMAGE}`;
    const said = `${why}: ${OFFICIAL_PATH ? 'pull it (docker compose pull timescaledb)' : 'build the stand-in (lab/standins/build.sh timescaledb)'}, `
      + 'or set JSONBENCH_TIMESCALEDB_IMAGE to a local TimescaleDB image';
    if (IN_CI && !OFFICIAL_PATH) throw new Error(`CI=true: ${said} (lab/test.sh builds it before the suites)`);
    return said;
  }
}

async function startTimescaledb() {
  const password = crypto.randomBytes(12).toString('hex');
  // Settings of the lab's service that matter for answers and for a small test: none change an
  // answer; telemetry off (no network here, and no background traffic).
  const id = docker(['run', '-d', '--rm', '--label', 'jsonbench.test=timescaledb',
    '--label', `jsonbench.test.file=${path.basename(process.argv[1] || '')}`, '-p', '127.0.0.1::5432',
    // The official image's first start would run timescaledb-tune (rewriting postgresql.conf): off.
    '-e', `POSTGRES_PASSWORD=${password}`, '-e', 'NO_TS_TUNE=true', '-e', 'TIMESCALEDB_TELEMETRY=off',
    IMAGE, 'postgres', '-c', 'shared_preload_libraries=timescaledb', '-c', 'timescaledb.telemetry_level=off',
    '-c', 'shared_buffers=128MB']);
  const server = {
    id,
    image: IMAGE,
    async cleanup() { try { docker(['stop', '-t', '30', id]); } catch { /* already gone */ } },
  };
  try {
    const port = Number(/:(\d+)$/m.exec(docker(['port', id, '5432/tcp']))[1]);
    server.port = port;
    server.uri = `timescaledb://postgres:${password}@127.0.0.1:${port}/postgres`;
    server.pgUri = `postgres://postgres:${password}@127.0.0.1:${port}/postgres`;
    // Ready = a TCP session that sees the extension (the entrypoint's first, temporary server
    // listens on no TCP port).
    await waitUntil(async () => {
      const c = new Client({ connectionString: server.pgUri, connectionTimeoutMillis: 2000 });
      await c.connect();
      try {
        const { rows } = await c.query("select default_version from pg_available_extensions where name = 'timescaledb'");
        if (!rows.length) throw new Error(`${IMAGE} has no timescaledb extension`);
      } finally { await c.end(); }
    }, 60000, `TimescaleDB (${IMAGE})`);
    return server;
  } catch (err) {
    await server.cleanup();
    throw err;
  }
}

module.exports = { startTimescaledb, imageAbsent, IMAGE };
