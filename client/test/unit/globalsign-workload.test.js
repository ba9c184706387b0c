'use strict';
// WORKLOAD=globalsign without a server: its people (deterministic from SEED and id, the study's
// ~320 B with no padding, 1-3 addresses, ages in 0..AGE_MAX), its operations (MIX's choice; ids of
// inserts unique across clients and past RECORDS; updates on loaded ids), its two shipped benches,
// and the refusals of nonsense naming the file, the key and what is allowed.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const { validateBenchText, InputError } = require('../../src/bench-schema');
const {
  person, canonicalPerson, personJson, inBand, personId,
} = require('../../src/workloads/globalsign-data');
const { GlobalsignWorkload } = require('../../src/workloads/globalsign');

const ROOT = path.resolve(__dirname, '../../..');
const BASE = 'DESCRIPTION=t\nWORKLOAD=globalsign\nKEY=uuidv7\nLAYOUT=clustered\nCLIENTS=2\nRATE=10\nMIX=insert=1,update=1,range=1\n';

test('a person is the same for the same (SEED, id), ~320 B as JSON without padding, 1-3 addresses, ages in 0..AGE_MAX', () => {
  const shape = { padBytes: 0, ageMax: 99 };
  assert.equal(personJson(person(1, 42, shape)), personJson(person(1, 42, shape)));
  assert.notEqual(personJson(person(1, 42, shape)), personJson(person(2, 42, shape)));
  let bytes = 0;
  const n = 2000;
  for (let p = 0; p < n; p++) {
    const doc = person(1, p, shape);
    bytes += Buffer.byteLength(personJson(doc));
    assert.ok(doc.addresses.length >= 1 && doc.addresses.length <= 3);
    assert.ok(Number.isInteger(doc.age) && doc.age >= 0 && doc.age <= 99);
    assert.ok(Number.isInteger(doc.counter) && doc.counter >= -(2 ** 31) && doc.counter < 2 ** 31);
    assert.equal(typeof doc.balance, 'number');
  }
  const mean = bytes / n;
  assert.ok(mean > 200 && mean < 450, `mean JSON size ${mean} B (the study: ~320 B)`);
  // the padding: PAD_BYTES bytes, base64 in the canonical form
  const padded = person(1, 7, { padBytes: 1000, ageMax: 99 });
  assert.equal(padded.padding.length, 1000);
  assert.equal(Buffer.from(canonicalPerson(padded).padding, 'base64').compare(padded.padding), 0);
  assert.match(canonicalPerson(padded).dob, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.equal(inBand(46, { min: 45, max: 75 }), true);
  assert.equal(inBand(45, { min: 45, max: 75 }), false);
  assert.equal(inBand(75, { min: 45, max: 75 }), false);
});

test('the run: MIX\'s proportions, inserts continue each client\'s own ids past RECORDS, updates choose loaded ids', () => {
  const records = 100;
  const seen = new Set();
  for (const clientId of ['1', '2']) {
    const w = new GlobalsignWorkload({
      target: { database: 'postgres' },
      opts: {
        clientId, clients: 2, records, seed: 3, stage: 'run', mix: { insert: 1, update: 1, range: 2 }, ops: 400, rate: 1, padBytes: 0, ageMax: 99, rangeMin: 45, rangeMax: 75,
      },
    });
    const ops = Array.from({ length: 400 }, (_, i) => w.build(i));
    const count = (name) => ops.filter((o) => o.name === name).length;
    assert.deepEqual([count('insert'), count('update'), count('range')], [100, 100, 200]);
    for (const o of ops.filter((x) => x.name === 'insert')) {
      assert.ok(o.doc.id >= records && !seen.has(o.doc.id), `insert id ${o.doc.id}`);
      seen.add(o.doc.id);
    }
    assert.ok(ops.filter((o) => o.name === 'update').every((o) => o.id >= 0 && o.id < records));
  }
  assert.equal(personId(0, 2, 50), 100);
  assert.equal(personId(1, 2, 50), 101);
});

test('the shipped benches: globalsign (~320 B people, three operations) and globalsign-1mb (1 MiB of padding, inserts)', () => {
  const read = (name) => validateBenchText(fs.readFileSync(path.join(ROOT, name, 'bench.env'), 'utf8'), `${name}/bench.env`);
  const a = read('globalsign');
  assert.deepEqual([a.WORKLOAD, a.PAD_BYTES, a.RANGE_MIN, a.RANGE_MAX, a.DATABASES], ['globalsign', 0, 45, 75, ['mongodb', 'postgres', 'mysql']]);
  // the study's three streams: three client groups, one operation each
  assert.deepEqual([a.GROUPS, a.GROUP_CLIENTS, a.GROUP_MIXES], ['inserts updates selects', '1 1 1', 'insert=100 update=100 range=100']);
  const b = read('globalsign-1mb');
  assert.deepEqual([b.MIX, b.PAD_BYTES], [{ insert: 100 }, 1048576]);
});

const BAD = [
  ['RANGE_MIN=80\n', /^f:8: RANGE_MIN=80 RANGE_MAX=75 leave no integer age strictly between them.*allowed: RANGE_MAX >= RANGE_MIN \+ 2/],
  ['RANGE_MIN=45\nRANGE_MAX=46\n', /RANGE_MIN=45 RANGE_MAX=46 leave no integer age.*allowed: RANGE_MAX >= RANGE_MIN \+ 2/],
  ['AGE_MAX=30\n', /^f:8: RANGE_MIN=45 is not below AGE_MAX=30.*allowed: RANGE_MIN < AGE_MAX/],
  ['PAD_BYTES=20000000\n', /^f:8: PAD_BYTES: invalid value "20000000"; allowed: an integer >= 0 and <= 16711680/],
  ['PAD_BYTES=-1\n', /PAD_BYTES: invalid value "-1"; allowed: an integer >= 0/],
  ['MIX=read=1,insert=1\n', /^f:\d+: MIX=read=1,insert=1 names read, which WORKLOAD=globalsign does not offer.*allowed with globalsign: op=weight,\.\.\. with op in insert, update, range/],
  ['MIX=B\n', /MIX=read=95,update=5 names read, which WORKLOAD=globalsign does not offer/],
  ['MIX=range=1,bogus=1\n', /MIX: invalid value "range=1,bogus=1"; allowed: .*range/],
  ['FIELDS=10\n', /^f:8: FIELDS applies only with WORKLOAD=.*remove FIELDS/],
];
for (const [extra, message] of BAD) {
  test(`globalsign bench.env refuses ${extra.trim().replace(/\n/g, ' ')}`, () => {
    // the MIX line of BASE is replaced where the case sets its own
    const text = extra.startsWith('MIX=') ? BASE.replace(/MIX=.*\n/, '') + extra : BASE + extra;
    assert.throws(() => validateBenchText(text, 'f'), (err) => err instanceof InputError && message.test(err.message), message);
  });
}

test('a globalsign bench without MIX runs the study\'s three operations in equal shares; ycsb keeps A and refuses range', () => {
  assert.deepEqual(validateBenchText(BASE.replace(/MIX=.*\n/, ''), 'f').MIX, { insert: 1, update: 1, range: 1 });
  const ycsbDefault = validateBenchText('DESCRIPTION=t\nWORKLOAD=ycsb\nKEY=uuidv7\nLAYOUT=clustered\nCLIENTS=1\nRATE=5\nFIELDS=10\nFIELD_BYTES=100\n', 'y');
  assert.deepEqual(ycsbDefault.MIX, { read: 50, update: 50 });
  // a key that does not apply is refused quoting the workload, and its MIX only where MIX runs
  const gs = fs.readFileSync(path.join(ROOT, 'globalsign', 'bench.env'), 'utf8');
  assert.throws(() => validateBenchText(`${gs}FIELDS=10\n`, 'g'), /FIELDS applies only with WORKLOAD=insert or ycsb; this file has WORKLOAD=globalsign: remove FIELDS/);
  assert.throws(() => validateBenchText(`${gs.replace(/^GROUP.*\n/gm, '')}FIELDS=10\n`, 'g'),
    /this file has WORKLOAD=globalsign MIX=insert=1,update=1,range=1: remove FIELDS/);
  const ycsb = 'DESCRIPTION=t\nWORKLOAD=ycsb\nKEY=uuidv7\nLAYOUT=clustered\nCLIENTS=1\nRATE=5\nFIELDS=10\nFIELD_BYTES=100\nMIX=read=1,range=1\n';
  assert.throws(() => validateBenchText(ycsb, 'y'), /y:9: MIX=read=1,range=1 names range, which WORKLOAD=ycsb does not offer/);
});
