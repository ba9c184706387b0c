'use strict';
// The pre-serialized insert must be byte for byte what pg's own serializer
// writes for the same values (Bind with binary parameters, Execute, Sync).
const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('crypto');
const { serialize } = require('pg-protocol');
const { PreparedInsert } = require('../../../databases/postgres/client/pg-prepared-insert');

const expected = (values) => Buffer.concat([serialize.bind({ statement: 'jsonbench_insert', values }), serialize.execute(), serialize.sync()]);

test('two parameters written in place give the serializer\'s own message', () => {
  const insert = new PreparedInsert({ name: 'jsonbench_insert', sizes: [16, 1234] });
  for (let round = 0; round < 3; round++) {
    const key = crypto.randomBytes(16);
    const jsonb = crypto.randomBytes(1234);
    key.copy(insert.param(0));
    jsonb.copy(insert.param(1));
    assert.deepEqual(insert.message, expected([key, jsonb]));
  }
});

test('one parameter (sequence keys: the database makes the id)', () => {
  const insert = new PreparedInsert({ name: 'jsonbench_insert', sizes: [70001] });
  const jsonb = crypto.randomBytes(70001);
  jsonb.copy(insert.param(0));
  assert.deepEqual(insert.message, expected([jsonb]));
});

test('param views cover exactly their bytes: writing one leaves the other alone', () => {
  const insert = new PreparedInsert({ name: 'jsonbench_insert', sizes: [16, 32] });
  insert.param(0).fill(0xaa);
  assert.equal(insert.param(0).length, 16);
  assert.equal(insert.param(1).length, 32);
  assert.ok(insert.param(1).every((b) => b === 0));
  const at = insert.param(1).byteOffset - insert.message.byteOffset;
  assert.equal(insert.message.readInt32BE(at - 4), 32, 'the length word just before the bytes');
});
