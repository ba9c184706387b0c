'use strict';
// POOL (none | pgbouncer), POOL_MODE and POOL_SIZE: a pooled PostgreSQL for the transaction
// workloads. A bad value, a pool without a database that offers it (its manifest's offers.poolers),
// or a pool key on a workload it does not apply to is refused naming the file, the line, the key
// and what is allowed.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { validateBenchText, InputError } = require('../../src/bench-schema');
const { parseOptions } = require('../../src/options');

const OLTP = 'DESCRIPTION=t\nKEY=uuidv7\nLAYOUT=clustered\nCLIENTS=1\nRATE=5\nWORKLOAD=oltp\nDATABASES=postgres\n'; // lines 1..7
const refused = (text, re) => assert.throws(() => validateBenchText(text, 'b/bench.env'),
  (err) => err instanceof InputError && re.test(err.message));

test('POOL defaults to none; pgbouncer brings transaction mode and 20 server connections', () => {
  assert.equal(validateBenchText(OLTP, 'b/bench.env').POOL, 'none');
  const v = validateBenchText(`${OLTP}POOL=pgbouncer\n`, 'b/bench.env');
  assert.deepEqual([v.POOL, v.POOL_MODE, v.POOL_SIZE], ['pgbouncer', 'transaction', 20]);
  const s = validateBenchText(`${OLTP}POOL=pgbouncer\nPOOL_MODE=session\nPOOL_SIZE=4\n`, 'b/bench.env');
  assert.deepEqual([s.POOL_MODE, s.POOL_SIZE], ['session', 4]);
});

test('bad POOL, POOL_MODE and POOL_SIZE values name the file, the line, the key and the allowed values', () => {
  refused(`${OLTP}POOL=pgpool\n`, /^b\/bench\.env:8: POOL: invalid value "pgpool"; allowed: one of none, pgbouncer/);
  refused(`${OLTP}POOL=pgbouncer\nPOOL_MODE=statement\n`, /^b\/bench\.env:9: POOL_MODE: invalid value "statement"; allowed: one of transaction, session/);
  refused(`${OLTP}POOL=pgbouncer\nPOOL_SIZE=0\n`, /^b\/bench\.env:9: POOL_SIZE: .*allowed: .*1/);
  refused(`${OLTP}POOL=pgbouncer\nPOOL_SIZE=500\n`, /^b\/bench\.env:9: POOL_SIZE: .*190/);
});

test('a pool without a PostgreSQL phase would do nothing: refused', () => {
  const mongo = OLTP.replace('DATABASES=postgres', 'DATABASES=mongodb\nTOPOLOGY=replset');
  refused(`${mongo}POOL=pgbouncer\n`, /^b\/bench\.env:9: POOL=pgbouncer pools PostgreSQL connections .*DATABASES=mongodb; allowed .*POOL=none/);
  // with both databases the pool is PostgreSQL's only
  const both = OLTP.replace('DATABASES=postgres', 'DATABASES=mongodb postgres\nTOPOLOGY=replset');
  assert.equal(validateBenchText(`${both}POOL=pgbouncer\n`, 'b/bench.env').POOL, 'pgbouncer');
});

test('which databases a pooler serves is read from their manifests (offers.poolers), not from the client', () => {
  // a copy of the client beside a copy of databases/ where MySQL offers pgbouncer too
  const src = path.resolve(__dirname, '..', '..', 'src');
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'jsonbench-pooler-'));
  fs.cpSync(src, path.join(root, 'client', 'src'), { recursive: true });
  fs.symlinkSync(path.resolve(src, '..', 'node_modules'), path.join(root, 'client', 'node_modules'));
  fs.cpSync(path.resolve(src, '..', '..', 'databases'), path.join(root, 'databases'), { recursive: true });
  const mysql = path.join(root, 'databases', 'mysql', 'database.json');
  const m = JSON.parse(fs.readFileSync(mysql, 'utf8'));
  m.offers.poolers = { pgbouncer: { service: 'pgbouncer-mysql', label: 'PgBouncer' } };
  fs.writeFileSync(mysql, JSON.stringify(m));
  const bench = path.join(root, 'bench.env');
  const validate = (dbs) => {
    fs.writeFileSync(bench, OLTP.replace('DATABASES=postgres', `DATABASES=${dbs}\nTOPOLOGY=replset`) + 'POOL=pgbouncer\n');
    return spawnSync(process.execPath, [path.join(root, 'client', 'src', 'cli.js'), 'validate-bench', bench], { encoding: 'utf8' });
  };
  let r = validate('mongodb');
  assert.equal(r.status, 2);
  assert.match(r.stderr, /bench\.env:9: POOL=pgbouncer pools MySQL or PostgreSQL connections and this file has DATABASES=mongodb; allowed without mysql or postgres in DATABASES: POOL=none \(or add mysql or postgres to DATABASES\)/);
  r = validate('mongodb mysql');
  assert.equal(r.status, 0, r.stderr);
  // the real manifests: PostgreSQL's alone offers it
  assert.deepEqual(Object.values(require('../../src/databases').manifests()).filter((d) => (d.offers.poolers || {}).pgbouncer)
    .map((d) => d.name), ['postgres']);
  fs.rmSync(root, { recursive: true });
});

test('POOL applies only to the transaction workloads, POOL_MODE and POOL_SIZE only with POOL=pgbouncer', () => {
  const insert = 'DESCRIPTION=t\nKEY=uuidv7\nLAYOUT=clustered\nFIELDS=10\nFIELD_BYTES=100\nCLIENTS=1\nRATE=5\nDOCS=10\n';
  refused(`${insert}POOL=pgbouncer\n`, /^b\/bench\.env:9: POOL applies only with WORKLOAD=booking or oltp/);
  refused(`${OLTP}POOL_MODE=session\n`, /^b\/bench\.env:8: POOL_MODE applies only with POOL=pgbouncer/);
  refused(`${OLTP}POOL=none\nPOOL_SIZE=5\n`, /^b\/bench\.env:9: POOL_SIZE applies only with POOL=pgbouncer/);
});

test('session pooling needs a server connection per client session: a smaller POOL_SIZE is refused', () => {
  refused(`${OLTP}POOL=pgbouncer\nPOOL_MODE=session\nPOOL_SIZE=3\n`,
    /^b\/bench\.env:10: POOL_MODE=session .*POOL_SIZE=3 is fewer than CLIENTS x SESSIONS = 4.*allowed with POOL_MODE=session: POOL_SIZE >= 4/);
  // transaction pooling shares the server connections: a small pool is its point
  assert.equal(validateBenchText(`${OLTP}POOL=pgbouncer\nPOOL_SIZE=1\n`, 'b/bench.env').POOL_SIZE, 1);
});

test('run reads POOL and POOL_MODE (the statements it sends depend on them)', () => {
  const o = parseOptions('run', [], {
    URI: 'postgres://u:p@pgbouncer:6432/d', WORKLOAD: 'oltp', KEY: 'uuidv7', LAYOUT: 'heap', RATE: '5', POOL: 'pgbouncer', POOL_MODE: 'transaction',
  });
  assert.deepEqual([o.pool, o.poolMode], ['pgbouncer', 'transaction']);
});
