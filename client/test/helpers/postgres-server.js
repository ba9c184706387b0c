'use strict';
// A real PostgreSQL server for tests: a container of the PostgreSQL image the lab itself runs (the
// official image databases/postgres/compose.yaml pins when it is present, else the lab's stand-in,
// databases/postgres/database.json standin.image: PostgreSQL 17 on Debian 13, built by
// `lab/standins/build.sh postgres`; lab/test.sh builds it before the suites), so the client is
// tested against the server version the lab measures, not whatever the host's packages hold.
// Fresh data (the container's own volume), trust authentication, 5432 published on a free
// loopback port; stopped and removed by its id, volume included.
const { execFileSync, spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');
const { Client } = require('pg');
const { freePort, sleep, waitUntil, readyOrCleanedUp } = require('./processes');

const ROOT = path.resolve(__dirname, '../../..');

const docker = (args, opts = {}) => execFileSync('docker', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...opts }).trim();

// The images the lab would run for the postgres service: compose.yaml's, then the stand-in's.
function candidateImages() {
  const compose = fs.readFileSync(path.join(ROOT, 'databases/postgres/compose.yaml'), 'utf8');
  const official = /^ {4}image: *(\S+)/m.exec(compose);
  const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'databases/postgres/database.json'), 'utf8'));
  return [official && official[1], manifest.standin.image].filter(Boolean);
}

function present(image) {
  const r = spawnSync('docker', ['image', 'inspect', image], { stdio: 'ignore' });
  if (r.error) throw new Error(`no docker command (${r.error.code}): the PostgreSQL test server runs in a container`);
  return r.status === 0;
}

// The first present image, or an error that says how to get one.
function postgresImage() {
  const images = candidateImages();
  const found = images.find(present);
  if (!found) {
    throw new Error(`no PostgreSQL image for the tests: neither ${images.join(' nor ')} is present `
      + '(build the stand-in with lab/standins/build.sh postgres, or pull the official one)');
  }
  return found;
}

const running = (id) => docker(['inspect', '-f', '{{.State.Running}}', id]) === 'true';

// args: the server's own settings on its command line (e.g. ['-c', 'shared_buffers=384MB']), as
// compose.yaml gives them: `postgres ARGS` through the image's entrypoint.
async function startPostgres({ args = [] } = {}) {
  const image = postgresImage();
  const port = await freePort();
  // --shm-size: Docker's 64 MB /dev/shm is short for parallel query workers (compose.yaml sets 1g)
  const id = docker(['run', '-d', '--label', 'jsonbench.test=postgres', '--label', `jsonbench.test.file=${path.basename(process.argv[1] || '')}`, '-p', `127.0.0.1:${port}:5432`,
    '--shm-size', '256m', '-e', 'POSTGRES_HOST_AUTH_METHOD=trust', '-e', 'POSTGRES_INITDB_ARGS=-E UTF8 --no-sync',
    image, ...(args.length ? ['postgres', ...args] : [])]);
  const uri = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const server = {
    id, image, port, uri,
    // PostgreSQL's SIGTERM is a "smart" shutdown that waits for sessions to end; SIGINT (fast, also
    // the images' STOPSIGNAL) is what stops a server under a connected client. The container's
    // process 1 is postgres itself (both entrypoints exec it).
    async stop(signal = 'SIGINT') {
      if (!running(id)) return;
      docker(['kill', '-s', signal, id]);
      const deadline = Date.now() + 30000;
      while (running(id)) {
        if (Date.now() > deadline) { docker(['kill', id]); break; }
        await sleep(100);
      }
    },
    // Same data (the container's volume) and port: clients can reconnect to it.
    async restart() {
      await this.stop();
      docker(['start', id]);
      await this.ready();
    },
    async cleanup() {
      try { docker(['rm', '-f', '-v', id]); } catch { /* already gone */ }
    },
    async query(sql, params) {
      const c = new Client({ connectionString: uri, connectionTimeoutMillis: 5000 });
      await c.connect();
      try { return await c.query(sql, params); } finally { await c.end(); }
    },
    logs() {
      const r = spawnSync('docker', ['logs', '--tail', '30', id], { encoding: 'utf8' });
      return `${r.stdout || ''}${r.stderr || ''}`;
    },
    // Ready = a TCP session answering (the entrypoint's first-start server listens on no TCP port).
    ready() {
      return waitUntil(async () => {
        if (!running(id)) throw new Error(`the ${image} container stopped: ${this.logs()}`);
        await this.query('select 1');
      }, 60000, `PostgreSQL (${image})`);
    },
  };
  return readyOrCleanedUp(server, () => server.ready());
}

module.exports = { startPostgres, postgresImage };
