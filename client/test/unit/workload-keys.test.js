'use strict';
// The workload bench keys: defaults, bad values and bad combinations (file,
// line, key, allowed values), `plan` and `plan --print-env`, and `run`'s flags.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { validateBenchText, InputError } = require('../../src/bench-schema');
const { parseOptions } = require('../../src/options');

const CLI = path.resolve(__dirname, '../..');
const cli = (args) => spawnSync(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH }, encoding: 'utf8', timeout: 20000 });

const COMMON = `DESCRIPTION=ycsb
KEY=uuidv7
LAYOUT=clustered
FIELDS=10
FIELD_BYTES=100
CLIENTS=4
RATE=50
`;
const INSERT_ENV = `${COMMON}DOCS=1000\n`; // lines 1..8
const YCSB_ENV = `${COMMON}WORKLOAD=ycsb\n`; // WORKLOAD on line 8

test('insert workload: new keys default as documented and change nothing', () => {
  const v = validateBenchText(INSERT_ENV, 'f');
  assert.equal(v.WORKLOAD, 'insert');
  assert.equal(v.DOCS, 1000);
  assert.equal(v.SHAPE, 'flat');
  assert.equal(v.REPEAT, 1);
  assert.deepEqual(v.MIX, { read: 50, update: 50 });
});

test('ycsb: defaults as the design table; presets A B C E F; explicit mixes', () => {
  const v = validateBenchText(YCSB_ENV, 'f');
  assert.deepEqual([v.RECORDS, v.LOAD_RATE, v.OPS, v.DIST, v.THETA, v.SCAN_MAX, v.DOCS], [1000, 0, 1000, 'zipfian', 0.99, 100, null]);
  const mix = (m) => validateBenchText(`${YCSB_ENV}MIX=${m}\n`, 'f').MIX;
  assert.deepEqual(mix('A'), { read: 50, update: 50 });
  assert.deepEqual(mix('B'), { read: 95, update: 5 });
  assert.deepEqual(mix('C'), { read: 100 });
  assert.deepEqual(mix('E'), { scan: 95, insert: 5 });
  assert.deepEqual(mix('F'), { read: 50, rmw: 50 });
  assert.deepEqual(mix('read=1, update=0,insert=3'), { read: 1, insert: 3 });
  const hot = validateBenchText(`${YCSB_ENV}DIST=hotspot\nHOT_SET_FRACTION=0.1\nHOT_OPS_FRACTION=0.9\n`, 'f');
  assert.deepEqual([hot.HOT_SET_FRACTION, hot.HOT_OPS_FRACTION], [0.1, 0.9]);
  const nested = validateBenchText(`${YCSB_ENV}SHAPE=nested\nDEPTH=2\nFANOUT=3\n`, 'f');
  assert.deepEqual([nested.SHAPE, nested.DEPTH, nested.FANOUT], ['nested', 2, 3]);
});

