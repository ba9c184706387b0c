'use strict';
// Against SecantusDB 0.7.0b3 (MongoDB wire server in Python on WiredTiger), the MongoDB stand-in:
// no registry reachable here ships a MongoDB server. These results show the
// client speaks the MongoDB protocol correctly; they are not MongoDB results.
const test = require('node:test');
const assert = require('node:assert/strict');
const { Binary, ObjectId } = require('mongodb');
const { startSecantus } = require('../helpers/secantus-server');
const { runCli } = require('../helpers/run-cli');
const { DocumentGenerator } = require('../../src/docgen');
const { sharedCases, tmpResult, readResult, SHAPE } = require('./shared-cases');

const NAME = 'SecantusDB (MongoDB stand-in)';
const countInDb = (s) => s.withDb((db) => db.collection('jsonbench').countDocuments({}));

sharedCases({
  name: NAME, label: NAME, product: 'SecantusDB', database: 'mongodb', start: startSecantus, countInDb,
});

test.describe(`${NAME}: collections, keys as stored, labelling`, () => {
  let fd;
  test.before(async () => { fd = await startSecantus(); });
  test.after(async () => { if (fd) await fd.cleanup(); });

  const collectionInfo = () => fd.withDb(async (db) => (await db.listCollections({ name: 'jsonbench' }).toArray())[0]);
  const allDocs = () => fd.withDb((db) => db.collection('jsonbench').find({}).toArray());

  test('init clustered asks for a clusteredIndex on _id; heap is a regular collection', async () => {
    let r = await runCli(['init', '--uri', fd.uri, '--key', 'uuidv7', '--layout', 'clustered']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^SecantusDB \(MongoDB stand-in\) 0\.7\.0b3: createCollection\("jsonbench", \{"clusteredIndex":\{"key":\{"_id":1\},"unique":true/);
    assert.ok(await collectionInfo(), 'collection exists');
    await fd.withDb((db) => db.collection('jsonbench').insertOne({ _id: 1 }));
    r = await runCli(['init', '--uri', fd.uri, '--key', 'uuidv4', '--layout', 'heap']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /createCollection\("jsonbench", \{\}\)/);
    const info = await collectionInfo();
    assert.equal(info.options.clusteredIndex, undefined);
    assert.equal(await countInDb(fd), 0, 'init drops the earlier collection');
  });

  test('binary keys: _id is a 16-byte UUID (Binary subtype 4, version 7), documents as generated', async () => {
    await runCli(['init', '--uri', fd.uri, '--key', 'uuidv7', '--layout', 'heap']);
    const r = await runCli(['run', '--uri', fd.uri, '--key', 'uuidv7', '--layout', 'heap', '--fields', '3', '--field-bytes', '20',
      '--rate', '200', '--docs', '30', '--seed', '9', '--client-id', '2']);
    assert.equal(r.code, 0, r.stderr);
    const docs = await allDocs();
    assert.equal(docs.length, 30);
    const gen = new DocumentGenerator({ seed: 9, clientId: '2', fields: 3, fieldBytes: 20 });
    const expected = new Set(Array.from({ length: 30 }, (_, i) => JSON.stringify(gen.object(i))));
    for (const d of docs) {
      assert.ok(d._id instanceof Binary);
      assert.equal(d._id.sub_type, 4);
      assert.equal(d._id.buffer.length, 16);
      assert.equal(d._id.buffer[6] >> 4, 7);
      const { _id, ...rest } = d;
      assert.ok(expected.has(JSON.stringify(rest)), 'stored document is one the seeded generator made');
    }
  });

  test('--key-format string stores the 36-character UUID text; sequence uses the driver ObjectId', async () => {
    await runCli(['init', '--uri', fd.uri, '--key', 'uuidv4', '--layout', 'heap']);
    let r = await runCli(['run', '--uri', fd.uri, '--key', 'uuidv4', '--layout', 'heap', ...SHAPE, '--rate', '200', '--docs', '10', '--key-format', 'string']);
    assert.equal(r.code, 0, r.stderr);
    for (const d of await allDocs()) assert.match(d._id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    await runCli(['init', '--uri', fd.uri, '--key', 'sequence', '--layout', 'clustered']);
    r = await runCli(['run', '--uri', fd.uri, '--key', 'sequence', '--layout', 'clustered', ...SHAPE, '--rate', '200', '--docs', '10', '--durability', 'relaxed']);
    assert.equal(r.code, 0, r.stderr);
    const docs = await allDocs();
    assert.equal(docs.length, 10);
    for (const d of docs) assert.ok(d._id instanceof ObjectId);
  });

  test('the stand-in is never passed off as MongoDB', async () => {
    await runCli(['init', '--uri', fd.uri, '--key', 'uuidv7', '--layout', 'heap']);
    const out = tmpResult();
    try {
      const r = await runCli(['run', '--uri', fd.uri, '--key', 'uuidv7', '--layout', 'heap', ...SHAPE, '--rate', '200', '--docs', '20', '--result', out.file]);
      assert.equal(r.code, 0, r.stderr);
      assert.doesNotMatch(r.stdout, /\] MongoDB/);
      assert.match(r.stdout, /is a MongoDB stand-in; this is not a MongoDB result/);
      const res = readResult(out.file);
      assert.deepEqual({ ...res.server, compat_version: undefined }, { product: 'SecantusDB', version: '0.7.0b3', stand_in: true, compat_version: undefined });
      const count = JSON.parse((await runCli(['count', '--uri', fd.uri])).stdout);
      assert.equal(count.server.product, 'SecantusDB');
      assert.equal(count.server.stand_in, true);
    } finally {
      out.cleanup();
    }
  });
});
