'use strict';
// MySQL's forms of the events query set without a server: the set runs on mysql (a form for every
// query), each form filters and groups on the very expressions the set's functional indexes hold
// (the optimizer uses a functional index only for the same expression), what has no MySQL form is
// refused naming what is allowed, and counts typed as numbers as PostgreSQL's are.
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');
const { CLIENT_DIR } = require('./deps');
const { indexDdl, typedRows } = require('../mysql-queries');
const { textAt } = require('../mysql-schema');

const { requireForms } = require(path.join(CLIENT_DIR, 'src/queries'));
const { digestRows, pgRows } = require(path.join(CLIENT_DIR, 'src/query-digest'));

const set = requireForms('events', 'mysql');
const data = set.dataOf({ seed: 3, events: 3000, repos: 300, actors: 600, skew: 1 });

test('every query of the events set has a MySQL form with its parameters bound as values', () => {
  assert.deepEqual(Object.keys(set.queries), ['olap-a', 'olap-b', 'olap-c', 'olap-d', 'olap-lookup']);
  for (const [name, def] of Object.entries(set.queries)) {
    const p = def.params(data, 0);
    const f = def.mysql(p, data);
    assert.equal(typeof f.sql, 'string', name);
    assert.equal((f.sql.match(/\?/g) || []).length, f.values.length, `${name}: one ? per value`);
    assert.ok(!f.sql.includes(String(p.repo || 'no repo param')), `${name}: no parameter pasted into the text`);
  }
});

test('the functional indexes hold textAt(path), and every form filters and groups on that same expression', () => {
  const ddl = set.indexes(data).map(indexDdl);
  assert.deepEqual(ddl, [
    "CREATE INDEX jsonbench_type ON jsonbench ((CAST(data->>'$.type' AS CHAR(255) CHARACTER SET utf8mb4) COLLATE utf8mb4_0900_bin))",
    "CREATE INDEX jsonbench_repo_name ON jsonbench ((CAST(data->>'$.repo.name' AS CHAR(255) CHARACTER SET utf8mb4) COLLATE utf8mb4_0900_bin))",
    "CREATE INDEX jsonbench_actor_login ON jsonbench ((CAST(data->>'$.actor.login' AS CHAR(255) CHARACTER SET utf8mb4) COLLATE utf8mb4_0900_bin))",
  ]);
  const uses = {
    'olap-a': ['type', 'repo.name'], 'olap-b': ['type'], 'olap-c': ['actor.login'], 'olap-d': ['type', 'repo.name'],
    'olap-lookup': ['repo.name', 'actor.login'],
  };
  for (const [name, paths] of Object.entries(uses)) {
    const f = set.queries[name].mysql(set.queries[name].params(data, 0), data);
    for (const p of paths) assert.ok(f.sql.includes(textAt(p)), `${name}: ${p} as the index's expression`);
    // no text compared or grouped as `->>` gives it (utf8mb4_bin, PAD SPACE) or cast another way
    assert.equal(f.sql.match(/->>'\$\.[a-z.]+' AS CHAR\(255\) CHARACTER SET utf8mb4\) COLLATE utf8mb4_0900_bin/g).length,
      f.sql.match(/->>/g).length - (f.sql.match(/AS DOUBLE/g) || []).length, `${name}: every text through textAt`);
  }
  assert.ok(set.queries['olap-lookup'].mysql({ repo: 'r', limit: 5 }).sql.includes(textAt('actor.login', 'e.data')));
});

test('what has no MySQL form is refused naming the field and what is allowed', () => {
  assert.throws(() => indexDdl({ name: 'x', fields: [{ path: 'payload.size', type: 'number' }] }),
    /^Error: index field payload.size: type "number" has no MySQL index form; allowed with mysql: text, time$/);
  assert.throws(() => indexDdl({ name: 'x', fields: [{ path: "a'); DROP TABLE x; --", type: 'text' }] }),
    /JSON path .* allowed: dotted identifiers/);
  assert.match(indexDdl({ name: 'jsonbench_t', fields: [{ path: 'created_at', type: 'time' }] }), /\(CAST\(data->>'\$\.created_at' AS CHAR/);
});

test('COUNT(*) (BIGINT text) and AVG over DECIMAL digest as PostgreSQL\'s int8 and numeric do', () => {
  // mysql2 with bigNumberStrings: BIGINT and DECIMAL as text; pg: int8 (20) and numeric (1700) as text
  const mysqlRows = typedRows([{ repo: 'a/b', n: '12', avg: '3.5000' }, { repo: 'c/d', n: '9007199254740993', avg: '2' }],
    [{ name: 'repo', columnType: 253 }, { name: 'n', columnType: 8 }, { name: 'avg', columnType: 246 }]);
  const pg = pgRows({
    rows: [{ repo: 'a/b', n: '12', avg: '3.5000000000000000' }, { repo: 'c/d', n: '9007199254740993', avg: '2.0000000000000000' }],
    fields: [{ name: 'repo', dataTypeID: 25 }, { name: 'n', dataTypeID: 20 }, { name: 'avg', dataTypeID: 1700 }],
  });
  const opts = { columns: ['repo', 'n', 'avg'], ordered: true };
  assert.equal(digestRows(mysqlRows, opts).digest, digestRows(pg, opts).digest);
  assert.equal(typeof mysqlRows[1].n, 'bigint', 'beyond 2^53: exact');
  // text left as text: a number-looking repository name stays a string
  assert.deepEqual(typedRows([{ repo: '12' }], [{ name: 'repo', columnType: 253 }]), [{ repo: '12' }]);
});
