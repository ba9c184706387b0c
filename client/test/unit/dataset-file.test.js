'use strict';
// DATASET files (client/src/datasets/dataset-file.js) read from real files on
// disk: plain and gzip, empty lines, bad lines named file:line, the split of
// the events over clients, and `node client plan` of a DATASET bench.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const zlib = require('zlib');
const { spawnSync } = require('child_process');
const { clientEvents, countEvents, countEventsAsync } = require('../../src/datasets/dataset-file');
const { InputError } = require('../../src/bench-schema');
const gh = require('../../src/datasets/github-events');

const CLI = path.resolve(__dirname, '../..');
const cli = (args) => spawnSync(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH }, encoding: 'utf8', timeout: 30000 });

let dir;
test.before(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jsonbench-dataset-')); });
test.after(() => fs.rmSync(dir, { recursive: true, force: true }));

const write = (name, text) => {
  const file = path.join(dir, name);
  fs.writeFileSync(file, name.endsWith('.gz') ? zlib.gzipSync(text) : text);
  return file;
};
const all = async (it) => { const out = []; for await (const x of it) out.push(x); return out; };

// 1000 generated events, with blank lines (empty, spaces, CRLF) every so often.
const EVENTS = [...gh.events({ seed: 5, count: 1000, repos: 50, actors: 80 })].map((e) => JSON.parse(gh.toJson(e)));
function textWithBlanks() {
  const lines = [];
  EVENTS.forEach((e, i) => {
    if (i % 97 === 3) lines.push('');
    if (i % 131 === 7) lines.push('   \t');
    lines.push(gh.toJson(e) + (i % 50 === 0 ? '\r' : ''));
  });
  return `${lines.join('\n')}\n\n`;
}

test('plain and gzip files give the same events, blank lines skipped; count = non-empty lines', async () => {
  const text = textWithBlanks();
  for (const name of ['ev.ndjson', 'ev.ndjson.gz']) {
    const file = write(name, text);
    assert.equal(countEvents(file), 1000, name);
    assert.equal(await countEventsAsync(file), 1000, name);
    const got = await all(clientEvents(file, { clients: 1, clientIndex: 0 }));
    assert.deepEqual(got.map((x) => x.index), EVENTS.map((_, i) => i));
    assert.deepEqual(got.map((x) => x.doc), EVENTS, name);
  }
});

test('a last line without a newline, and a byte order mark, are events like any other', async () => {
  const file = write('bom.ndjson', '\ufeff{"a":1}\n{"a":2}');
  assert.deepEqual((await all(clientEvents(file))).map((x) => x.doc), [{ a: 1 }, { a: 2 }]);
  assert.equal(countEvents(file), 2);
});

test('client split: every event exactly once, event i to client i % clients at index floor(i / clients)', async () => {
  const file = write('split.ndjson.gz', textWithBlanks());
  for (const clients of [1, 3, 7]) {
    const seen = new Array(EVENTS.length).fill(0);
    for (let c = 0; c < clients; c++) {
      const got = await all(clientEvents(file, { clients, clientIndex: c }));
      got.forEach(({ index, doc }, n) => {
        assert.equal(index, n, 'indexes are 0, 1, 2, ... per client');
        const i = index * clients + c;
        assert.deepEqual(doc, EVENTS[i]);
        seen[i]++;
      });
    }
    assert.deepEqual([...new Set(seen)], [1], `clients=${clients}: every event once`);
  }
});

test('relative paths are read from benchDir', async () => {
  write('rel.ndjson', '{"x":1}\n');
  assert.equal(countEvents('rel.ndjson', dir), 1);
  assert.deepEqual(await all(clientEvents('rel.ndjson', { benchDir: dir })), [{ index: 0, doc: { x: 1 } }]);
  assert.throws(() => countEvents('rel.ndjson', os.tmpdir()), (e) => e instanceof InputError && /rel\.ndjson: cannot read DATASET: no such file/.test(e.message));
});

test('a bad line is an error naming file:line (1-based, blank lines counted) and what is wrong', async () => {
  const cases = [
    ['{"a":1}\n\n{"a":2\n', /bad1\.ndjson:3: not valid JSON \(.*\); each line must be one JSON object/],
    ['{"a":1}\n[1,2]\n', /bad2\.ndjson:2: is an array, not a JSON object/],
    ['{"a":1}\n{"a":2}\n42\n', /bad3\.ndjson:3: is a number, not a JSON object/],
    ['null\n', /bad4\.ndjson:1: is null, not a JSON object/],
  ];
  let n = 0;
  for (const [text, re] of cases) {
    n++;
    for (const ext of ['.ndjson', '.ndjson.gz']) {
      const name = `bad${n}${ext}`;
      const file = write(name, text);
      const named = (e) => e instanceof InputError && re.test(e.message.replace(ext, '.ndjson')) && e.message.startsWith(file);
      assert.throws(() => countEvents(file), named, `${name} countEvents`);
      await assert.rejects(all(clientEvents(file)), named, `${name} clientEvents`);
    }
  }
  const invalid = path.join(dir, 'utf.ndjson');
  fs.writeFileSync(invalid, Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d, 0x0a]));
  assert.throws(() => countEvents(invalid), /utf\.ndjson:1: not valid UTF-8/);
});

