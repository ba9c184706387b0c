'use strict';
// `validate-bench FILE`: check a bench.env against the schema (exit 2 if bad).
const { validateBenchText, InputError, workloadOf } = require('../bench-schema');
const { refuseOnStandIns } = require('../stand-ins');
const { fileAndSets, benchText } = require('../bench-file');

// --stand-ins: the lab will run on its stand-in images (JSONBENCH_STANDINS=1): what they cannot do
// is refused here, before anything starts (stand-ins.js).
// FILE [--set KEY=VALUE]...: the file with the command line's overrides (bench-file.js).
function validateBench(argv) {
  const standIns = argv[0] === '--stand-ins';
  const { file, sets } = fileAndSets(standIns ? argv.slice(1) : argv, 'validate-bench: expected [--stand-ins] FILE [--set KEY=VALUE]...');
  const text = benchText(file, sets);
  const values = validateBenchText(text, file);
  if (standIns) refuseOnStandIns(values, file, text);
  // a workload's file may say what it prints of a valid file (okSummary); else the documents' line
  const { okSummary } = workloadOf(values);
  if (okSummary) {
    console.log(`${file}: ok (${values.DATABASES.join(' ')}; ${okSummary(values, standIns)})`);
    return 0;
  }
  console.log(`${file}: ok (${values.DATABASES.join(' ')}; ${values.KEY}/${values.LAYOUT}; `
    + `${values.FIELDS} x ${values.FIELD_BYTES} B${values.SHAPE === 'nested' ? ` nested ${values.DEPTH} deep x ${values.FANOUT}` : ''}`
    + `; ${values.CLIENTS} client(s) x ${values.RATE} docs/s x ${values.DOCS} docs)`);
  return 0;
}

module.exports = { validateBench };
