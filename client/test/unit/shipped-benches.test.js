'use strict';
// Every bench folder the repository ships (a top-level folder with a bench.env: bench1..4, the ycsb
// benches, doc-size, the transaction benches) is valid as shipped, and the ycsb ones plan a load then a run per database.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const { validateBenchText } = require('../../src/bench-schema');
const { phases } = require('../../src/commands/plan');

const ROOT = path.resolve(__dirname, '../../..');
const shipped = fs.readdirSync(ROOT).filter((d) => fs.existsSync(path.join(ROOT, d, 'bench.env'))).sort();

test('tsbs-ingest: 100 hosts x 10 s x 3 h, client 1 ingests its 25 hosts\' 27,000 events at 50/s', () => {
  const v = validateBenchText(fs.readFileSync(path.join(ROOT, 'tsbs-ingest', 'bench.env'), 'utf8'), 'tsbs-ingest/bench.env');
  assert.equal(v.WORKLOAD, 'tsbs');
  assert.equal(v.MODEL, 'event');
  const [first] = phases(v);
  assert.deepEqual({ ops: first.ops, rate: first.rate, clients: first.clients }, { ops: 27000, rate: 50, clients: 4 });
  assert.equal(first.expected_s, 540);
});

test('tsbs-queries: 78,000 events over 13 h (the 12 h windows fit), then the 13 TSBS query types, 20 executions each', () => {
  const v = validateBenchText(fs.readFileSync(path.join(ROOT, 'tsbs-queries', 'bench.env'), 'utf8'), 'tsbs-queries/bench.env');
  const p = phases(v);
  assert.deepEqual({ ops: p[0].ops, rate: p[0].rate, stage: p[0].stage }, { ops: 25 * 780, rate: 100, stage: 'run' });
  const q = p.filter((x) => x.database === 'postgres' && x.stage === 'query');
  assert.equal(q.length, 13);
  assert.ok(q.every((x) => x.clients === 1 && x.ops === 20 && x.rate === 1));
});

test('the repository ships the original study, the YCSB benches, the TSBS ingest, the OnGres query, transactions and OLTP benches', () => {
  for (const name of ['bench1', 'bench2', 'bench3', 'bench4', 'ycsb-a', 'ycsb-b', 'ycsb-c', 'ycsb-d', 'ycsb-e', 'ycsb-f', 'ycsb-a-nested', 'ycsb-a-large', 'tsbs-ingest', 'tsbs-queries', 'events-olap', 'txn-booking', 'oltp', 'storage-forms']) {
    assert.ok(shipped.includes(name), `${name} missing (found: ${shipped.join(', ')})`);
  }
});

test('txn-booking: the OnGres bookings on one day (contention), read committed, on a MongoDB replica set, one run phase per database', () => {
  const v = validateBenchText(fs.readFileSync(path.join(ROOT, 'txn-booking', 'bench.env'), 'utf8'), 'txn-booking/bench.env');
  assert.deepEqual([v.WORKLOAD, v.TOPOLOGY, v.ISOLATION, v.DAY_RANGE, v.RETRY], ['booking', 'replset', 'read-committed', 1, 'backoff']);
  assert.ok(v.SESSIONS > 1, 'several sessions per client: transactions overlap within a client too');
  const p = phases(v);
  assert.deepEqual(p.map((x) => `${x.phase}:${x.stage}:${x.clients}`), ['mongodb:run:4', 'postgres:run:4']);
  assert.ok(p.every((x) => x.ops === v.OPS && x.rate === v.RATE && x.expected_s === v.OPS / v.RATE));
});

test('oltp: the study\'s 95/5 mix on an in-memory table, one run phase per database', () => {
  const v = validateBenchText(fs.readFileSync(path.join(ROOT, 'oltp', 'bench.env'), 'utf8'), 'oltp/bench.env');
  assert.deepEqual([v.WORKLOAD, v.OLTP_MIX, v.TOPOLOGY, v.TABLE_ROWS], ['oltp', '95/5', 'replset', 100000]);
  assert.deepEqual(phases(v).map((x) => `${x.phase}:${x.stage}`), ['mongodb:run', 'postgres:run']);
});

for (const name of shipped) {
  test(`${name}/bench.env is valid and plans its phases`, () => {
    const file = path.join(ROOT, name, 'bench.env');
    const v = validateBenchText(fs.readFileSync(file, 'utf8'), `${name}/bench.env`);
    const p = phases(v);
    if (v.WORKLOAD === 'events' || v.WORKLOAD === 'tsbs') {
      // events: a load per database, tsbs: the ingest (its run phase); then one query phase (one
      // client, QUERY_RUNS executions) per query type
      const first = v.WORKLOAD === 'events' ? '-load:load' : ':run';
      const q = v.QUERIES.map((n) => `-q-${n}:query`);
      assert.deepEqual(p.map((x) => `${x.phase}:${x.stage}`), v.DATABASES.flatMap((db) => [`${db}${first}`, ...q.map((s) => `${db}${s}`)]));
      assert.ok(p.filter((x) => x.stage === 'query').every((x) => x.clients === 1 && x.ops === v.QUERY_RUNS));
    } else if (v.WORKLOAD === 'ycsb') {
      assert.deepEqual(p.map((x) => `${x.phase}:${x.stage}`), v.DATABASES.flatMap((db) => [`${db}-load:load`, `${db}:run`]));
    } else {
      assert.deepEqual(p.map((x) => x.phase), v.DATABASES);
    }
  });
}