test('a client parses only its own lines; another client\'s bad line is its own error', async () => {
  const file = write('other.ndjson', '{"a":0}\n{"a":1}\nnope\n{"a":3}\n');
  assert.deepEqual((await all(clientEvents(file, { clients: 2, clientIndex: 1 }))).map((x) => x.doc), [{ a: 1 }, { a: 3 }]);
  await assert.rejects(all(clientEvents(file, { clients: 2, clientIndex: 0 })), /other\.ndjson:3: not valid JSON/);
});

test('broken gzip, wrong names and bad split options are refused clearly', async () => {
  const full = zlib.gzipSync(textWithBlanks());
  const cut = path.join(dir, 'cut.ndjson.gz');
  fs.writeFileSync(cut, full.subarray(0, Math.floor(full.length / 2)));
  assert.throws(() => countEvents(cut), /cut\.ndjson\.gz: cannot read DATASET: the gzip data ends early/);
  const notGz = write('plain-but-gz-name.ndjson', '{"a":1}\n');
  fs.renameSync(notGz, `${notGz}.gz`);
  assert.throws(() => countEvents(`${notGz}.gz`), /plain-but-gz-name\.ndjson\.gz: cannot read DATASET: not valid gzip data/);
  assert.throws(() => countEvents(path.join(dir, 'x.json')), /allowed: a path ending in \.ndjson or \.ndjson\.gz/);
  await assert.rejects(all(clientEvents(cut, { clients: 2, clientIndex: 2 })), /clientIndex=2 is not allowed; clientIndex must be an integer in 0\.\.1/);
});

test('plan: a DATASET bench loads the events of client 1 (lines i % CLIENTS == 0), from a path relative to the bench folder', () => {
  const bench = fs.mkdtempSync(path.join(dir, 'bench-'));
  fs.writeFileSync(path.join(bench, 'events.ndjson.gz'), zlib.gzipSync(textWithBlanks()));
  fs.writeFileSync(path.join(bench, 'bench.env'), 'DESCRIPTION=own events\nWORKLOAD=events\nDATASET=events.ndjson.gz\nCLIENTS=3\n'
    + 'KEY=uuidv7\nLAYOUT=clustered\nLOAD_RATE=100\nDATABASES=postgres\nQUERIES=olap-b\nQUERY_RUNS=4\n');
  const r = cli(['plan', path.join(bench, 'bench.env')]);
  assert.equal(r.status, 0, r.stderr);
  // 1000 events over 3 clients: client 1 loads events 0, 3, ..., 999 = 334.
  assert.equal(r.stdout, 'phase=postgres-load database=postgres stage=load ops=334 rate=100 expected_s=3.34 clients=3 query=-\n'
    + 'phase=postgres-q-olap-b database=postgres stage=query ops=4 rate=1 expected_s=4 clients=1 query=olap-b\n');
  fs.writeFileSync(path.join(bench, 'events.ndjson.gz'), zlib.gzipSync('{"a":1}\n{"a":\n'));
  const bad = cli(['plan', path.join(bench, 'bench.env')]);
  assert.equal(bad.status, 2, bad.stderr);
  assert.match(bad.stderr, /events\.ndjson\.gz:2: not valid JSON/);
  fs.writeFileSync(path.join(bench, 'events.ndjson.gz'), zlib.gzipSync(textWithBlanks()));
  // olap-lookup draws its repository from the generated events: `all` leaves it out with a DATASET,
  // and naming it is refused before anything starts.
  const env = fs.readFileSync(path.join(bench, 'bench.env'), 'utf8');
  fs.writeFileSync(path.join(bench, 'bench.env'), env.replace('QUERIES=olap-b', 'QUERIES=all'));
  const all = cli(['plan', path.join(bench, 'bench.env')]);
  assert.equal(all.status, 0, all.stderr);
  assert.deepEqual(all.stdout.trim().split('\n').slice(1).map((l) => /query=(\S+)/.exec(l)[1]), ['olap-a', 'olap-b', 'olap-c', 'olap-d']);
  fs.writeFileSync(path.join(bench, 'bench.env'), env.replace('QUERIES=olap-b', 'QUERIES=olap-b olap-lookup'));
  const lookup = cli(['plan', path.join(bench, 'bench.env')]);
  assert.equal(lookup.status, 2, lookup.stdout);
  assert.match(lookup.stderr, /bench\.env:\d+: QUERIES: olap-lookup draws its parameters from the generated events, and DATASET=events\.ndjson\.gz replaces them; allowed with DATASET: none, all \(which leaves olap-lookup out\) or names from: olap-a, olap-b, olap-c, olap-d/);
});
