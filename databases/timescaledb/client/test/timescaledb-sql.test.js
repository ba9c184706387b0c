'use strict';
// What CI checks of TimescaleDB without a TimescaleDB (no registry ships one here):
// - each of the 13 query forms, for a few executions, is the SQL TSBS's TimescaleDB generator writes
//   for the same parameters (timescale/tsbs cmd/tsbs_generate_queries/databases/timescaledb/devops.go,
//   default flags with hostname in the row: its templates are re-stated below as facts), once the
//   differences the forms document (queries/tsbs.js) are taken out one by one: anything else
//   that differs (a bucket width, a filter, an ordering, a limit) fails;
// - the DDL is TSBS's loader's (pkg/targets/timescaledb/creator.go) over PostgreSQL's native table;
// - the client picks the binding from timescaledb:// and finds the forms through the query registry.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');
const { fromClient, CLIENT_DIR } = require('./deps');
const schema = require('../workloads/tsbs/schema');
const { forms } = require('../queries/tsbs');

const set = fromClient('./src/queries/tsbs-devops-queries');
const { queryNames, requireForms } = fromClient('./src/queries');
const { storageOf } = fromClient('./src/workloads/tsbs');
const { ddlOf } = require('../../../postgres/client/workloads/tsbs/models');
const { createTarget } = fromClient('./src/targets');
const { databaseOf } = fromClient('./src/uri');

const DATA = set.dataOf({ seed: 7, hosts: 10, start: '2016-01-01T00:00:00Z', intervalS: 60, spanS: 13 * 3600, model: 'native' });
const KS = [0, 1, 2, 17];

// ---- TSBS's TimescaleDB text for the same parameters (its templates; times as ISO literals) ----
const lit = (v) => `'${v}'`;
const hostIn = (p) => `hostname IN (${p.hostnames.map(lit).join(',')})`;
function tsbsText(name, p) {
  if (name.startsWith('single-groupby-')) {
    return `SELECT time_bucket('60 seconds', time) AS minute,
        ${p.metrics.map((m) => `max(${m}) as max_${m}`).join(', ')}
        FROM cpu
        WHERE ${hostIn(p)} AND time >= ${lit(p.from)} AND time < ${lit(p.to)}
        GROUP BY minute ORDER BY minute ASC`;
  }
  if (name.startsWith('double-groupby-')) {
    return `
        WITH cpu_avg AS (
          SELECT time_bucket('3600 seconds', time) as hour, hostname,
          ${p.metrics.map((m) => `avg(${m}) as mean_${m}`).join(', ')}
          FROM cpu
          WHERE time >= ${lit(p.from)} AND time < ${lit(p.to)}
          GROUP BY 1, 2
        )
        SELECT hour, hostname, ${p.metrics.map((m) => `mean_${m}`).join(', ')}
        FROM cpu_avg
        ORDER BY hour, hostname`;
  }
  if (name.startsWith('high-cpu-')) {
    return `SELECT * FROM cpu WHERE usage_user > 90.0 and time >= ${lit(p.from)} AND time < ${lit(p.to)} ${p.hostnames ? `AND ${hostIn(p)}` : ''}`;
  }
  if (name === 'groupby-orderby-limit') {
    return `SELECT time_bucket('60 seconds', time) AS minute, max(usage_user)
        FROM cpu
        WHERE time < ${lit(p.to)}
        GROUP BY minute
        ORDER BY minute DESC
        LIMIT 5`;
  }
  if (name === 'lastpoint') return 'SELECT DISTINCT ON (hostname) * FROM cpu ORDER BY hostname, time DESC';
  throw new Error(`no TSBS text for ${name}`);
}

// One spelling for both texts: case, white space, TSBS's table name.
const canon = (sql) => sql.toLowerCase().replace(/\s+/g, ' ').replace(/\( /g, '(').replace(/ \)/g, ')')
  .replace(/, /g, ',').replace(/\bcpu\b/g, 'jsonbench').trim();

