'use strict';
// `node client bench-specs`: the bench keys as one JSON line {KEY: {type, allowed, values}} (values:
// an enum key's), read from the schema (bench-schema.js, the one place for them). The lab hands it
// to `analysis sweep-args --specs` to check a --sweep argument's key and values before anything runs.
const { BENCH_SPECS, describeAllowed, InputError } = require('../bench-schema');

function benchSpecs(argv) {
  if (argv.length) throw new InputError(`bench-specs: takes no argument, got ${argv.join(' ')}`);
  const out = {};
  for (const [key, spec] of Object.entries(BENCH_SPECS)) {
    out[key] = { type: spec.type, allowed: describeAllowed(spec), values: spec.values };
  }
  console.log(JSON.stringify(out));
  return 0;
}

module.exports = { benchSpecs };
