'use strict';
// One binding shape on the real servers: for every folder of databases/ with a manifest (a new one
// is tested by its folder: its client/test/server.js starts its server), the binding's step kinds
// against that server: connect (serverInfo, authenticatedIdentity), put, get, patch, scan, sizes
// (count, flush) and read back where it offers a document workload (ycsb), a transaction function
// with its booking workload file's steps where it offers booking, the named query step kind with the
// first query of each query set it has forms of, stats, then each of its workload files run on a
// binding that records what the file takes of it (step kinds only), close. The same shape without a
// server: client/test/unit/binding-shape.test.js.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const { ROOT, offeredWorkloads, databaseWorkload } = require('../../src/databases');
const { createTarget } = require('../../src/targets');
const { DocumentGenerator } = require('../../src/docgen');
const { keyGenerator } = require('../../src/keys');
const { RetryPolicy, TxnStats } = require('../../src/targets/txn-retry');
const { querySet } = require('../../src/queries');
const { rowsOf } = require('../../src/workloads/query');
const { storageOf, TsbsIngest } = require('../../src/workloads/tsbs');
const { InputError } = require('../../src/input-error');
const { WORKLOAD_FILE_MAY_USE } = require('../helpers/step-kinds');

const folders = fs.readdirSync(ROOT).filter((d) => fs.existsSync(path.join(ROOT, d, 'database.json'))).sort();

test('every database folder brings the server its conformance test runs on (client/test/server.js)', () => {
  const missing = folders.filter((db) => !fs.existsSync(path.join(ROOT, db, 'client', 'test', 'server.js')));
  assert.deepEqual(missing, []);
});

// put, get, patch, scan, sizes, read back: three documents of the generator, by key.
async function documentSteps(target) {
  const gen = new DocumentGenerator({ seed: 1, clientId: '1', fields: 3, fieldBytes: 10 });
  const keys = keyGenerator('uuidv7', { seed: 1, clientId: '1' });
  await target.init('uuidv7', 'clustered');
  await target.prepareInserts({ key: 'uuidv7', durability: 'strict', stage: 'run', workload: 'ycsb' });
  for (let i = 0; i < 3; i++) await target.send(target.build(gen, i, keys));
  assert.equal(await target.get(keys.buffer(0)), 1);
  assert.equal(await target.patch(keys.buffer(1), ['attr2'], 'x'.repeat(10)), 1);
  const first = [0, 1, 2].map((i) => keys.buffer(i)).sort(Buffer.compare)[0];
  assert.equal(await target.scan(first, 3), 3);
  await assert.rejects(target.get(Buffer.alloc(16)), (err) => err.code === 'JSONBENCH_NOT_FOUND' && !target.isConnectionLost(err));
  const sizes = await target.count();
  assert.equal(sizes.documents, 3);
  assert.ok(sizes.total_bytes > 0, JSON.stringify(sizes));
  assert.equal(typeof (await target.flush()).command, 'string');
  let read = 0;
  for await (const [hex] of target.readBack('uuidv7')) {
    assert.match(hex, /^[0-9a-f]{32}$/);
    read++;
  }
  assert.equal(read, 3);
}

// A transaction function with the booking workload file's steps: one committed, counted once.
async function transactionSteps(db, target) {
  const own = databaseWorkload(db, 'booking');
  await own.init(target, { seed: 1, flights: 3, layout: 'clustered' });
  await own.prepare(target, {
    workload: 'booking', durability: 'strict', isolation: 'read-committed', key: 'uuidv7',
  });
  const policy = new RetryPolicy({ retry: 'backoff', maxAttempts: 3 });
  const stats = new TxnStats();
  const flight = await target.transaction(0, async (tx) => (await tx.flightWithAircraft(1)).id, {
    isolation: 'read-committed', policy, stats, stepsOn: own.stepsOn,
  });
  assert.equal(flight, 1);
  const r = stats.result(policy);
  assert.equal(r.committed, 1, JSON.stringify(r));
  assert.equal(typeof target.transactionIsolation('read-committed'), 'string');
}

