'use strict';
// A database's choice of official image by a bench key (its manifest's `versions`: MySQL's
// MYSQL_VERSION among 9.7 = mysql:9.7.1 and 8.4 = mysql:8.4.10, client/src/databases.js
// versionSpecs): the values are the manifest's list, the default its default, the key applies only
// to a bench that runs the database, and the stand-ins refuse a version their image is not.
const test = require('node:test');
const assert = require('node:assert/strict');
const { validateBenchText, InputError, BENCH_SPECS } = require('../../src/bench-schema');
const { refuseStandinSettings } = require('../../src/stand-ins');
const { manifests } = require('../../src/databases');

const BENCH = 'DESCRIPTION="t"\nKEY=uuidv7\nLAYOUT=clustered\nCLIENTS=1\nFIELDS=10\nFIELD_BYTES=100\nDOCS=10\nRATE=10\n';
const refused = (fn, re) => assert.throws(fn, (e) => e instanceof InputError && re.test(e.message), re.source);

test('MYSQL_VERSION: the manifest\'s versions, its default, only with mysql in DATABASES', () => {
  const { versions } = manifests().mysql;
  assert.deepEqual(versions.images, { 9.7: 'mysql:9.7.1', 8.4: 'mysql:8.4.10' });
  assert.deepEqual(BENCH_SPECS.MYSQL_VERSION.values, Object.keys(versions.images));
  assert.equal(validateBenchText(`${BENCH}DATABASES="postgres mysql"\n`, 'b/bench.env').MYSQL_VERSION, '9.7');
  assert.equal(validateBenchText(`${BENCH}DATABASES="postgres mysql"\nMYSQL_VERSION=8.4\n`, 'b/bench.env').MYSQL_VERSION, '8.4');
  refused(() => validateBenchText(`${BENCH}DATABASES="postgres mysql"\nMYSQL_VERSION=8.0\n`, 'b/bench.env'),
    /^b\/bench\.env:10: MYSQL_VERSION: invalid value "8\.0"; allowed: one of 9\.7, 8\.4$/);
  refused(() => validateBenchText(`${BENCH}MYSQL_VERSION=8.4\n`, 'b/bench.env'),
    /^b\/bench\.env:9: MYSQL_VERSION applies only with DATABASES including mysql; .*remove MYSQL_VERSION/);
});

test('on the stand-ins MYSQL_VERSION=8.4 is refused: the stand-in is MySQL 9.7, no 8.4 is passed off as it', () => {
  const text = `${BENCH}DATABASES="postgres mysql"\nMYSQL_VERSION=8.4\n`;
  const values = validateBenchText(text, 'b/bench.env');
  refused(() => refuseStandinSettings(values, 'b/bench.env', text),
    /^b\/bench\.env:10: MYSQL_VERSION=8\.4 cannot run on the stand-ins \(JSONBENCH_STANDINS=1\): the MySQL stand-in is Debian's MySQL 9\.7 .*allowed on the stand-ins: MYSQL_VERSION=9\.7.* \(MYSQL_VERSION=8\.4 runs the official mysql:8\.4\.10 image where Docker Hub is reachable\)$/);
  const ok = `${BENCH}DATABASES="postgres mysql"\n`;
  assert.doesNotThrow(() => refuseStandinSettings(validateBenchText(ok, 'b/bench.env'), 'b/bench.env', ok));
});