// The form's text with its parameters inlined, minus the differences queries/tsbs.js states.
// [the queries it applies to, what, by what, why]
const DOCUMENTED = [
  [/^groupby-orderby-limit$/, / as max_usage_user from/, ' from', 'names its max as the digest reads it'],
  [/^double-groupby-/, /\bavg_/g, 'mean_', 'names its averages avg_* (the set\'s digest), TSBS mean_*'],
  [/^double-groupby-/, / collate "c"/g, '', 'orders hostname in byte order'],
  [/^high-cpu-/, /,json_build_object\('hostname',hostname\) as tags/, '', 'adds the hostname under tags'],
];
function ourText(name, form) {
  const inlined = form.text.replace(/\$(\d+)/g, (_, i) => lit(form.values[Number(i) - 1]));
  return DOCUMENTED.filter(([names]) => names.test(name)).reduce((s, [, re, to]) => s.replace(re, to), canon(inlined));
}

test('each of the 13 forms is TSBS\'s TimescaleDB query for the same parameters, but for the stated differences', () => {
  assert.deepEqual(Object.keys(forms), queryNames('tsbs'));
  for (const name of queryNames('tsbs')) {
    for (const k of KS) {
      const p = set.queries[name].params(DATA, k);
      const form = forms[name](p, DATA);
      assert.equal(ourText(name, form), canon(tsbsText(name, p)), `${name} k=${k}`);
    }
  }
});

test('the comparison fails on a changed bucket width, filter, ordering or limit', () => {
  const p = set.queries['single-groupby-1-8-1'].params(DATA, 0);
  const good = forms['single-groupby-1-8-1'](p, DATA);
  const expected = canon(tsbsText('single-groupby-1-8-1', p));
  for (const [from, to] of [["'60 seconds'", "'120 seconds'"], ['time >= ', 'time > '], [' asc', ' desc'], ['hostname in (', 'hostname not in (']]) {
    assert.notEqual(ourText('single-groupby-1-8-1', { ...good, text: good.text.replace(from, to) }), expected, `${from} -> ${to}`);
  }
  const lim = set.queries['groupby-orderby-limit'].params(DATA, 0);
  assert.notEqual(ourText('groupby-orderby-limit', forms['groupby-orderby-limit']({ ...lim, limit: 6 }, DATA)), canon(tsbsText('groupby-orderby-limit', lim)));
});

test('forms refuse the document models, naming the allowed one', () => {
  const p = set.queries.lastpoint.params(DATA, 0);
  assert.throws(() => forms.lastpoint(p, { ...DATA, model: 'event' }), /MODEL=event has no TimescaleDB forms; allowed: MODEL=native/);
});

test('DDL: PostgreSQL\'s native table, a hypertable on time with 12 h chunks and TSBS\'s two indexes; compression stated', () => {
  const storage = storageOf('native');
  const [table, hyper] = schema.tableDdl(storage);
  assert.equal(table, ddlOf(storage), 'the same columns as PostgreSQL\'s native model');
  assert.match(table, /^create table jsonbench \("time" timestamptz not null, "hostname" text, .*"usage_user" bigint, .*"usage_guest_nice" bigint\)$/);
  assert.equal(hyper, "select create_hypertable('jsonbench', 'time', chunk_time_interval => interval '12 hours', create_default_indexes => false)");
  // TSBS: CREATE INDEX ON cpu(hostname, "time" DESC); CREATE INDEX ON cpu("time" DESC)
  assert.deepEqual(schema.indexDdl(storage), [
    'create index jsonbench_hostname_time on jsonbench ("hostname", "time" desc)',
    'create index jsonbench_time on jsonbench ("time" desc)',
  ]);
  // COMPRESS=after:12h: the settings, then the chunks older than 12 hours compressed at once (no policy job)
  assert.deepEqual(schema.compressionDdl(storage, 'after:12h'), [
    "alter table jsonbench set (timescaledb.compress, timescaledb.compress_segmentby = 'hostname', timescaledb.compress_orderby = 'time desc')",
    "select count(compress_chunk(c, if_not_compressed => true))::int as n from show_chunks('jsonbench', older_than => interval '12 hours') c "
      + "where c not in (select format('%I.%I', chunk_schema, chunk_name)::regclass from timescaledb_information.chunks "
      + "where hypertable_name = 'jsonbench' and is_compressed)",
  ]);
  assert.deepEqual(['after:30s', 'after:5m', 'after:1d'].map(schema.compressInterval), ['30 seconds', '5 minutes', '1 days']);
  for (const bad of ['after:1 fortnight', 'after:12 hours', '12h', 'none']) {
    assert.throws(() => schema.compressionDdl(storage, bad), /allowed: none, or after:<n><s\|m\|h\|d> \(e\.g\. after:12h\)/, bad);
  }
  assert.throws(() => schema.tableDdl(storageOf('event')), /MODEL=event has no TimescaleDB layout; allowed: WORKLOAD=tsbs MODEL=native/);
});

