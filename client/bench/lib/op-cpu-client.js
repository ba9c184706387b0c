'use strict';
// One client in its own process, measuring its own user+system CPU over the
// operation loop only (loading modules and connecting excluded, equally):
//   node op-cpu-client.js KIND URI OP OPS RECORDS SCAN_MAX
// KIND: ours (the real Runner and ycsb workload with MIX=<OP>=1, uniform
// keys, back-to-back: rate 0) or floor (the same operation through the
// same driver's plain API in a closed loop, keys drawn with Math.random from
// the loaded ones, the value/document made once). Both read rows/documents
// without decoding them (pg: text, mongodb: raw BSON), as this client does.
// Documents: 10 fields x 100 B, flat; uuidv4 keys, seed 1, loaded by one client.
const crypto = require('crypto');
const { parseOptions } = require('../../src/options');
const { connectTarget } = require('../../src/commands/connect');
const { createWorkload } = require('../../src/workloads');
const { Runner } = require('../../src/runner');
const { keyGenerator } = require('../../src/keys');
const { DocumentGenerator } = require('../../src/docgen');

const [kind, uri, op, opsArg, recordsArg, scanMaxArg] = process.argv.slice(2);
const ops = Number(opsArg);
const records = Number(recordsArg);
const scanMax = Number(scanMaxArg);
const ENV = {
  URI: uri, KEY: 'uuidv4', LAYOUT: 'clustered', FIELDS: '10', FIELD_BYTES: '100', RATE: '1000', WORKLOAD: 'ycsb', STAGE: 'run',
  MIX: `${op}=1`, DIST: 'uniform', RECORDS: String(records), OPS: String(ops), SCAN_MAX: String(scanMax), DURABILITY: 'relaxed', CLIENT_ID: '1',
};

async function ours() {
  const opts = parseOptions('run', [], ENV);
  const { target } = await connectTarget(opts);
  await target.prepareInserts(opts);
  const workload = createWorkload({ target, opts });
  workload.rate = 0;
  const runner = new Runner({ target, workload, opts, metrics: null, log: () => {}, label: 'bench' });
  return { measure: () => runner.run(), check: () => runner.ok, close: () => target.close() };
}

const keys = keyGenerator('uuidv4', { seed: 1, clientId: '1' });
const loadedKey = () => keys.buffer(Math.floor(Math.random() * records));
const scanN = () => 1 + Math.floor(Math.random() * scanMax);
const gen = new DocumentGenerator({ seed: 1, clientId: 'floor', fields: 10, fieldBytes: 100 });
const VALUE = gen.value(1, 2, 3);

async function pgFloor() {
  const { Client } = require('pg');
  const c = new Client({ connectionString: uri });
  await c.connect();
  await c.query('set synchronous_commit = off');
  const raw = { getTypeParser: () => (v) => v };
  const json = gen.json(0);
  const get = (key) => c.query({ name: 'f_get', text: 'select data from jsonbench where id = $1', values: [key], rowMode: 'array', types: raw })
    .then((r) => { if (r.rows.length !== 1) throw new Error('not found'); });
  const patch = (key) => c.query({ name: 'f_patch', text: 'update jsonbench set data = jsonb_set(data, $2::text[], $3::jsonb) where id = $1', values: [key, ['attr3'], `"${VALUE}"`] })
    .then((r) => { if (r.rowCount !== 1) throw new Error('not found'); });
  const steps = {
    read: () => get(loadedKey()),
    update: () => patch(loadedKey()),
    rmw: () => { const k = loadedKey(); return get(k).then(() => patch(k)); },
    scan: () => c.query({ name: 'f_scan', text: 'select id, data from jsonbench where id >= $1 order by id limit $2', values: [loadedKey(), scanN()], rowMode: 'array', types: raw }),
    insert: () => c.query({ name: 'f_insert', text: 'insert into jsonbench (id, data) values ($1, $2)', values: [crypto.randomUUID(), json] }),
  };
  return { step: steps[op], close: () => c.end() };
}

async function mongoFloor() {
  const { MongoClient, Binary } = require('mongodb');
  const c = new MongoClient(uri, { maxPoolSize: 1, retryWrites: false });
  await c.connect();
  const coll = c.db().collection('jsonbench');
  const wc = { writeConcern: { w: 1, journal: false } };
  const id = () => new Binary(loadedKey(), 4);
  const doc = gen.object(0);
  const get = (_id) => coll.findOne({ _id }, { raw: true }).then((d) => { if (!d) throw new Error('not found'); });
  const patch = (_id) => coll.updateOne({ _id }, { $set: { attr3: VALUE } }, wc).then((r) => { if (r.matchedCount !== 1) throw new Error('not found'); });
  const steps = {
    read: () => get(id()),
    update: () => patch(id()),
    rmw: () => { const k = id(); return get(k).then(() => patch(k)); },
    scan: () => coll.find({ _id: { $gte: id() } }, { sort: { _id: 1 }, limit: scanMax, batchSize: scanMax, singleBatch: true, raw: true }).toArray(),
    insert: () => coll.insertOne({ _id: new Binary(crypto.randomBytes(16), 4), ...doc }, wc),
  };
  return { step: steps[op], close: () => c.close() };
}

async function floor() {
  const f = uri.startsWith('postgres') ? await pgFloor() : await mongoFloor();
  let ok = 0;
  const measure = async () => { for (let i = 0; i < ops; i++) { await f.step(); ok++; } };
  return { measure, check: () => ok, close: f.close };
}

(async () => {
  const client = kind === 'ours' ? await ours() : await floor();
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  await client.measure();
  const cpu = process.cpuUsage(cpu0);
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const ok = client.check();
  await client.close();
  console.log(JSON.stringify({ kind, op, ops: ok, seconds, cpu_us: cpu.user + cpu.system, cpu_us_per_op: (cpu.user + cpu.system) / ok }));
})().catch((err) => { console.error(err); process.exit(1); });
