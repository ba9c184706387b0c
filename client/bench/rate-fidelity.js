'use strict';
// Rate fidelity against a real PostgreSQL: `node client run` at 200, 1000
// and 5000 docs/s for 20 s each (10 x 100 B, relaxed durability so the
// database can keep up). Prints achieved rate and start lag; no asserts.
const fs = require('fs');
const os = require('os');
const path = require('path');
const { startPostgres } = require('../test/helpers/postgres-server');
const { runCli } = require('../test/helpers/run-cli');

const SECONDS = Number(process.env.BENCH_SECONDS || 20);
const RATES = (process.env.BENCH_RATES || '200 1000 5000').split(/\s+/).map(Number);

async function main() {
  const pg = await startPostgres();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jsonbench-fidelity-'));
  const rows = [];
  try {
    for (const rate of RATES) {
      await runCli(['init', '--uri', pg.uri, '--key', 'uuidv7', '--layout', 'heap']);
      const result = path.join(dir, `${rate}.json`);
      const r = await runCli(['run', '--uri', pg.uri, '--key', 'uuidv7', '--layout', 'heap', '--fields', '10', '--field-bytes', '100',
        '--rate', String(rate), '--docs', String(rate * SECONDS), '--durability', 'relaxed', '--result', result],
      { timeoutMs: (SECONDS * 3 + 30) * 1000 });
      if (r.code !== 0 && !fs.existsSync(result)) throw new Error(`run at ${rate}/s failed: ${r.stderr}`);
      const res = JSON.parse(fs.readFileSync(result, 'utf8'));
      rows.push({
        target: rate,
        achieved: res.achieved_rate.toFixed(1),
        'deviation_%': ((res.achieved_rate / rate - 1) * 100).toFixed(2),
        ok: res.docs_ok,
        dropped: res.dropped,
        sustained: res.target_sustained,
        lag_p50_ms: res.start_lag_ms.p50,
        lag_p99_ms: res.start_lag_ms.p99,
        lag_max_ms: res.start_lag_ms.max,
        service_p99_ms: res.service_ms.p99,
        latency_p99_ms: res.latency_ms.p99,
      });
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    await pg.cleanup();
  }
  console.log(`rate fidelity, ${SECONDS} s per rate, PostgreSQL, 10 x 100 B, relaxed durability; `
    + 'targets: achieved within 1% when the database keeps up, start lag p99 <= 2 ms');
  console.table(rows);
  return rows;
}

if (require.main === module) main().catch((err) => { console.error(err); process.exit(1); });
module.exports = { main };
