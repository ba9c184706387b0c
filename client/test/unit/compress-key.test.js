'use strict';
// COMPRESS (WORKLOAD=tsbs): none, or after:<n><s|m|h|d>, a database's native compression applied by
// the count after the ingest window. Refused before anything starts, naming the file, the line, the
// key and what is allowed: a bad form, a workload it does not apply to, and a DATABASES list with a
// database whose manifest does not offer it (refused, not ignored: no run may say compressed where
// nothing was). MODEL likewise names the databases without that layout (offers.tsbs_models).
const test = require('node:test');
const assert = require('node:assert/strict');
const { validateBenchText, InputError } = require('../../src/bench-schema');
const { parseOptions } = require('../../src/options');
const { manifests } = require('../../src/databases');

const TSBS = 'DESCRIPTION=t\nKEY=uuidv7\nLAYOUT=clustered\nCLIENTS=1\nRATE=5\nWORKLOAD=tsbs\n'; // lines 1..6
const refused = (text, re) => assert.throws(() => validateBenchText(text, 'b/bench.env'),
  (err) => err instanceof InputError && re.test(err.message));
// the databases whose manifests offer compression, as the refusal lists them
const compressing = Object.keys(manifests()).filter((db) => manifests()[db].offers.compress);

test('COMPRESS defaults to none; after:<n><unit> is accepted for timescaledb and reaches count', () => {
  assert.equal(validateBenchText(TSBS, 'b/bench.env').COMPRESS, 'none');
  assert.deepEqual(compressing, ['timescaledb']);
  const v = validateBenchText(`${TSBS}DATABASES=timescaledb\nMODEL=native\nCOMPRESS=after:12h\n`, 'b/bench.env');
  assert.equal(v.COMPRESS, 'after:12h');
  assert.equal(parseOptions('count', [], { URI: 'timescaledb://u:p@h:5432/d', WORKLOAD: 'tsbs', MODEL: 'native', COMPRESS: 'after:1d' }).compress, 'after:1d');
});

test('a bad COMPRESS form names the file, the line, the key and the allowed values', () => {
  for (const bad of ['after:12 hours', 'after:12', '12h', 'after:1w', 'gzip']) {
    refused(`${TSBS}DATABASES=timescaledb\nMODEL=native\nCOMPRESS=${bad}\n`,
      new RegExp(`^b/bench\\.env:9: COMPRESS: invalid value ".*"; allowed: none, or after:<n><s\\|m\\|h\\|d>`));
  }
});

test('COMPRESS with a database that has no native compression is refused, naming it and the databases that have it', () => {
  refused(`${TSBS}DATABASES=postgres\nCOMPRESS=after:12h\n`,
    /^b\/bench\.env:8: COMPRESS=after:12h is native compression, which postgres does not have .*allowed: COMPRESS=none, or DATABASES of databases that have it \(timescaledb\)/);
  refused(`${TSBS}DATABASES=mongodb postgres\nCOMPRESS=after:1h\n`, /which mongodb, postgres do not have/);
  // none is always allowed
  assert.equal(validateBenchText(`${TSBS}DATABASES=postgres\nCOMPRESS=none\n`, 'b/bench.env').COMPRESS, 'none');
});

test('COMPRESS applies only with WORKLOAD=tsbs', () => {
  const insert = 'DESCRIPTION=t\nKEY=uuidv7\nLAYOUT=clustered\nFIELDS=10\nFIELD_BYTES=100\nCLIENTS=1\nRATE=5\nDOCS=10\n';
  refused(`${insert}COMPRESS=after:12h\n`, /^b\/bench\.env:9: COMPRESS applies only with WORKLOAD=tsbs/);
});

test('a MODEL a database has no layout for is refused before anything starts, naming the database and its models', () => {
  refused(`${TSBS}DATABASES=mongodb timescaledb\nMODEL=event\n`,
    /^b\/bench\.env:8: MODEL=event has no timescaledb layout .*allowed: timescaledb: native .*MODEL\+DATABASES=/);
  assert.equal(validateBenchText(`${TSBS}DATABASES=postgres timescaledb\nMODEL=native\n`, 'b/bench.env').MODEL, 'native');
});
