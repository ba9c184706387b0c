'use strict';
// The storage forms (POSTGRES_FORM, MYSQL_FORM: client/src/forms.js) on real servers: PostgreSQL
// (client/test/helpers/postgres-server.js) and MySQL (mysql-server.js: the official image when
// present, else the stand-in), through the client's own commands as the lab runs them (init, run,
// count with DIGEST=documents, the form given in the environment). The same documents go into
// PostgreSQL as jsonb, json and a relational table, and into MySQL as JSON and a relational table:
// - every table is the form asked for (its columns' types), PostgreSQL's json keeps the text as sent;
// - what each reads back digests to the same value, and that value is the digest of the documents
//   the generator made (identity, not counts): a relational row becomes the same document;
// - YCSB C (reads by key only) on each form: every read finds its document, none fails;
// - YCSB A from one client (updates of one field: jsonb_set, JSON_SET, or the field's column) leaves
//   the same documents in every form.
const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('crypto');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { CLIENT_DIR } = require('./deps');
const { startMysql, unavailable, IMAGE } = require('./mysql-server');

const { startPostgres } = require(path.join(CLIENT_DIR, 'test/helpers/postgres-server'));
const { runCli } = require(path.join(CLIENT_DIR, 'test/helpers/run-cli'));
const { DocumentGenerator } = require(path.join(CLIENT_DIR, 'src/docgen'));
const { keyGenerator } = require(path.join(CLIENT_DIR, 'src/keys'));
const { canonical } = require(path.join(CLIENT_DIR, 'src/document-digest'));

const FORMS = [['postgres', 'jsonb'], ['postgres', 'json'], ['postgres', 'relational'], ['mysql', 'json'], ['mysql', 'relational']];
const formEnv = (db, form) => ({ [`${db.toUpperCase()}_FORM`]: form });

const sha = (text) => crypto.createHash('sha256').update(text).digest('hex');

// The digest count prints (client/src/document-digest.js), computed from the generator itself: the
// documents the clients were asked to insert, not what any server returned.
function generatedDigest({
  seed, clients, docs, fields, fieldBytes, key,
}) {
  const lines = [];
  for (let c = 1; c <= clients; c++) {
    const gen = new DocumentGenerator({
      seed, clientId: String(c), fields, fieldBytes,
    });
    const keys = keyGenerator(key, { seed, clientId: String(c) });
    for (let i = 0; i < docs; i++) lines.push(`${keys.buffer(i).toString('hex')}\t${sha(canonical(gen.object(i)))}`);
  }
  return sha(lines.sort().join('\n'));
}

async function cli(args, env) {
  const r = await runCli(args, { env, timeoutMs: 90000 });
  assert.equal(r.code, 0, `${args.join(' ')} ${JSON.stringify(env)}: ${r.stderr}${r.stdout}`);
  return r;
}