const BAD = [
  [INSERT_ENV, 'WORKLOAD=mixed\n', /f:9: WORKLOAD: invalid value "mixed"; allowed: one of insert, ycsb/],
  [INSERT_ENV, 'MIX=A\n', /f:9: MIX applies only with WORKLOAD=ycsb or globalsign; this file has WORKLOAD=insert .*remove MIX/],
  [INSERT_ENV, 'RECORDS=5\n', /f:9: RECORDS applies only with WORKLOAD=ycsb or globalsign/],
  [INSERT_ENV, 'DEPTH=2\n', /f:9: DEPTH applies only with SHAPE=nested/],
  [YCSB_ENV, 'DOCS=5\n', /f:9: DOCS applies only with WORKLOAD=insert \(ycsb uses OPS and RECORDS/],
  [YCSB_ENV, 'MIX=G\n', /f:9: MIX: invalid value "G"; allowed: one of A, B, C, E, F .* with op in read, update, insert, scan, rmw/],
  [YCSB_ENV, 'MIX=read=50,delete=50\n', /MIX: invalid value "read=50,delete=50"/],
  [YCSB_ENV, 'MIX=read=50,read=50\n', /MIX: invalid value "read=50,read=50".*each at most once/],
  [YCSB_ENV, 'MIX=read=0\n', /MIX: invalid value "read=0".*sum > 0/],
  [YCSB_ENV, 'MIX=read=1.5\n', /MIX: invalid value "read=1.5"/],
  [YCSB_ENV, 'THETA=1\n', /f:9: THETA: invalid value "1"; allowed: a number > 0 and < 1/],
  [YCSB_ENV, 'DIST=uniform\nTHETA=0.5\n', /f:10: THETA applies only with WORKLOAD=ycsb with DIST=zipfian or latest/],
  [YCSB_ENV, 'HOT_SET_FRACTION=0.5\n', /f:9: HOT_SET_FRACTION applies only with WORKLOAD=ycsb with DIST=hotspot/],
  [YCSB_ENV, 'DIST=hotspot\nHOT_OPS_FRACTION=0\n', /f:10: HOT_OPS_FRACTION: invalid value "0"; allowed: a number > 0 and < 1/],
  [YCSB_ENV, 'SCAN_MAX=10\n', /f:9: SCAN_MAX applies only with WORKLOAD=ycsb with scan in MIX/],
  [YCSB_ENV, 'MIX=E\nSCAN_MAX=0\n', /SCAN_MAX: invalid value "0"; allowed: an integer >= 1/],
  [YCSB_ENV, 'MIX=E\nFIELD_BYTES=100000\nSCAN_MAX=200\n', /f:11: SCAN_MAX=200 documents of \d+ bytes do not fit in one MongoDB batch .*allowed: SCAN_MAX <= 16$/],
  [YCSB_ENV, 'KEY=sequence\n', /f:9: KEY=sequence cannot be used with WORKLOAD=ycsb.*allowed with ycsb: uuidv7, uuidv4/],
  [YCSB_ENV, 'LOAD_RATE=-1\n', /LOAD_RATE: invalid value "-1"; allowed: a number >= 0/],
  [YCSB_ENV, 'RECORDS=0\n', /RECORDS: invalid value "0"; allowed: an integer >= 1/],
  [YCSB_ENV, 'OPS=1.5\n', /OPS: invalid value "1.5"; allowed: an integer >= 1/],
  [INSERT_ENV, 'SHAPE=deep\n', /SHAPE: invalid value "deep"; allowed: one of flat, nested/],
  [INSERT_ENV, 'SHAPE=nested\nDEPTH=4\n', /f:4: FIELDS=10 is fewer than the 16 leaf objects of SHAPE=nested DEPTH=4 FANOUT=2.*allowed: FIELDS >= 16/],
  [INSERT_ENV, 'REPEAT=0\n', /REPEAT: invalid value "0"; allowed: an integer >= 1/],
];

for (const [base, extra, message] of BAD) {
  test(`bench.env rejects ${extra.trim().replace(/\n/g, ' ')}${base === YCSB_ENV ? ' (ycsb)' : ''}`, () => {
    assert.throws(() => validateBenchText(base + extra, 'f'), (err) => err instanceof InputError && message.test(err.message), message);
  });
}

test('insert without DOCS is refused; ycsb without DOCS is fine', () => {
  assert.throws(() => validateBenchText(COMMON, 'f'), /f: DOCS is missing; allowed: an integer >= 1/);
  assert.equal(validateBenchText(YCSB_ENV, 'f').DOCS, null);
});

function withFile(text, fn) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jsonbench-plan-'));
  try {
    const file = path.join(dir, 'bench.env');
    fs.writeFileSync(file, text);
    return fn(file);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

test('plan: the insert workload has one phase per database, named as today', () => {
  withFile(INSERT_ENV, (file) => {
    const r = cli(['plan', file]);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, 'phase=mongodb database=mongodb stage=run ops=1000 rate=50 expected_s=20 clients=4 query=-\n'
      + 'phase=postgres database=postgres stage=run ops=1000 rate=50 expected_s=20 clients=4 query=-\n');
  });
});

test('plan: ycsb has a load then a run phase per database; load ops = the most records a client loads', () => {
  withFile(`${YCSB_ENV}RECORDS=10\nOPS=300\nLOAD_RATE=2\nDATABASES=postgres\n`, (file) => {
    const r = cli(['plan', file]);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, 'phase=postgres-load database=postgres stage=load ops=3 rate=2 expected_s=1.5 clients=4 query=-\n'
      + 'phase=postgres database=postgres stage=run ops=300 rate=50 expected_s=6 clients=4 query=-\n');
  });
  withFile(`${YCSB_ENV}RECORDS=1000\n`, (file) => {
    const lines = cli(['plan', file]).stdout.trim().split('\n');
    assert.deepEqual(lines.map((l) => /phase=(\S+)/.exec(l)[1]), ['mongodb-load', 'mongodb', 'postgres-load', 'postgres']);
    // LOAD_RATE=0: back-to-back, an upper estimate of 10 ms per insert.
    assert.match(lines[0], /stage=load ops=250 rate=0 expected_s=2.5 clients=\d+ query=-$/);
  });
});