test('ycsb-d is YCSB D (read 95 / insert 5, latest) and ycsb-a-large YCSB A on 100 x 200 B documents', () => {
  const read = (b) => validateBenchText(fs.readFileSync(path.join(ROOT, b, 'bench.env'), 'utf8'), `${b}/bench.env`);
  const d = read('ycsb-d');
  assert.deepEqual([d.WORKLOAD, d.MIX, d.DIST], ['ycsb', { read: 95, insert: 5 }, 'latest']);
  const large = read('ycsb-a-large');
  assert.deepEqual([large.MIX, large.FIELDS, large.FIELD_BYTES, large.SHAPE], [{ read: 50, update: 50 }, 100, 200, 'flat']);
  assert.deepEqual(phases(large).filter((p) => p.database === 'postgres').map((p) => p.stage), ['load', 'run']);
});

test('sizes-10x100 and sizes-5x10 are bench1..bench4 on smaller documents: the four KEY/LAYOUT pairs as a paired sweep, every other key as bench1', () => {
  const text = (b) => fs.readFileSync(path.join(ROOT, b, 'bench.env'), 'utf8');
  const pairs = ['bench1', 'bench2', 'bench3', 'bench4'].map((b) => {
    const v = validateBenchText(text(b), `${b}/bench.env`);
    return `${v.KEY}+${v.LAYOUT}`;
  });
  const keys = (t) => Object.fromEntries(t.split('\n').filter((l) => /^[A-Z_]+=/.test(l)).map((l) => l.split(/=(.*)/s).slice(0, 2)));
  const bench1 = keys(text('bench1'));
  for (const [folder, fields, bytes] of [['sizes-10x100', '10', '100'], ['sizes-5x10', '5', '10']]) {
    const own = keys(text(folder));
    assert.equal(own.SWEEP, `"KEY+LAYOUT=${pairs.join(',')}"`, folder);
    assert.deepEqual([own.FIELDS, own.FIELD_BYTES], [fields, bytes], folder);
    const rest = (k) => Object.fromEntries(Object.entries(k).filter(([n]) => !['DESCRIPTION', 'SWEEP', 'FIELDS', 'FIELD_BYTES'].includes(n)));
    assert.deepEqual(rest(own), rest(bench1), folder);
    validateBenchText(text(folder), `${folder}/bench.env`);
  }
});

test('storage-forms: every form PostgreSQL and MySQL offer, side by side as a paired sweep of a read-only YCSB (C) after an insert-only load, answers compared', () => {
  const { manifests } = require('../../src/databases');
  const text = fs.readFileSync(path.join(ROOT, 'storage-forms', 'bench.env'), 'utf8');
  const v = validateBenchText(text, 'storage-forms/bench.env');
  assert.deepEqual([v.WORKLOAD, v.MIX, v.DATABASES, v.DIGEST, v.SHAPE], ['ycsb', { read: 100 }, ['postgres', 'mysql'], 'documents', 'flat']);
  assert.deepEqual(phases(v).map((p) => `${p.phase}:${p.stage}`), ['postgres-load:load', 'postgres:run', 'mysql-load:load', 'mysql:run']);
  const [, key, values] = /^SWEEP="([A-Z_+]+)=([^"]+)"$/m.exec(text);
  assert.equal(key, 'POSTGRES_FORM+MYSQL_FORM');
  const pairs = values.split(',').map((p) => p.split('+'));
  const offered = (db) => Object.keys(manifests()[db].offers.forms.offered);
  // every form of each database at some point, each point valid
  assert.deepEqual([...new Set(pairs.map(([pg]) => pg))].sort(), offered('postgres').sort());
  assert.deepEqual([...new Set(pairs.map(([, my]) => my))].sort(), offered('mysql').sort());
  for (const [pg, my] of pairs) {
    const point = validateBenchText(`${text}POSTGRES_FORM=${pg}\nMYSQL_FORM=${my}\n`, 'storage-forms/bench.env');
    assert.deepEqual([point.POSTGRES_FORM, point.MYSQL_FORM], [pg, my]);
  }
});

test('ycsb-c-fit/-xl and oltp-fit/-xl: the same bench on data within the cache and several times it and the container\'s memory', () => {
  const text = (name) => fs.readFileSync(path.join(ROOT, name, 'bench.env'), 'utf8');
  const keys = (name) => text(name).split('\n').filter((l) => /^[A-Z]/.test(l) && !/^(DESCRIPTION|RECORDS|TABLE_ROWS)=/.test(l));
  for (const [fit, xl, size, base] of [['ycsb-c-fit', 'ycsb-c-xl', 'RECORDS', 'ycsb-c'], ['oltp-fit', 'oltp-xl', 'TABLE_ROWS', 'oltp']]) {
    const f = validateBenchText(text(fit), `${fit}/bench.env`);
    const x = validateBenchText(text(xl), `${xl}/bench.env`);
    assert.deepEqual(keys(fit), keys(xl), `${fit} and ${xl} differ only in ${size}`);
    assert.deepEqual([f.CACHE_MB, f.DB_MEMORY_MB, f.DATABASES], [256, 1024, ['mongodb', 'postgres', 'mysql']]);
    assert.ok(x[size] >= 10 * f[size], `${xl}: ${size} ${x[size]} is many times ${fit}'s ${f[size]}`);
    // the workload of the bench it scales (ycsb-c: MIX C, zipfian; oltp: 95/5)
    const b = validateBenchText(text(base), `${base}/bench.env`);
    for (const k of ['WORKLOAD', 'MIX', 'DIST', 'OLTP_MIX', 'FIELDS', 'FIELD_BYTES']) assert.deepEqual(f[k], b[k], `${fit} ${k}`);
    // each says its cache, memory, page cache, O_DIRECT and start
    for (const name of [fit, xl]) {
      for (const said of ['CACHE_MB=256', 'DB_MEMORY_MB=1024', 'page cache', 'O_DIRECT', 'Start: warm']) assert.ok(text(name).includes(said), `${name}: ${said}`);
    }
  }
});
