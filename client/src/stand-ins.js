'use strict';
// What the lab's stand-in images cannot do, refused before anything starts (`node client
// validate-bench --stand-ins FILE`, which the lab runs when JSONBENCH_STANDINS=1). FerretDB 1.24,
// the MongoDB stand-in, has no time-series collections (createCollection with `timeseries` is
// NotImplemented; pinned by test/integration/ferretdb-aggregation-support.test.js), so WORKLOAD=tsbs
// MODEL=native cannot run on its mongodb phase: refused naming the key, the reason and what is
// allowed, rather than a phase that fails later or a collection that only looks like one.
const { InputError, parseEnvText } = require('./bench-schema');

function refuseOnStandIns(values, file, text) {
  if (values.WORKLOAD === 'tsbs' && values.MODEL === 'native' && values.DATABASES.includes('mongodb')) {
    const entry = parseEnvText(text, file).get('MODEL');
    throw new InputError(`${file}${entry ? `:${entry.line}` : ''}: MODEL=native cannot run on the stand-ins (JSONBENCH_STANDINS=1): `
      + 'FerretDB 1.24, which stands in for MongoDB, has no time-series collections (createCollection with timeseries is '
      + 'NotImplemented), and a native model it does not have would be faked; allowed on the stand-ins: MODEL=event or '
      + 'MODEL=bucket, or MODEL=native with DATABASES=postgres (real MongoDB has time-series collections: run with its image)');
  }
}

module.exports = { refuseOnStandIns };
