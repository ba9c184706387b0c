'use strict';
// The same seed on a real MySQL (mysql-server.js: the official image when present, else the
// stand-in, Debian's MySQL 9.7) and a real PostgreSQL: the same keys and the same documents
// afterwards, as a digest over (key, document) in key order. Documents are compared as JSON values
// (keys sorted, no whitespace): both store a binary form (jsonb, MySQL's JSON) and print it anew,
// re-ordering keys and adding spaces, so the stored texts differ in layout only.
// Two workloads: bench1's insert (uuidv7, clustered) and YCSB-A (load, then read/update).
const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('crypto');
const path = require('path');
const { CLIENT_DIR } = require('./deps');
const { startMysql, unavailable, IMAGE } = require('./mysql-server');

const { startPostgres } = require(path.join(CLIENT_DIR, 'test/helpers/postgres-server'));
const { runCli } = require(path.join(CLIENT_DIR, 'test/helpers/run-cli'));

const canonical = (v) => (v && typeof v === 'object' && !Array.isArray(v)
  ? `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}`
  : JSON.stringify(v));

// The same digest as `count --digest documents` (client/src/document-digest.js), computed here from
// the test's own SQL reading: sha256 over the sorted lines "key<TAB>sha256(canonical document)".
const sha = (text) => crypto.createHash('sha256').update(text).digest('hex');
function digest(rows) {
  const lines = rows.map(([id, text]) => `${id}\t${sha(canonical(JSON.parse(text)))}`).sort();
  return { digest: sha(lines.join('\n')), documents: rows.length };
}

// `count` with DIGEST=documents: the lab's own reading, against the test's.
async function countDigest(s, env) {
  const r = await cli(['count'], { ...env, URI: s.uri, DIGEST: 'documents' });
  const { digest: d } = JSON.parse(r.stdout.trim().split('\n').pop());
  return { digest: d.sha256, documents: d.documents };
}

const readMysql = async (s) => digest((await s.query('SELECT LOWER(HEX(id)), data FROM jsonbench ORDER BY id')));
const readPostgres = async (s) => digest((await s.query("select encode(uuid_send(id), 'hex') as id, data::text as data from jsonbench order by id"))
  .rows.map((r) => [r.id, r.data]));

async function cli(args, env) {
  const r = await runCli(args, { env, timeoutMs: 60000 });
  assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}${r.stdout}`);
  return r;
}

test.describe(`MySQL (${IMAGE}) and PostgreSQL with one seed: the same documents`, { skip: unavailable() }, () => {
  let my;
  let pg;
  test.before(async () => { [my, pg] = await Promise.all([startMysql(), startPostgres()]); });
  test.after(async () => { await Promise.all([my && my.cleanup(), pg && pg.cleanup()]); });

  test('bench1 insert (uuidv7, clustered, 2 clients): digests equal', async () => {
    const env = { KEY: 'uuidv7', LAYOUT: 'clustered', FIELDS: '10', FIELD_BYTES: '100', DOCS: '40', RATE: '1000', SEED: '1', DURABILITY: 'strict' };
    const out = [];
    for (const s of [my, pg]) {
      await cli(['init'], { ...env, URI: s.uri });
      for (const c of ['1', '2']) await cli(['run'], { ...env, URI: s.uri, CLIENT_ID: c });
      out.push(s === my ? await readMysql(s) : await readPostgres(s));
      assert.deepEqual(await countDigest(s, env), out[out.length - 1], 'count --digest documents = the test\'s own reading');
    }
    assert.equal(out[0].documents, 80);
    assert.deepEqual(out[0], out[1]);
  });

  test('YCSB-A (load 2 clients, 300 read/update operations): the same documents after the same updates', async () => {
    const env = {
      WORKLOAD: 'ycsb', KEY: 'uuidv4', LAYOUT: 'clustered', FIELDS: '5', FIELD_BYTES: '20', CLIENTS: '2', RECORDS: '60', SEED: '7',
      RATE: '1000', OPS: '300', MIX: 'A', DIST: 'zipfian', SHAPE: 'nested', DEPTH: '2', FANOUT: '2', DURABILITY: 'strict',
    };
    const before = [];
    const after = [];
    for (const s of [my, pg]) {
      const read = s === my ? readMysql : readPostgres;
      await cli(['init'], { ...env, URI: s.uri });
      for (const c of ['1', '2']) await cli(['run'], { ...env, URI: s.uri, STAGE: 'load', CLIENT_ID: c });
      before.push(await read(s));
      await cli(['run'], { ...env, URI: s.uri, STAGE: 'run', CLIENT_ID: '1' });
      after.push(await read(s));
      assert.deepEqual(await countDigest(s, env), after[after.length - 1], 'count --digest documents = the test\'s own reading');
    }
    assert.deepEqual(before[0], before[1]);
    assert.deepEqual(after[0], after[1]);
    assert.equal(after[0].documents, 60);
    assert.notEqual(after[0].digest, before[0].digest, 'the updates changed documents');
  });
});
