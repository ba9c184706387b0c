'use strict';
// Generation cost per document: this client's seeded generator against the
// original study's per-character Math.random generator. Prints figures only.
const { DocumentGenerator } = require('../src/docgen');
const { originalDocument } = require('./lib/original-generator');

function usPerDoc(fn, seconds) {
  for (let i = 0; i < 200; i++) fn(i); // warm up the JIT
  let n = 0;
  const start = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const limit = BigInt(Math.round(seconds * 1e9));
  let sink = 0;
  while (process.hrtime.bigint() - t0 < limit) {
    for (let k = 0; k < 50; k++) sink += fn(n++) ? 1 : 0;
  }
  const cpu = process.cpuUsage(start);
  if (sink < 0) console.log(sink);
  return (cpu.user + cpu.system) / n;
}

function main() {
  const rows = [];
  for (const [fields, fieldBytes] of [[10, 1000], [10, 100]]) {
    const gen = new DocumentGenerator({ seed: 1, clientId: '1', fields, fieldBytes });
    const original = usPerDoc(() => originalDocument(fields, fieldBytes), 3);
    const object = usPerDoc((i) => gen.object(i), 3);
    const json = usPerDoc((i) => gen.json(i), 3);
    const originalJson = usPerDoc(() => JSON.stringify(originalDocument(fields, fieldBytes)), 3);
    rows.push({
      shape: `${fields} x ${fieldBytes} B`,
      original_us: original.toFixed(2),
      ours_object_us: object.toFixed(2),
      ours_json_us: json.toFixed(2),
      original_plus_stringify_us: originalJson.toFixed(2),
      speedup_object: (original / object).toFixed(1),
      speedup_json_vs_original_json: (originalJson / json).toFixed(1),
    });
  }
  console.log('generation cost per document (CPU microseconds; target: >= 20x cheaper for 10 x 1000 B)');
  console.table(rows);
  return rows;
}

if (require.main === module) main();
module.exports = { main };
