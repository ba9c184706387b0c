'use strict';
// What the lab's stand-in images cannot do, refused before anything starts (`node client
// validate-bench --stand-ins FILE`, which the lab runs when JSONBENCH_STANDINS=1). SecantusDB
// 0.7.0b3, the MongoDB stand-in, accepts createCollection with `timeseries` but makes a plain
// collection (listCollections type "collection", an _id index, no buckets, no meta/time index;
// pinned by test/integration/tsbs-ingest.test.js), so WORKLOAD=tsbs MODEL=native cannot run on its
// mongodb phase: refused naming the key, the reason and what is allowed, rather than a phase that
// fails at init or a collection that only looks like one. Everything else the lab ships runs on it
// (client/test/integration: YCSB, the three TSBS models' other two, the 13 TSBS and the OnGres
// queries; olap-lookup is refused by the server itself and reported as unsupported).
const fs = require('fs');
const path = require('path');
const { InputError, parseEnvText } = require('./bench-schema');

// The value of a lab setting as compose sees it: the environment first, then the lab's .env (the
// file runme.sh creates beside compose.yaml); '' when neither sets it.
function labSetting(name, envFile = path.join(__dirname, '../../.env'), env = process.env) {
  if (env[name]) return env[name];
  if (!fs.existsSync(envFile)) return '';
  const entry = parseEnvText(fs.readFileSync(envFile, 'utf8'), envFile).get(name);
  return entry ? String(entry.value) : '';
}

function refuseOnStandIns(values, file, text, setting = labSetting) {
  // A database whose manifest says it has no stand-in (databases/<name>/database.json no_standin:
  // why, and how to run it with its official image) is refused by name, unless the user points its
  // service at an image of their own (own_image.env set: compose labels that container as a stand-in).
  for (const db of values.DATABASES || []) {
    const manifestFile = /^[a-z][a-z0-9]*$/.test(db) ? path.join(__dirname, '../../databases', db, 'database.json') : '';
    const manifest = manifestFile && fs.existsSync(manifestFile) ? JSON.parse(fs.readFileSync(manifestFile, 'utf8')) : {};
    const why = manifest.no_standin;
    if (!why || (manifest.own_image && setting(manifest.own_image.env))) continue;
    const entry = parseEnvText(text, file).get('DATABASES');
    throw new InputError(`${file}${entry ? `:${entry.line}` : ''}: DATABASES=${values.DATABASES.join(' ')} cannot run on the stand-ins `
      + `(JSONBENCH_STANDINS=1): ${why}`);
  }
  if (values.WORKLOAD === 'tsbs' && values.MODEL === 'native' && values.DATABASES.includes('mongodb')) {
    const entry = parseEnvText(text, file).get('MODEL');
    throw new InputError(`${file}${entry ? `:${entry.line}` : ''}: MODEL=native cannot run on the stand-ins (JSONBENCH_STANDINS=1): `
      + 'SecantusDB 0.7.0b3, which stands in for MongoDB, has no time-series collections (createCollection with timeseries '
      + 'makes a plain collection of type "collection"), and a native model it does not have would be faked; allowed on the '
      + 'stand-ins: MODEL=event or MODEL=bucket, or MODEL=native with DATABASES=postgres (real MongoDB has time-series '
      + 'collections: run with its image)');
  }
}

module.exports = { refuseOnStandIns, labSetting };