// The named query step kind: execution 0 of the first query of each query set this database has
// forms of (databases/<db>/client/queries/<set>.js), on the table the steps above left (a database
// running no document workload: its tsbs model's table, made by its tsbs workload file's init),
// answered with rows.
const SET_DATA = {
  events: { seed: 1, events: 10, repos: 5, actors: 5, skew: 1 },
  tsbs: {
    seed: 1, hosts: 2, start: '2016-01-01T00:00:00Z', intervalS: 10, spanS: 3600, model: 'event',
  },
};
async function namedQuerySteps(db, target, documents) {
  const dir = path.join(ROOT, db, 'client', 'queries');
  const sets = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.js')).map((f) => f.slice(0, -3)).sort() : [];
  if (!documents && sets.includes('tsbs')) await databaseWorkload(db, 'tsbs').init(target, storageOf('native'), { layout: 'clustered' });
  for (const workload of sets) {
    const set = querySet(workload);
    const data = set.dataOf({ ...SET_DATA[workload], ...(documents ? {} : { model: 'native' }) });
    const [name] = Object.keys(set.queries);
    const def = set.queries[name];
    const answer = await target.query(def[db](def.params(data, 0), data));
    assert.ok(Array.isArray(rowsOf(answer)), `${db} ${workload} ${name}`);
  }
  return sets;
}

// The binding as a workload file is given it, recording every property the file reads, sets, asks
// for or lists; a method it calls runs on the binding itself (bound), so the binding's own work is
// not recorded.
function recording(target, used = new Set()) {
  const proxy = new Proxy(target, {
    get(t, prop) {
      if (typeof prop === 'string') used.add(prop);
      const v = Reflect.get(t, prop, t);
      return typeof v === 'function' ? v.bind(t) : v;
    },
    set(t, prop, value) { used.add(`${String(prop)} (set)`); return Reflect.set(t, prop, value, t); },
    has(t, prop) { used.add(`${String(prop)} (in)`); return Reflect.has(t, prop); },
    deleteProperty(t, prop) { used.add(`${String(prop)} (delete)`); return Reflect.deleteProperty(t, prop); },
    defineProperty(t, prop, d) { used.add(`${String(prop)} (define)`); return Reflect.defineProperty(t, prop, d); },
    ownKeys(t) { used.add('(its keys)'); return Reflect.ownKeys(t); },
  });
  return { proxy, used };
}

// A refusal of a model or feature this server lacks (InputError: MongoDB's stand-in has no
// time-series collections, TimescaleDB's Apache edition no compression) ends that part, said.
const refused = (err) => {
  if (!(err instanceof InputError)) throw err;
  return err.message;
};

