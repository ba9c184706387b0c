'use strict';
// One client in its own process, measuring its own user+system CPU over the
// insert loop only (module loading and connecting excluded, equally for all):
//   node cpu-client.js KIND URI FIELDS FIELD_BYTES DOCS RATE
// KIND: ours (the real Runner at RATE) or SENDER-LOOP, where SENDER is how
// one insert is sent (floor, lean, original) and LOOP is closed (next insert
// as soon as the last one settled) or paced (held to RATE like the Runner).
const crypto = require('crypto');
const { Client } = require('pg');
const { PostgresTarget } = require('../../../databases/postgres/client/postgres');
const { PreparedInsert } = require('../../../databases/postgres/client/pg-prepared-insert');
const { DocumentGenerator } = require('../../src/docgen');
const { InsertWorkload } = require('../../src/workloads/insert');
const { Runner, BLOCK_MAX_NS, TIMER_MARGIN_NS, blockFor } = require('../../src/runner');
const { originalDocument } = require('./original-generator');

const [kind, uri, fieldsArg, bytesArg, docsArg, rateArg] = process.argv.slice(2);
const fields = Number(fieldsArg);
const fieldBytes = Number(bytesArg);
const docs = Number(docsArg);
const rate = Number(rateArg);

// This client: the real Runner (open loop at `rate`) and PostgreSQL target.
async function ours() {
  const target = new PostgresTarget(uri);
  await target.connect();
  const opts = {
    rate, docs, seed: 1, clientId: 'bench', fields, fieldBytes, key: 'uuidv7', durability: 'relaxed', reconnectTimeoutS: 5,
  };
  await target.prepareInserts(opts);
  const workload = new InsertWorkload({ target, opts, total: docs, rate });
  const runner = new Runner({ target, workload, opts, metrics: null, log: () => {}, label: 'PostgreSQL' });
  return { measure: () => runner.run(), check: () => runner.ok, close: () => target.close() };
}

async function connect() {
  const c = new Client({ connectionString: uri });
  await c.connect();
  await c.query('set synchronous_commit = off');
  return c;
}

const floorJson = () => new DocumentGenerator({ seed: 1, clientId: 'floor', fields, fieldBytes }).json(0);

// Each sender: connected, returns { send(): Promise, close() }.
const senders = {
  // The floor: one document serialized once, pg's named prepared insert.
  async floor() {
    const c = await connect();
    const json = floorJson();
    const text = 'insert into jsonbench (id, data) values ($1, $2)';
    return { send: () => c.query({ name: 'floor_insert', text, values: [crypto.randomUUID(), json] }), close: () => c.end() };
  },

  // The floor's one document sent the way this client sends (pre-serialized
  // Bind+Execute+Sync, a random key written in place): what the insert
  // path alone costs, without generation, keys from the generator or
  // histograms.
  async lean() {
    const c = await connect();
    await c.query('prepare lean_insert (uuid, jsonb) as insert into jsonbench (id, data) values ($1, $2)');
    const json = Buffer.from(floorJson(), 'latin1');
    const insert = new PreparedInsert({ name: 'lean_insert', sizes: [16, 1 + json.length] });
    const key = insert.param(0);
    const jsonb = insert.param(1);
    jsonb[0] = 1;
    json.copy(jsonb, 1);
    return { send: () => { crypto.randomFillSync(key); return insert.send(c); }, close: () => c.end() };
  },

  // The original study's way: its generator per document, the object handed
  // to pg (which JSON-serializes it), an unnamed statement.
  async original() {
    const c = await connect();
    return {
      send: () => c.query('INSERT INTO jsonbench (id, data) VALUES ($1, $2)', [crypto.randomUUID(), originalDocument(fields, fieldBytes)]),
      close: () => c.end(),
    };
  },
};

const loops = {
  async closed(send) {
    for (let i = 0; i < docs; i++) await send();
  },

  // Document i not before t0 + i/rate, waiting the way the Runner does (a
  // timer for long gaps, then the runner's own blockFor for the rest).
  async paced(send) {
    const t0 = performance.now();
    const dueInNs = (i) => (t0 + (i * 1000) / rate - performance.now()) * 1e6;
    for (let i = 0; i < docs; i++) {
      let waitNs = dueInNs(i);
      if (waitNs > BLOCK_MAX_NS) {
        await new Promise((r) => setTimeout(r, Math.floor((waitNs - TIMER_MARGIN_NS) / 1e6)));
        waitNs = dueInNs(i);
      }
      if (waitNs > 0) blockFor(waitNs);
      await send();
    }
  },
};

async function reference(senderName, loopName) {
  if (!senders[senderName] || !loops[loopName]) throw new Error(`unknown kind ${kind}`);
  const sender = await senders[senderName]();
  let ok = 0;
  // A failed insert rejects and ends the process: all `docs` or nothing.
  const measure = async () => { await loops[loopName](sender.send); ok = docs; };
  return { measure, check: () => ok, close: () => sender.close() };
}

(async () => {
  const client = kind === 'ours' ? await ours() : await reference(...kind.split('-'));
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  await client.measure();
  const cpu = process.cpuUsage(cpu0);
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const ok = client.check();
  await client.close();
  console.log(JSON.stringify({ kind, docs: ok, seconds, cpu_us: cpu.user + cpu.system, cpu_us_per_doc: (cpu.user + cpu.system) / ok }));
})().catch((err) => { console.error(err); process.exit(1); });
