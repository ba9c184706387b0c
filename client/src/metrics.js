'use strict';
// Optional Prometheus endpoint (--metrics-port). Metric names are part of
// the lab's contract (docs/contracts.md §2); every series carries bench,
// database and client_id, and those counting operations also `op` (insert,
// read, update, scan, rmw); a transaction workload's aborts also `reason`.
const http = require('http');
const client = require('prom-client');
// prom-client 15's own collectors for two of its default metrics (the same names and values).
const processCpuTotal = require('prom-client/lib/metrics/processCpuTotal');
const osMemoryHeap = require('prom-client/lib/metrics/osMemoryHeap');

const BUCKETS_S = [0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30];

class Metrics {
  constructor({ bench, database, clientId }) {
    this.registry = new client.Registry();
    this.registry.setDefaultLabels({ bench, database, client_id: String(clientId) });
    // Of prom-client's default metrics only those the lab reads (docs/contracts.md §2): process
    // CPU and resident memory. The full set (~90 series: GC and heap-space series, event-loop lag
    // sampled by its own timer) cost every client CPU and Prometheus a parse at every scrape of
    // every client, only to be dropped by prometheus.yml's keep rule.
    processCpuTotal(this.registry);
    osMemoryHeap(this.registry);
    const r = [this.registry];
    const labelNames = ['op'];
    this.ok = new client.Counter({ name: 'jsonbench_client_docs_ok_total', help: 'Operations (inserted documents for inserts) that succeeded', labelNames, registers: r });
    this.errors = new client.Counter({ name: 'jsonbench_client_errors_total', help: 'Operations that failed', labelNames, registers: r });
    this.dropped = new client.Counter({ name: 'jsonbench_client_dropped_total', help: 'Due operations dropped because the client queue was full', labelNames, registers: r });
    this.targetRate = new client.Gauge({ name: 'jsonbench_client_target_rate', help: 'Offered rate in operations/second (present while the client runs)', registers: r });
    this.latency = new client.Histogram({ name: 'jsonbench_client_latency_seconds', help: 'Operation completion minus intended start', labelNames, buckets: BUCKETS_S, registers: r });
    this.service = new client.Histogram({ name: 'jsonbench_client_service_seconds', help: 'Operation completion minus hand-over to the driver', labelNames, buckets: BUCKETS_S, registers: r });
  }

  // A transaction workload's attempts, commits and aborts by reason (targets/txn-retry.js TxnStats
  // feeds them as it counts): attempts and commits created at 0 so rate() sees the start; an abort
  // reason's series appears with its first abort.
  txnSeries() {
    if (!this.txn) {
      const r = [this.registry];
      this.txn = {
        attempts: new client.Counter({ name: 'jsonbench_client_txn_attempts_total', help: 'Transaction attempts (every retry is one)', registers: r }),
        commits: new client.Counter({ name: 'jsonbench_client_txn_commits_total', help: 'Transactions committed', registers: r }),
        aborts: new client.Counter({
          name: 'jsonbench_client_txn_aborts_total', help: 'Transaction attempts aborted, by reason (as the result file\'s transactions.aborts)', labelNames: ['reason'], registers: r,
        }),
      };
      this.txn.attempts.inc(0);
      this.txn.commits.inc(0);
    }
    return this.txn;
  }

  // The series of one operation type, created at 0 so rate() sees the start.
  forOp(op) {
    const m = {
      ok: this.ok.labels({ op }),
      errors: this.errors.labels({ op }),
      dropped: this.dropped.labels({ op }),
      latency: this.latency.labels({ op }),
      service: this.service.labels({ op }),
    };
    m.ok.inc(0);
    m.errors.inc(0);
    m.dropped.inc(0);
    return m;
  }

  listen(port) {
    this.server = http.createServer(async (req, res) => {
      if (req.url !== '/metrics') {
        res.writeHead(404).end('only /metrics here\n');
        return;
      }
      try {
        const body = await this.registry.metrics();
        res.writeHead(200, { 'Content-Type': this.registry.contentType }).end(body);
      } catch (err) {
        res.writeHead(500).end(String(err));
      }
    });
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, () => resolve());
    });
  }

  // The target-rate series marks the phase: it disappears when sending ends.
  endPhase() {
    this.registry.removeSingleMetric('jsonbench_client_target_rate');
  }

  // Prometheus keeps its scrape connection alive; without closing it, close() never resolves.
  close() {
    if (!this.server) return Promise.resolve();
    const closed = new Promise((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    return closed;
  }
}

module.exports = { Metrics };
