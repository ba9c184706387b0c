'use strict';
// Client CPU per operation, per operation type, on PostgreSQL and on the
// MongoDB wire path (SecantusDB, the stand-in: its server costs are not
// MongoDB's, but the client and driver work measured here is the same),
// this client next to a floor client of the same driver (lib/op-cpu-client.js).
// Both run back-to-back (closed loop): the figure is the client's own work
// per operation; what waking up at a fixed rate adds is client-cpu.js's
// subject (the same for every operation type). Prints figures and verdicts.
const path = require('path');
const { execFileSync } = require('child_process');
const { startPostgres } = require('../test/helpers/postgres-server');
const { startSecantus } = require('../test/helpers/secantus-server');
const { runCli } = require('../test/helpers/run-cli');

const OPS_PG = Number(process.env.BENCH_OPS_PG || 3000);
// The stand-in is a Python server (about 1 ms per keyed read or update here): a small count keeps
// the benchmark to minutes; the client's own work per operation does not depend on it.
const OPS_MONGO = Number(process.env.BENCH_OPS_MONGO || 200);
const RECORDS = Number(process.env.BENCH_RECORDS || 300);
const SCAN_MAX = Number(process.env.BENCH_SCAN_MAX || 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS || 3);
const OPS = ['read', 'update', 'scan', 'rmw', 'insert'];
const TARGET = 1.5;

const ENV = {
  KEY: 'uuidv4', LAYOUT: 'clustered', FIELDS: '10', FIELD_BYTES: '100', RATE: '1000', WORKLOAD: 'ycsb', RECORDS: String(RECORDS),
  DURABILITY: 'relaxed', CLIENTS: '1', CLIENT_ID: '1',
};

async function reload(uri) {
  const env = { ...ENV, URI: uri };
  if ((await runCli(['init'], { env })).code !== 0) throw new Error('init failed');
  const r = await runCli(['run'], { env: { ...env, STAGE: 'load' }, timeoutMs: 600000 });
  if (r.code !== 0) throw new Error(`load failed: ${r.stderr}${r.stdout}`);
}

function measure(kind, uri, op, ops) {
  const out = execFileSync(process.execPath, [path.join(__dirname, 'lib/op-cpu-client.js'), kind, uri, op, ops, RECORDS, SCAN_MAX],
    { timeout: 600000 }).toString();
  return JSON.parse(out.trim().split('\n').pop());
}

async function main() {
  const rows = [];
  const verdicts = [];
  for (const [label, start, ops] of [['PostgreSQL', startPostgres, OPS_PG], ['SecantusDB (MongoDB wire path, stand-in)', startSecantus, OPS_MONGO]]) {
    const server = await start();
    try {
      for (const op of OPS) {
        const best = {};
        for (let round = 0; round < ROUNDS; round++) {
          for (const kind of ['floor', 'ours']) {
            // Writes change the data: every measurement starts from the same loaded records.
            if (op !== 'read' && op !== 'scan') await reload(server.uri);
            else if (round === 0 && kind === 'floor') await reload(server.uri);
            const m = measure(kind, server.uri, op, ops);
            if (m.ops !== ops) throw new Error(`${label} ${op} ${kind}: ${m.ops} of ${ops}`);
            if (!best[kind] || m.cpu_us_per_op < best[kind].cpu_us_per_op) best[kind] = m;
          }
        }
        const ratio = best.ours.cpu_us_per_op / best.floor.cpu_us_per_op;
        rows.push({
          database: label, op, floor_us_per_op: best.floor.cpu_us_per_op.toFixed(1), ours_us_per_op: best.ours.cpu_us_per_op.toFixed(1),
          vs_floor: ratio.toFixed(2), ops_per_s_ours: (ops / best.ours.seconds).toFixed(0),
        });
        verdicts.push(`${label} ${op}: ${ratio.toFixed(2)}x the floor (target <= ${TARGET}x): ${ratio <= TARGET ? 'met' : 'MISSED'}`);
      }
    } finally {
      await server.cleanup();
    }
  }
  console.log(`client CPU per operation (user+system us, best of ${ROUNDS}), back-to-back, ${OPS_PG} ops on PostgreSQL / ${OPS_MONGO} on SecantusDB, `
    + `10 x 100 B, ${RECORDS} records, uniform keys, scans of 1..${SCAN_MAX}, relaxed durability; floor = the same driver's plain calls`);
  console.table(rows);
  console.log('SecantusDB\'s own speed (ops_per_s) is the stand-in\'s, not MongoDB\'s; the client CPU per operation is the driver\'s and this client\'s.');
  console.log('targets:');
  for (const v of verdicts) console.log(`  ${v}`);
  return rows;
}

if (require.main === module) main().catch((err) => { console.error(err); process.exit(1); });
module.exports = { main };
