'use strict';
// The tsbs ingest workload: which step of the database's workload file each model calls, in TSBS order, with keys from
// (seed, client, index) (event), UUIDv5 bucket keys the same whichever binding is called
// (bucket), the event as it is (native); a dropped event is skipped, not shifted; host-hours
// counted from acknowledged events. The real databases: test/integration/tsbs-ingest.test.js.
const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('crypto');
const { TsbsIngest, storageOf } = require('../../src/workloads/tsbs');
const { InputError } = require('../../src/input-error');
const { parseOptions } = require('../../src/options');
const tsbs = require('../../src/datasets/tsbs-devops');
const { bucketKey, TSBS_BUCKET_NAMESPACE } = require('../../src/datasets/tsbs-bucket-key');
const { keyGenerator } = require('../../src/keys');
const { statementOf, bucketValues, seriesValues, ddlOf } = require('../../../databases/postgres/client/workloads/tsbs/models');
const { createOptions } = require('../../../databases/mongodb/client/workloads/tsbs/models');

const ENV = {
  URI: 'postgres://u@h/d', KEY: 'uuidv7', LAYOUT: 'heap', WORKLOAD: 'tsbs', RATE: '10', CLIENTS: '2', SEED: '3',
  HOSTS: '5', INTERVAL_S: '60', SPAN_S: '7200', START: '2016-01-01T00:30:00Z',
};
const opts = (model, clientId = '1') => parseOptions('run', [], { ...ENV, MODEL: model, CLIENT_ID: clientId });

// A database's workload file whose model steps record what each operation calls them with.
function recorder() {
  const calls = [];
  return {
    calls,
    models: {
      event: (target, key, doc, json) => { calls.push({ step: 'event', key: key.toString('hex'), json }); return Promise.resolve(1); },
      bucket: (target, key, head, field, entry, texts) => { calls.push({ step: 'bucket', key: key.toString('hex'), head, field, entry, texts }); return Promise.resolve(1); },
      native: (target, doc, series) => { calls.push({ step: 'native', doc, series }); return Promise.resolve(1); },
    },
  };
}
const ingest = (own, o) => new TsbsIngest({ target: { database: 'postgres' }, own, opts: o });

async function runAll(w) {
  for (let i = 0; i < w.total; i++) {
    const op = w.build(i);
    await w.exec(op);
    w.acknowledge(op);
  }
}

test('MODEL=event: one event step per event, in TSBS order, keyed by (seed, client, index)', async () => {
  const t = recorder();
  const w = ingest(t, opts('event', '2'));
  assert.deepEqual(w.opNames, ['insert']);
  // client 2 of 2 owns hosts 1 and 3: 120 ticks each
  assert.equal(w.total, 240);
  await runAll(w);
  const keys = keyGenerator('uuidv7', { seed: 3, clientId: '2' });
  const data = { seed: 3, hosts: 5, intervalSeconds: 60, spanSeconds: 7200, start: '2016-01-01T00:30:00Z', hostIds: [1, 3] };
  const expected = [...tsbs.events(data)];
  assert.equal(t.calls.length, expected.length);
  t.calls.forEach((c, i) => {
    assert.equal(c.step, 'event');
    assert.equal(c.key, keys.buffer(i).toString('hex'));
    assert.equal(c.json, tsbs.toJson(expected[i]));
  });
  // TSBS order: tick-major, hosts ascending
  assert.deepEqual(t.calls.slice(0, 4).map((c) => JSON.parse(c.json).tags.hostname), ['host_1', 'host_3', 'host_1', 'host_3']);
  // 00:30 .. 02:29: hours 00, 01, 02 for each of the 2 hosts
  assert.equal(w.resultFields().tsbs.host_hours, 6);
  assert.equal(w.resultFields().tsbs.model, 'event');
});

