'use strict';
// GROUPS and its lists (client/src/groups.js): parsed into client ranges, refused before anything
// starts with the file, the key and what is allowed.
const test = require('node:test');
const assert = require('node:assert/strict');
const { validateBenchText } = require('../../src/bench-schema');
const { groupsOf, groupOfClient } = require('../../src/groups');

const BASE = `DESCRIPTION="groups"
WORKLOAD=ycsb
DATABASES="postgres"
KEY=uuidv4
LAYOUT=clustered
FIELDS=5
FIELD_BYTES=20
CLIENTS=4
RATE=50
OPS=100
`;
const parse = (extra) => validateBenchText(BASE + extra, 'b/bench.env');

test('groups: client ranges in order, RATE and OPS defaulting to the phase keys', () => {
  const v = parse('GROUPS="inserts updates selects"\nGROUP_CLIENTS="1 2 1"\nGROUP_MIXES="insert=100 update=100 read=100"\nGROUP_RATES="10 20 30"\n');
  const g = groupsOf(v);
  assert.deepEqual(g.map((x) => [x.name, x.clients, x.rate, x.ops, x.mix]), [
    ['inserts', [1, 1], 10, 100, { insert: 100 }], ['updates', [2, 3], 20, 100, { update: 100 }], ['selects', [4, 4], 30, 100, { read: 100 }],
  ]);
  assert.equal(groupOfClient(g, 3).name, 'updates');
  assert.equal(groupOfClient(g, 5), null);
  assert.equal(groupsOf(parse('')), null);
});

test('groups: refusals name the key and what is allowed', () => {
  assert.throws(() => parse('GROUPS="a b"\nGROUP_CLIENTS="1 2"\nGROUP_MIXES="A B"\n'), /GROUP_CLIENTS="1 2" adds up to 3 clients, CLIENTS is 4/);
  assert.throws(() => parse('GROUPS="a b"\nGROUP_CLIENTS="2 2"\nGROUP_MIXES="A"\n'), /GROUP_MIXES="A" has 1 word\(s\) for 2 group\(s\)/);
  assert.throws(() => parse('GROUPS="a b"\nGROUP_CLIENTS="2 2"\n'), /GROUPS needs GROUP_MIXES/);
  assert.throws(() => parse('GROUPS="a a"\nGROUP_CLIENTS="2 2"\nGROUP_MIXES="A B"\n'), /must be distinct/);
  assert.throws(() => parse('GROUPS="a b"\nGROUP_CLIENTS="2 2"\nGROUP_MIXES="A nope=1"\n'), /b\/bench.env:\d+: GROUP_MIXES \(group b\): invalid value "nope=1"; allowed:/);
  assert.throws(() => parse('GROUPS="a b"\nGROUP_CLIENTS="2 2"\nGROUP_MIXES="A B"\nGROUP_RATES="1 x"\n'), /GROUP_RATES \(group b\): invalid value "x"/);
  assert.throws(() => parse('GROUP_CLIENTS="2 2"\n'), /GROUP_CLIENTS applies only with/);
  assert.throws(() => validateBenchText(BASE.replace('WORKLOAD=ycsb', 'WORKLOAD=insert\nDOCS=10').replace('OPS=100\n', '') + 'GROUPS="a b"\n', 'b/bench.env'),
    /GROUPS applies only with a workload whose run operations are chosen by MIX/);
});

test('groups: a group\'s MIX names only its workload\'s operations', () => {
  assert.throws(() => parse('GROUPS="a b"\nGROUP_CLIENTS="2 2"\nGROUP_MIXES="read=100 range=100"\n'),
    /GROUP_MIXES \(group b\) names range, which WORKLOAD=ycsb does not offer; allowed with ycsb: op=weight,... with op in read, update, insert, scan, rmw/);
});