test('timescaledb:// picks this binding, speaking PostgreSQL; the query registry finds its 13 forms', () => {
  assert.equal(databaseOf('timescaledb://u:p@127.0.0.1:5432/db'), 'timescaledb');
  const t = createTarget('timescaledb', 'timescaledb://u:p@127.0.0.1:5432/db');
  assert.equal(t.constructor.name, 'TimescaledbTarget');
  assert.equal(t.uri, 'postgres://u:p@127.0.0.1:5432/db');
  const s = requireForms('tsbs', 'timescaledb');
  for (const name of queryNames('tsbs')) assert.equal(typeof s.queries[name].timescaledb, 'function', name);
  // The shared definitions are not changed for the other databases.
  assert.equal(set.queries.lastpoint.timescaledb, undefined);
  assert.ok(path.isAbsolute(CLIENT_DIR));
});

test('a stand-in run takes TimescaleDB (its stand-in: the Apache edition) but refuses COMPRESS, naming why', () => {
  const { refuseOnStandIns } = fromClient('./src/stand-ins');
  const manifest = JSON.parse(require('fs').readFileSync(path.join(__dirname, '../../database.json'), 'utf8'));
  assert.equal(manifest.no_standin, undefined);
  const text = 'WORKLOAD=tsbs\nMODEL=native\nDATABASES=postgres timescaledb\nCOMPRESS=after:12h\n';
  refuseOnStandIns({ WORKLOAD: 'tsbs', MODEL: 'native', COMPRESS: 'none', DATABASES: ['postgres', 'timescaledb'] }, 'b/bench.env', text, () => '');
  assert.throws(() => refuseOnStandIns({ WORKLOAD: 'tsbs', MODEL: 'native', COMPRESS: 'after:12h', DATABASES: ['timescaledb'] }, 'b/bench.env', text, () => ''), (err) => {
    assert.equal(err.constructor.name, 'InputError');
    assert.ok(err.message.startsWith('b/bench.env:4: COMPRESS=after:12h cannot run on the stand-ins (JSONBENCH_STANDINS=1): '), err.message);
    assert.ok(err.message.includes(manifest.standin.refuses[0].why), err.message);
    assert.match(err.message, /timescale\/timescaledb:2\.28\.3-pg17 has TimescaleDB's compression/);
    return true;
  });
});

test('an image of the user\'s own (TIMESCALEDB_IMAGE, from the environment or .env) runs in place of the stand-in, COMPRESS allowed', () => {
  const fs = require('fs');
  const os = require('os');
  const { refuseOnStandIns, labSetting } = fromClient('./src/stand-ins');
  const values = { WORKLOAD: 'tsbs', MODEL: 'native', COMPRESS: 'after:12h', DATABASES: ['timescaledb'] };
  const text = 'DATABASES=timescaledb\nCOMPRESS=after:12h\n';
  const asked = [];
  refuseOnStandIns(values, 'b/bench.env', text, (name) => { asked.push(name); return 'me/timescaledb:mine'; });
  assert.deepEqual([...new Set(asked)], ['TIMESCALEDB_IMAGE']);
  assert.throws(() => refuseOnStandIns(values, 'b/bench.env', text, () => ''), /cannot run on the stand-ins/);
  // labSetting: the environment wins over .env, as in compose; an empty value is no setting
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tsdb-env-'));
  const env = path.join(dir, '.env');
  fs.writeFileSync(env, 'POSTGRES_PASSWORD=x\nTIMESCALEDB_IMAGE="local/ts:1"\n');
  assert.equal(labSetting('TIMESCALEDB_IMAGE', env, {}), 'local/ts:1');
  assert.equal(labSetting('TIMESCALEDB_IMAGE', env, { TIMESCALEDB_IMAGE: 'env/ts:2' }), 'env/ts:2');
  assert.equal(labSetting('TIMESCALEDB_IMAGE', path.join(dir, 'none'), {}), '');
  fs.writeFileSync(env, 'TIMESCALEDB_IMAGE=\n');
  assert.equal(labSetting('TIMESCALEDB_IMAGE', env, {}), '');
  fs.rmSync(dir, { recursive: true });
});
