'use strict';
// `validate-bench FILE`: check a bench.env against the schema (exit 2 if bad).
const fs = require('fs');
const { validateBenchText, InputError, formatMix } = require('../bench-schema');

function validateBench(args) {
  if (args.length !== 1) throw new InputError(`validate-bench: expected exactly one FILE, got ${args.length} arguments`);
  const file = args[0];
  let text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new InputError(`${file}: cannot read: ${err.code || err.message}`);
  }
  const values = validateBenchText(text, file);
  const load = values.WORKLOAD === 'ycsb'
    ? `; ycsb ${formatMix(values.MIX)}, ${values.DIST}, ${values.RECORDS} records loaded ${values.LOAD_RATE ? `at ${values.LOAD_RATE}/s per client` : 'back-to-back'}, `
      + `${values.CLIENTS} client(s) x ${values.RATE} ops/s x ${values.OPS} ops`
    : `; ${values.CLIENTS} client(s) x ${values.RATE} docs/s x ${values.DOCS} docs`;
  console.log(`${file}: ok (${values.DATABASES.join(' ')}; ${values.KEY}/${values.LAYOUT}; `
    + `${values.FIELDS} x ${values.FIELD_BYTES} B${values.SHAPE === 'nested' ? ` nested ${values.DEPTH} deep x ${values.FANOUT}` : ''}${load})`);
  return 0;
}

module.exports = { validateBench };