async function countDigest(uri, env) {
  const r = await cli(['count'], { ...env, URI: uri, DIGEST: 'documents' });
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

// The table's columns and their types, as the server's catalog says.
async function columns(db, s) {
  if (db === 'postgres') {
    const { rows } = await s.query("select column_name, data_type from information_schema.columns where table_name = 'jsonbench' order by ordinal_position");
    return rows.map((r) => `${r.column_name} ${r.data_type}`);
  }
  const rows = await s.query("SELECT COLUMN_NAME, COLUMN_TYPE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'jsonbench' ORDER BY ORDINAL_POSITION");
  return rows.map((r) => `${r[0] ?? r.COLUMN_NAME} ${r[1] ?? r.COLUMN_TYPE}`);
}

test.describe(`storage forms on PostgreSQL and MySQL (${IMAGE}): the same documents back from every form`, { skip: unavailable() }, () => {
  const servers = {};
  test.before(async () => { [servers.mysql, servers.postgres] = await Promise.all([startMysql(), startPostgres()]); });
  test.after(async () => { await Promise.all(Object.values(servers).map((s) => s && s.cleanup())); });

  test('insert (2 clients x 40 documents of 10 x 100 B) in every form: the tables are the forms, the digests equal the generator\'s', async () => {
    const shape = {
      seed: 3, clients: 2, docs: 40, fields: 10, fieldBytes: 100, key: 'uuidv7',
    };
    const env = {
      KEY: 'uuidv7', LAYOUT: 'clustered', FIELDS: '10', FIELD_BYTES: '100', DOCS: '40', RATE: '1000', SEED: '3', DURABILITY: 'strict',
    };
    const want = generatedDigest(shape);
    const seen = {};
    for (const [db, form] of FORMS) {
      const s = servers[db];
      const e = { ...env, ...formEnv(db, form), URI: s.uri };
      const init = await cli(['init'], e);
      if (form === 'relational') assert.match(init.stdout, /relational: one column per field; an insert sends the values only/);
      const cols = await columns(db, s);
      const expected = {
        'postgres jsonb': ['id uuid', 'data jsonb'],
        'postgres json': ['id uuid', 'data json'],
        'postgres relational': ['id uuid', ...Array.from({ length: 10 }, (_, i) => `attr${i + 1} character varying`)],
        'mysql json': ['id binary(16)', 'data json'],
        'mysql relational': ['id binary(16)', ...Array.from({ length: 10 }, (_, i) => `attr${i + 1} varchar(100)`)],
      }[`${db} ${form}`];
      assert.deepEqual(cols, expected, `${db} ${form}: the table's columns`);
      for (const c of ['1', '2']) await cli(['run'], { ...e, CLIENT_ID: c });
      const out = await countDigest(s.uri, e);
      assert.equal(out.digest.documents, 80, `${db} ${form}: documents read back`);
      seen[`${db} ${form}`] = out.digest.sha256;
      if (db === 'postgres' && form === 'json') {
        // json keeps the text as sent: the generator's own bytes
        const gen = new DocumentGenerator({
          seed: 3, clientId: '1', fields: 10, fieldBytes: 100,
        });
        const key = keyGenerator('uuidv7', { seed: 3, clientId: '1' }).buffer(5);
        const { rows } = await s.query('select data::text as t from jsonbench where id = $1', [key.toString('hex').replace(/^(.{8})(.{4})(.{4})(.{4})/, '$1-$2-$3-$4-')]);
        assert.equal(rows[0].t, gen.json(5));
      }
    }
    for (const [name, digest] of Object.entries(seen)) assert.equal(digest, want, `${name}: the digest of what it read back is the generator's`);
  });

  test('YCSB C (reads by key only, after a load) on every form: every read finds its document, and the load reads back the same', async () => {
    const env = {
      WORKLOAD: 'ycsb', KEY: 'uuidv4', LAYOUT: 'heap', FIELDS: '5', FIELD_BYTES: '30', CLIENTS: '1', RECORDS: '50', SEED: '9',
      RATE: '1000', OPS: '150', MIX: 'C', DIST: 'uniform', DURABILITY: 'strict',
    };
    const digests = new Set();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'forms-ycsb-'));
    try {
      for (const [db, form] of FORMS) {
        const e = { ...env, ...formEnv(db, form), URI: servers[db].uri };
        await cli(['init'], e);
        await cli(['run'], { ...e, STAGE: 'load', CLIENT_ID: '1' });
        const result = path.join(dir, `${db}-${form}.json`);
        await cli(['run'], { ...e, STAGE: 'run', CLIENT_ID: '1', RESULT: result });
        const r = JSON.parse(fs.readFileSync(result, 'utf8'));
        assert.equal(r.form, form, `${db} ${form}: the result names the form its documents are in`);
        assert.deepEqual(Object.keys(r.operations), ['read'], `${db} ${form}: reads only`);
        assert.deepEqual([r.operations.read.ok, r.operations.read.errors], [150, 0], `${db} ${form}: ${JSON.stringify(r.error_samples)}`);
        digests.add((await countDigest(servers[db].uri, e)).digest.sha256);
      }
      assert.equal(digests.size, 1, 'one digest for every form');
      assert.equal([...digests][0], generatedDigest({
        seed: 9, clients: 1, docs: 50, fields: 5, fieldBytes: 30, key: 'uuidv4',
      }));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('YCSB A (one client: the same reads and one-field updates in the same order) on every form: the same documents afterwards', async () => {
    const env = {
      WORKLOAD: 'ycsb', KEY: 'uuidv7', LAYOUT: 'clustered', FIELDS: '4', FIELD_BYTES: '12', CLIENTS: '1', RECORDS: '30', SEED: '5',
      RATE: '1000', OPS: '120', MIX: 'A', DIST: 'zipfian', DURABILITY: 'strict',
    };
    const loaded = generatedDigest({
      seed: 5, clients: 1, docs: 30, fields: 4, fieldBytes: 12, key: 'uuidv7',
    });
    const digests = new Set();
    for (const [db, form] of FORMS) {
      const e = { ...env, ...formEnv(db, form), URI: servers[db].uri };
      await cli(['init'], e);
      await cli(['run'], { ...e, STAGE: 'load', CLIENT_ID: '1' });
      await cli(['run'], { ...e, STAGE: 'run', CLIENT_ID: '1' });
      digests.add((await countDigest(servers[db].uri, e)).digest.sha256);
    }
    assert.equal(digests.size, 1, 'one digest for every form');
    assert.notEqual([...digests][0], loaded, 'the updates changed documents');
  });
});