test('MODEL=bucket: one bucket step per event, key = UUIDv5 of the bucket id, the bucket as its first event creates it', async () => {
  const t = recorder();
  const w = ingest(t, opts('bucket'));
  assert.deepEqual(w.opNames, ['bucket']);
  await runAll(w);
  const events = [...tsbs.events({ seed: 3, hosts: 5, intervalSeconds: 60, spanSeconds: 7200, start: '2016-01-01T00:30:00Z', hostIds: [0, 2, 4] })];
  assert.equal(t.calls.length, events.length);
  const seen = new Map();
  t.calls.forEach((c, i) => {
    const b = tsbs.bucketOf(events[i]);
    assert.equal(c.step, 'bucket');
    assert.equal(c.key, bucketKey(b._id).toString('hex'));
    assert.equal(c.field, 'events');
    assert.deepEqual(c.entry, tsbs.bucketEntry(events[i]));
    assert.deepEqual(c.head, { hour: b.hour, tags: b.tags });
    assert.equal(c.texts.entryJson, tsbs.toJson(tsbs.bucketEntry(events[i])));
    assert.equal(c.texts.insertJson, tsbs.toJson({ hour: b.hour, tags: b.tags, events: [tsbs.bucketEntry(events[i])] }));
    seen.set(c.key, (seen.get(c.key) || 0) + 1);
  });
  // 3 hosts x hours 00 (30 events), 01 (60), 02 (30)
  assert.equal(seen.size, 9);
  assert.equal(w.resultFields().tsbs.host_hours, 9);
  // both bindings get the same 16 bytes: PostgreSQL's first parameter is the key itself
  const [k] = bucketValues(Buffer.from(t.calls[0].key, 'hex'), '{}', '{}');
  assert.equal(k.toString('hex'), t.calls[0].key);
});

test('bucket key: RFC 9562 UUIDv5 of the bucket id in the lab\'s namespace', () => {
  const id = 'host_7@2016-01-01T03:00:00.000Z';
  const ns = Buffer.from(TSBS_BUCKET_NAMESPACE.replace(/-/g, ''), 'hex');
  const h = crypto.createHash('sha1').update(Buffer.concat([ns, Buffer.from(id)])).digest();
  const k = bucketKey(id);
  assert.equal(k.length, 16);
  assert.equal(k[6] >> 4, 5);
  assert.equal(k[8] >> 6, 2);
  h[6] = (h[6] & 0x0f) | 0x50; h[8] = (h[8] & 0x3f) | 0x80;
  assert.deepEqual(k, h.subarray(0, 16));
  assert.notDeepEqual(bucketKey('host_7@2016-01-01T04:00:00.000Z'), k);
});

test('MODEL=native: the event itself to the native step with the series layout', async () => {
  const t = recorder();
  const w = ingest(t, opts('native'));
  const op = w.build(0);
  await w.exec(op);
  const first = tsbs.events({ seed: 3, hosts: 5, intervalSeconds: 60, spanSeconds: 7200, start: '2016-01-01T00:30:00Z', hostIds: [0] }).next().value;
  assert.deepEqual(t.calls[0].doc, first);
  assert.deepEqual(t.calls[0].series, storageOf('native').series);
  const values = seriesValues(first, storageOf('native').series);
  assert.equal(values.length, 21);
  assert.equal(values[0], '2016-01-01T00:30:00.000Z');
  assert.equal(values[1], 'host_0');
  assert.equal(values[11], String(first.usage_user));
  assert.equal(statementOf(storageOf('native')).types.length, 21);
  assert.match(ddlOf(storageOf('native')), /^create table jsonbench \("time" timestamptz not null, "hostname" text, .* "usage_guest_nice" bigint\)$/);
  assert.deepEqual(createOptions(storageOf('native'), 'clustered'), { timeseries: { timeField: 'time', metaField: 'tags', granularity: 'seconds' } });
});

test('a dropped event is skipped: event i is the i-th of the data set whatever was dropped', () => {
  const w = ingest(recorder(), opts('event'));
  const all = [...tsbs.events({ seed: 3, hosts: 5, intervalSeconds: 60, spanSeconds: 7200, start: '2016-01-01T00:30:00Z', hostIds: [0, 2, 4] })];
  assert.equal(w.build(0).json, tsbs.toJson(all[0]));
  assert.equal(w.build(7).json, tsbs.toJson(all[7]));
  assert.equal(w.build(8).json, tsbs.toJson(all[8]));
});

test('refusals: a client number outside 1..CLIENTS, a stage other than run, KEY=sequence', () => {
  assert.throws(() => ingest(recorder(), opts('event', '3')), /WORKLOAD=tsbs needs a client number; allowed: an integer from 1 to CLIENTS \(2\)/);
  assert.throws(() => ingest(recorder(), { ...opts('event'), stage: 'load' }), /--stage load: WORKLOAD=tsbs ingests in its run stage/);
  assert.throws(() => parseOptions('run', [], { ...ENV, KEY: 'sequence' }), /KEY=sequence cannot be used with WORKLOAD=tsbs/);
});

test("a model the database's workload file has no step for is refused, naming the file and its models", () => {
  // the real file: TimescaleDB stores MODEL=native only
  assert.throws(() => new TsbsIngest({ target: { database: 'timescaledb' }, opts: opts('event') }), (err) => err instanceof InputError
    && err.message === 'MODEL=event: databases/timescaledb/client/workloads/tsbs.js has no step for it; allowed: MODEL=native');
});
