'use strict';
// `npm run bench`: every benchmark in turn, each printing its own figures.
const benches = ['./generation', './client-cpu', './op-cpu', './rate-fidelity', './slow-database', './booking-cpu'];

(async () => {
  for (const b of benches) {
    console.log(`\n== ${b.slice(2)} ==`);
    await require(b).main();
  }
})().catch((err) => { console.error(err); process.exit(1); });