test('plan --print-env: every key, defaults filled in, shell-quoted; keys that do not apply are empty', () => {
  withFile(`${YCSB_ENV}DESCRIPTION="it's ycsb"\nMIX=E\n`, (file) => {
    const r = cli(['plan', '--print-env', file]);
    assert.equal(r.status, 0, r.stderr);
    const env = spawnSync('bash', ['-c', `eval "$1"; for k in DESCRIPTION DATABASES MIX DOCS THETA HOT_SET_FRACTION SCAN_MAX REPEAT SHAPE DEPTH QUIET_S; do printf '%s=[%s]\\n' "$k" "\${!k}"; done`, 'x', r.stdout], { encoding: 'utf8' });
    assert.equal(env.stdout, "DESCRIPTION=[it's ycsb]\nDATABASES=[mongodb postgres]\nMIX=[scan=95,insert=5]\nDOCS=[]\nTHETA=[0.99]\n"
      + 'HOT_SET_FRACTION=[]\nSCAN_MAX=[100]\nREPEAT=[1]\nSHAPE=[flat]\nDEPTH=[]\nQUIET_S=[60]\n');
  });
  withFile(`${INSERT_ENV}X=1\n`, (file) => {
    const r = cli(['plan', '--print-env', file]);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /:9: unknown key X/);
  });
});

test('run: ycsb options parse into the workload objects; the insert workload has no load stage', () => {
  const env = {
    URI: 'postgres://u@127.0.0.1:1/db', KEY: 'uuidv4', LAYOUT: 'heap', FIELDS: '4', FIELD_BYTES: '10', RATE: '10', WORKLOAD: 'ycsb',
    MIX: 'B', DIST: 'hotspot', HOT_SET_FRACTION: '0.3', SHAPE: 'nested', DEPTH: '1', FANOUT: '2', CLIENTS: '3', STAGE: 'load',
    // The lab passes every key; ones that do not apply are ignored by `run`.
    THETA: '0.5', DOCS: '', SCAN_MAX: '100',
  };
  const o = parseOptions('run', [], env);
  assert.deepEqual(o.mix, { read: 95, update: 5 });
  assert.deepEqual(o.dist, { name: 'hotspot', hot_set_fraction: 0.3, hot_ops_fraction: 0.8 });
  assert.deepEqual(o.shape, { name: 'nested', depth: 1, fanout: 2 });
  assert.deepEqual([o.stage, o.clients, o.records, o.loadRate], ['load', 3, 1000, 0]);
  assert.throws(() => parseOptions('run', [], { ...env, WORKLOAD: 'insert', DOCS: '5' }),
    /--stage load: the insert workload has only a run stage; allowed with WORKLOAD=insert: run/);
  assert.throws(() => parseOptions('run', [], { ...env, WORKLOAD: 'insert', STAGE: 'run' }), /--docs: DOCS is missing/);
  assert.throws(() => parseOptions('run', [], { ...env, KEY: 'sequence' }), /--key: KEY=sequence cannot be used with WORKLOAD=ycsb/);
  assert.throws(() => parseOptions('run', [], { ...env, FIELDS: '1' }), /--fields: FIELDS=1 is fewer than the 2 leaf objects/);
  assert.equal(parseOptions('run', [], { ...env, WORKLOAD: 'insert', STAGE: 'run', DOCS: '5' }).clients, 3);
});

