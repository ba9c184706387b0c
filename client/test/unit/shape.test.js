'use strict';
// Nested documents: the layout as defined in shape.js, the JSON text equal to
// the object MongoDB gets, in PostgreSQL jsonb's key order, and the BSON size exact.
const test = require('node:test');
const assert = require('node:assert/strict');
const { BSON, Binary } = require('mongodb');
const { leaves, fieldPaths } = require('../../src/shape');
const { DocumentGenerator } = require('../../src/docgen');
const { maxDocumentBytes } = require('../../src/doc-size');

const NESTED = { name: 'nested', depth: 3, fanout: 2 };

test('nested DEPTH=3 FANOUT=2, 10 fields: 8 leaf objects in depth-first order, attr1..attr10 spread as defined', () => {
  const l = leaves(10, NESTED);
  assert.deepEqual(l.map((x) => x.path.join('.')), ['n1.n1.n1', 'n1.n1.n2', 'n1.n2.n1', 'n1.n2.n2', 'n2.n1.n1', 'n2.n1.n2', 'n2.n2.n1', 'n2.n2.n2']);
  assert.deepEqual(l.map((x) => x.fields.length), [1, 1, 1, 2, 1, 1, 1, 2]);
  assert.deepEqual(fieldPaths(10, NESTED).map((p) => p.join('.')).slice(3, 5), ['n1.n2.n2.attr4', 'n1.n2.n2.attr5']);
  assert.deepEqual(fieldPaths(3, { name: 'flat' }), [['attr1'], ['attr2'], ['attr3']]);
});

test('nested JSON text = JSON.stringify of the object, attr1..attrN in text order, keys in jsonb order', () => {
  for (const shape of [NESTED, { name: 'nested', depth: 1, fanout: 12 }, { name: 'flat' }]) {
    const g = new DocumentGenerator({ seed: 3, clientId: '2', fields: 12, fieldBytes: 7, shape });
    for (let i = 0; i < 20; i++) {
      const json = g.json(i);
      assert.equal(json, JSON.stringify(g.object(i)));
      const attrs = [...json.matchAll(/"attr(\d+)"/g)].map((m) => Number(m[1]));
      assert.deepEqual(attrs, Array.from({ length: 12 }, (_, k) => k + 1));
      // jsonb sorts keys by length, then bytes: the order we send must already be that order.
      const check = (o) => {
        if (typeof o !== 'object') return;
        const keys = Object.keys(o);
        const sorted = [...keys].sort((a, b) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0));
        assert.deepEqual(keys, sorted);
        keys.forEach((k) => check(o[k]));
      };
      check(g.object(i));
    }
  }
});

test('maxDocumentBytes is the exact BSON size of flat and nested documents with either key format', () => {
  for (const shape of [NESTED, { name: 'flat' }, { name: 'nested', depth: 2, fanout: 3 }]) {
    const g = new DocumentGenerator({ seed: 1, clientId: '1', fields: 11, fieldBytes: 33, shape });
    const id = new Binary(Buffer.alloc(16), 4);
    assert.equal(BSON.calculateObjectSize({ _id: id, ...g.object(0) }), maxDocumentBytes(11, 33, 'binary', shape), shape.name);
    assert.equal(BSON.calculateObjectSize({ _id: 'x'.repeat(36), ...g.object(0) }), maxDocumentBytes(11, 33, 'string', shape));
  }
});

test('value(): FIELD_BYTES alphabet characters, reproducible from its seed words', () => {
  const g = new DocumentGenerator({ seed: 1, clientId: '1', fields: 2, fieldBytes: 15 });
  const v = g.value(1, 2, 3);
  assert.match(v, /^[A-Za-z0-9]{15}$/);
  assert.equal(g.value(1, 2, 3), v);
  assert.notEqual(g.value(1, 2, 4), v);
});
