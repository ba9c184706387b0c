'use strict';
// The client exposes, of prom-client's default metrics, only those the lab reads (process CPU and
// resident memory, docs/contracts.md §2): every other series would be parsed by Prometheus at each
// scrape of each client and dropped (prometheus/prometheus.yml keeps only the lab's names).
const test = require('node:test');
const assert = require('node:assert');
const { Metrics } = require('../../src/metrics');

function names(body) {
  return new Set(body.split('\n').filter((l) => l && !l.startsWith('#')).map((l) => l.split(/[{ ]/)[0]));
}

test('only the default metrics the lab reads, with the client labels and live values', async () => {
  const m = new Metrics({ bench: 'b', database: 'postgres', clientId: 3 });
  m.forOp('insert');
  let x = 0;
  for (let i = 0; i < 2e6; i++) x += Math.sqrt(i); // some CPU, so the counter moves
  assert.ok(x > 0);
  const body = await m.registry.metrics();
  const got = names(body);
  for (const n of ['process_cpu_seconds_total', 'process_cpu_user_seconds_total', 'process_cpu_system_seconds_total',
    'process_resident_memory_bytes', 'jsonbench_client_docs_ok_total']) assert.ok(got.has(n), `${n} missing`);
  assert.deepStrictEqual([...got].filter((n) => n.startsWith('nodejs_')), []);
  const cpu = body.match(/^process_cpu_seconds_total\{[^}]*client_id="3"[^}]*\} (\S+)$/m);
  assert.ok(cpu && Number(cpu[1]) > 0, 'process CPU counts this process');
  const rss = body.match(/^process_resident_memory_bytes\{[^}]*\} (\S+)$/m);
  assert.ok(rss && Number(rss[1]) > 1e6, 'resident memory is the process\'s');
});
