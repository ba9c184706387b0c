'use strict';
// `validate-bench FILE`: check a bench.env against the schema (exit 2 if bad).
const fs = require('fs');
const { validateBenchText, InputError, formatMix } = require('../bench-schema');
const { refuseOnStandIns } = require('../stand-ins');

// --stand-ins: the lab will run on its stand-in images (JSONBENCH_STANDINS=1): what they cannot do
// is refused here, before anything starts (stand-ins.js).
function validateBench(argv) {
  const standIns = argv[0] === '--stand-ins';
  const args = standIns ? argv.slice(1) : argv;
  if (args.length !== 1) throw new InputError(`validate-bench: expected [--stand-ins] FILE, got ${args.length} arguments`);
  const file = args[0];
  let text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new InputError(`${file}: cannot read: ${err.code || err.message}`);
  }
  const values = validateBenchText(text, file);
  if (standIns) refuseOnStandIns(values, file, text);
  if (values.WORKLOAD === 'tsbs') {
    console.log(`${file}: ok (${values.DATABASES.join(' ')}; tsbs MODEL=${values.MODEL}, ${values.HOSTS} hosts every ${values.INTERVAL_S} s `
      + `for ${values.SPAN_S} s from ${values.START}; ${values.CLIENTS} client(s) x ${values.RATE} events/s${standIns ? '; stand-ins' : ''})`);
    return 0;
  }
  const load = values.WORKLOAD === 'ycsb'
    ? `; ycsb ${formatMix(values.MIX)}, ${values.DIST}, ${values.RECORDS} records loaded ${values.LOAD_RATE ? `at ${values.LOAD_RATE}/s per client` : 'back-to-back'}, `
      + `${values.CLIENTS} client(s) x ${values.RATE} ops/s x ${values.OPS} ops`
    : `; ${values.CLIENTS} client(s) x ${values.RATE} docs/s x ${values.DOCS} docs`;
  console.log(`${file}: ok (${values.DATABASES.join(' ')}; ${values.KEY}/${values.LAYOUT}; `
    + `${values.FIELDS} x ${values.FIELD_BYTES} B${values.SHAPE === 'nested' ? ` nested ${values.DEPTH} deep x ${values.FANOUT}` : ''}${load})`);
  return 0;
}

module.exports = { validateBench };
