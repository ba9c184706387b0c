'use strict';
// A TXN_OUTCOMES file (client/src/txn-outcomes.schema.json) from client result files, as `python -m
// analysis txn-outcomes` writes it for the lab: what count's nothing-lost check needs of each client.
const fs = require('fs');
const path = require('path');

// results: the clients' result objects; returns the file's path (in dir).
function writeOutcomes(dir, results, name = `outcomes-${Date.now()}-${Math.random().toString(16).slice(2)}.json`) {
  const file = path.join(dir, name);
  fs.writeFileSync(file, JSON.stringify({
    phase: 'test',
    clients: results.map((r) => ({
      client_id: String(r.client_id),
      workload: r.workload,
      key: r.key,
      seed: r.seed,
      flights: r.transactions.flights,
      day_range: r.transactions.day_range,
      committed_indices: r.transactions.committed_indices,
      in_doubt_indices: r.transactions.in_doubt_indices,
    })),
  }));
  return file;
}

module.exports = { writeOutcomes };