// Each workload file of this database, every function it exports, on a recording binding: it
// must take nothing of the binding but step kinds (its own state is its own). Each tsbs model on a
// binding of its own (a run's session prepares one model's statement). Returns what was refused
// by the server, by part.
async function workloadFileSteps(db, target, server, uri) {
  const txn = { durability: 'strict', isolation: 'read-committed', key: 'uuidv7' };
  const parts = {
    booking: async (own, t) => {
      await own.init(t, { seed: 1, flights: 3, layout: 'clustered' });
      await own.prepare(t, { ...txn, workload: 'booking' });
      await own.verify(t);
      await own.seatIds(t);
      await own.sizes(t);
    },
    oltp: async (own, t) => {
      await own.init(t, { seed: 1, tableRows: 10 });
      await own.prepare(t, { ...txn, workload: 'oltp' });
      await own.count(t);
    },
    globalsign: async (own, t) => {
      const { person } = require('../../src/workloads/globalsign-data');
      const opts = {
        ...txn, layout: 'clustered', rangeMin: 45, rangeMax: 75,
      };
      await own.init(t, opts);
      await own.prepare(t, opts);
      const steps = own.stepsOn(t, opts);
      for (let p = 0; p < 3; p++) await steps.insert(own.encode(person(1, p, { padBytes: 8, ageMax: 99 })));
      await steps.update(1, 0.5);
      await steps.range();
      await own.sizes(t);
      let n = 0;
      for await (const doc of own.readBack(t)) n += doc ? 1 : 0;
      assert.equal(n, 3, `${db} globalsign read back`);
      assert.equal(typeof (await own.proof(t, { min: 45, max: 75 })).used, 'boolean', `${db} globalsign index proof`);
    },
    tsbs: async (own, first, record) => {
      const out = {};
      for (const model of Object.keys(own.models)) {
        const binding = createTarget(db, uri);
        await binding.connect();
        opened.push(binding);
        const t = record(binding);
        const storage = { ...storageOf(model), durability: 'strict', keyFormat: 'binary' };
        try {
          await own.init(t, storage, { key: 'uuidv7', layout: 'clustered', server });
        } catch (err) {
          out[model] = refused(err);
          continue;
        }
        await own.prepare(t, storage);
        const ingest = new TsbsIngest({
          target: t,
          own,
          opts: {
            stage: 'run', model, seed: 1, hosts: 2, start: '2016-01-01T00:00:00Z', intervalS: 10, spanS: 60, clients: 1, clientId: '1', key: 'uuidv7', rate: 0,
          },
        });
        for (let i = 0; i < 3; i++) await ingest.exec(ingest.build(i));
        assert.ok((await own.count(t, storage)).documents >= 3, `${db} tsbs ${model}`);
        if (typeof own.compress === 'function') await own.compress(t, storage, 'after:1h').catch((err) => { out[`${model} compress`] = refused(err); });
      }
      return out;
    },
  };
  const refusals = {};
  const opened = [];
  try {
    for (const workload of offeredWorkloads(db)) {
      const own = databaseWorkload(db, workload);
      const used = new Set();
      const record = (binding) => {
        return recording(binding, used).proxy;
      };
      if (parts[workload]) refusals[workload] = await parts[workload](own, record(target), record);
      else assert.deepEqual(Object.values(own).filter((v) => typeof v === 'function'), [], `databases/${db}/client/workloads/${workload}.js: a function this test does not run`);
      assert.deepEqual([...used].filter((n) => !WORKLOAD_FILE_MAY_USE.has(n)).sort(), [],
        `databases/${db}/client/workloads/${workload}.js took these of the binding, which are no step kind`);
    }
  } finally {
    for (const b of opened) await b.close();
  }
  return refusals;
}

for (const db of folders) {
  const file = path.join(ROOT, db, 'client', 'test', 'server.js');
  // eslint-disable-next-line import/no-dynamic-require, global-require
  const server = fs.existsSync(file) ? require(file) : null;
  const skip = server ? server.unavailable() : `no ${path.relative(ROOT, file)}`;
  test(`the ${db} binding's step kinds on a real server`, { skip, timeout: 600000 }, async (t) => {
    const s = await server.start();
    const target = createTarget(db, s.uri);
    try {
      await target.connect();
      const info = await target.serverInfo();
      assert.equal(typeof info.product, 'string');
      // who the session is (a test server without users: the binding says it is not authenticated)
      if (server.authenticates === false) await assert.rejects(target.authenticatedIdentity(), /not authenticated/);
      else assert.equal(typeof (await target.authenticatedIdentity()).user, 'string');
      const offered = offeredWorkloads(db);
      if (offered.includes('ycsb')) await documentSteps(target);
      if (offered.includes('booking')) await transactionSteps(db, target);
      await namedQuerySteps(db, target, offered.includes('ycsb'));
      const stats = await target.serverStats(info, []);
      assert.equal(typeof stats.counters, 'object');
      assert.equal(stats.run_session.connections, 1);
      const refusals = await workloadFileSteps(db, target, info, s.uri);
      // the sizes step kind's flush takes a workload's tables (count.js readSettled passes them)
      assert.equal(typeof (await target.flush(['jsonbench'])).command, 'string');
      const said = Object.entries(refusals).filter(([, r]) => r && Object.keys(r).length);
      if (said.length) t.diagnostic(`${db}: refused by this server: ${JSON.stringify(Object.fromEntries(said))}`);
    } finally {
      await target.close();
      await s.cleanup();
    }
  });
}