test('plan: tsbs ingests in its run phase (events of client 1), then one single-client phase per query', () => {
  // 10 hosts over 3 clients: client 1 owns hosts 0, 3, 6, 9; 43200 s / 10 s = 4320 ticks (high-cpu-1's 12 h window fits).
  withFile('DESCRIPTION=t\nKEY=uuidv7\nLAYOUT=heap\nCLIENTS=3\nRATE=10\nWORKLOAD=tsbs\nDATABASES=postgres\nQUERIES=lastpoint high-cpu-1\nQUERY_RUNS=4\nQUERY_RATE=2\nSPAN_S=43200\n', (file) => {
    const r = cli(['plan', file]);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, 'phase=postgres database=postgres stage=run ops=17280 rate=10 expected_s=1728 clients=3 query=-\n'
      + 'phase=postgres-q-high-cpu-1 database=postgres stage=query ops=4 rate=2 expected_s=2 clients=1 query=high-cpu-1\n'
      + 'phase=postgres-q-lastpoint database=postgres stage=query ops=4 rate=2 expected_s=2 clients=1 query=lastpoint\n');
  });
});

test('plan: events loads then queries; bad QUERIES, RATE with events and FIELDS with tsbs are refused naming the key', () => {
  withFile('DESCRIPTION=e\nKEY=uuidv7\nLAYOUT=heap\nCLIENTS=2\nWORKLOAD=events\nEVENTS=11\nDATABASES=mongodb\nQUERIES=all\n', (file) => {
    const lines = cli(['plan', file]).stdout.trim().split('\n');
    assert.equal(lines[0], 'phase=mongodb-load database=mongodb stage=load ops=6 rate=0 expected_s=0.06 clients=2 query=-');
    assert.deepEqual(lines.slice(1).map((l) => /query=(\S+)/.exec(l)[1]), ['olap-a', 'olap-b', 'olap-c', 'olap-d', 'olap-lookup']);
  });
  for (const [extra, want] of [
    ['WORKLOAD=events\nQUERIES=olap-z\n', /:6: QUERIES: unknown query olap-z for WORKLOAD=events; allowed: none, all, or space-separated names from: olap-a/],
    ['WORKLOAD=events\nRATE=5\n', /:6: RATE applies only with WORKLOAD=insert, ycsb or tsbs/],
    ['WORKLOAD=tsbs\nRATE=5\nFIELDS=3\n', /:7: FIELDS applies only with WORKLOAD=insert or ycsb/],
    ['WORKLOAD=tsbs\nRATE=5\nSTART=2016-01-01\n', /:7: START: invalid value "2016-01-01"; allowed: a UTC date-time on a whole second/],
  ]) {
    withFile(`DESCRIPTION=e\nKEY=uuidv7\nLAYOUT=heap\nCLIENTS=2\n${extra}`, (file) => {
      const r = cli(['plan', file]);
      assert.equal(r.status, 2, r.stdout);
      assert.match(r.stderr, want);
    });
  }
});
