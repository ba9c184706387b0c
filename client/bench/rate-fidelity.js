'use strict';
// Rate fidelity against a real PostgreSQL: `node client run` at 200, 1000
// and 5000 docs/s for 20 s each (10 x 100 B, relaxed durability so the
// database can keep up). Prints achieved rate, start lag and the client's
// own part of it (scheduler lag), and whether each target is met; no asserts.
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
  const verdicts = [];
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
        own_lag_p99_ms: res.scheduler_lag_ms.p99,
        service_p99_ms: res.service_ms.p99,
        latency_p99_ms: res.latency_ms.p99,
      });
      const deviation = Math.abs(res.achieved_rate / rate - 1) * 100;
      const rateVerdict = !res.target_sustained ? 'database did not keep up (dropped), not judged'
        : `${deviation.toFixed(2)}% off (target <= 1%): ${deviation <= 1 ? 'met' : 'MISSED'}`;
      const lag = res.start_lag_ms.p99;
      const own = res.scheduler_lag_ms.p99;
      verdicts.push(`${rate}/s: achieved ${rateVerdict}; start lag p99 ${lag} ms (target <= 2 ms): ${lag <= 2 ? 'met' : 'MISSED'}`
        + (lag > 2 ? ` - of which the client's own lateness p99 is ${own} ms, the rest is waiting behind the insert before (service p99.9 ${res.service_ms.p999} ms)` : '')
        + `; own lateness p99 ${own} ms (target < 5 ms): ${own < 5 ? 'met' : 'MISSED'}`);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    await pg.cleanup();
  }
  console.log(`rate fidelity, ${SECONDS} s per rate, PostgreSQL, 10 x 100 B, relaxed durability; `
    + 'targets: achieved within 1% when the database keeps up, start lag p99 <= 2 ms');
  console.table(rows);
  console.log('own_lag = the client\'s own lateness: hand-off minus the later of the intended start and the previous insert settling');
  console.log('targets:');
  for (const v of verdicts) console.log(`  ${v}`);
  return rows;
}

if (require.main === module) main().catch((err) => { console.error(err); process.exit(1); });
module.exports = { main };
