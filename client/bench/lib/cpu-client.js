'use strict';
// One client in its own process, measuring its own user+system CPU over the
// insert loop only (module loading and connecting excluded, equally for all):
//   node cpu-client.js ours|floor|paced|lean|original URI FIELDS FIELD_BYTES DOCS RATE
const crypto = require('crypto');
const { Client } = require('pg');
const { PostgresTarget } = require('../../src/targets/postgres');
const { PreparedInsert } = require('../../src/targets/pg-prepared-insert');
const { DocumentGenerator } = require('../../src/docgen');
const { keyGenerator } = require('../../src/keys');
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
  const opts = { rate, docs, clientId: 'bench', fields, fieldBytes, key: 'uuidv7', durability: 'relaxed', reconnectTimeoutS: 5 };
  await target.prepareInserts(opts);
  const gen = new DocumentGenerator({ seed: 1, clientId: 'bench', fields, fieldBytes });
  const runner = new Runner({ target, gen, keys: keyGenerator('uuidv7'), opts, metrics: null, log: () => {}, label: 'PostgreSQL' });
  return { measure: () => runner.run(), check: () => runner.ok, close: () => target.close() };
}

async function connect() {
  const c = new Client({ connectionString: uri });
  await c.connect();
  await c.query('set synchronous_commit = off');
  return c;
}

// Floor: one document serialized once, a named prepared insert, closed loop.
async function floor() {
  const c = await connect();
  const json = new DocumentGenerator({ seed: 1, clientId: 'floor', fields, fieldBytes }).json(0);
  const text = 'insert into jsonbench (id, data) values ($1, $2)';
  let ok = 0;
  return {
    measure: async () => {
      for (let i = 0; i < docs; i++) {
        await c.query({ name: 'floor_insert', text, values: [crypto.randomUUID(), json] });
        ok++;
      }
    },
    check: () => ok,
    close: () => c.end(),
  };
}

// Floor paced: the floor client held to the same open-loop schedule as
// ours (document i not before t0 + i/rate), waiting the way the Runner does
// (a timer for long gaps, Atomics.wait for the last milliseconds). Not a
// target reference: it shows what pacing alone costs a client that does no
// other work, so the open-loop figures can be read against the same rate.
async function paced() {
  const c = await connect();
  const json = new DocumentGenerator({ seed: 1, clientId: 'floor', fields, fieldBytes }).json(0);
  const text = 'insert into jsonbench (id, data) values ($1, $2)';
  let ok = 0;
  return {
    measure: async () => {
      const t0 = performance.now();
      const dueInNs = (i) => (t0 + (i * 1000) / rate - performance.now()) * 1e6;
      for (let i = 0; i < docs; i++) {
        let waitNs = dueInNs(i);
        if (waitNs > BLOCK_MAX_NS) {
          await new Promise((r) => setTimeout(r, Math.floor((waitNs - TIMER_MARGIN_NS) / 1e6)));
          waitNs = dueInNs(i);
        }
        if (waitNs > 0) blockFor(waitNs);
        await c.query({ name: 'floor_insert', text, values: [crypto.randomUUID(), json] });
        ok++;
      }
    },
    check: () => ok,
    close: () => c.end(),
  };
}

// Lean floor: the floor's closed loop (one document made once, a random key)
// sent the way this client sends (pre-serialized Bind+Execute+Sync), so the
// table also shows what the insert path alone saves over pg's Query.
async function lean() {
  const c = await connect();
  const gen = new DocumentGenerator({ seed: 1, clientId: 'floor', fields, fieldBytes });
  await c.query('prepare lean_insert (uuid, jsonb) as insert into jsonbench (id, data) values ($1, $2)');
  const insert = new PreparedInsert({ name: 'lean_insert', sizes: [16, 1 + gen.jsonLength] });
  const jsonb = insert.param(1);
  jsonb[0] = 1;
  gen.jsonInto(0, gen.jsonBuffer(0)).copy(jsonb, 1);
  const key = insert.param(0);
  let ok = 0;
  return {
    measure: async () => {
      for (let i = 0; i < docs; i++) {
        crypto.randomFillSync(key);
        await insert.send(c);
        ok++;
      }
    },
    check: () => ok,
    close: () => c.end(),
  };
}

// Original style: its generator per document, the object handed to pg (which
// JSON-serializes it), one awaited insert at a time, closed loop.
async function original() {
  const c = await connect();
  let ok = 0;
  return {
    measure: async () => {
      for (let i = 0; i < docs; i++) {
        await c.query('INSERT INTO jsonbench (id, data) VALUES ($1, $2)', [crypto.randomUUID(), originalDocument(fields, fieldBytes)]);
        ok++;
      }
    },
    check: () => ok,
    close: () => c.end(),
  };
}

(async () => {
  const client = await { ours, floor, paced, lean, original }[kind]();
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  await client.measure();
  const cpu = process.cpuUsage(cpu0);
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const ok = client.check();
  await client.close();
  console.log(JSON.stringify({ kind, docs: ok, seconds, cpu_us: cpu.user + cpu.system, cpu_us_per_doc: (cpu.user + cpu.system) / ok }));
})().catch((err) => { console.error(err); process.exit(1); });
