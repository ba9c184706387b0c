'use strict';
// client/src/databases.js: the client's databases are the folders under databases/ holding a
// manifest; a new folder is a new database without a line of client/ changed.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { manifests, labNames, uriSchemes, bindingOf, commands, ROOT } = require('../../src/databases');
const { COMMANDS, parseOptions } = require('../../src/options');
const { DATABASES } = require('../../src/bench-schema');
const { createTarget } = require('../../src/targets');
const { PostgresTarget } = require('../../../databases/postgres/client/postgres');
const { MongoTarget } = require('../../../databases/mongodb/client/mongodb');

// A databases/ of our own: copies of the shipped manifests, and one more database `nulldb`.
function rootWith(extra) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'jsonbench-databases-'));
  for (const name of Object.keys(manifests())) {
    fs.mkdirSync(path.join(root, name));
    fs.copyFileSync(path.join(ROOT, name, 'database.json'), path.join(root, name, 'database.json'));
  }
  fs.mkdirSync(path.join(root, 'nulldb', 'client'), { recursive: true });
  fs.writeFileSync(path.join(root, 'nulldb', 'database.json'), JSON.stringify({ name: 'nulldb', uri_schemes: ['nulldb'], ...extra }));
  return root;
}

test('the shipped databases: the lab runs mongodb, mysql, postgres and timescaledb', () => {
  assert.deepEqual(DATABASES, ['mongodb', 'mysql', 'postgres', 'timescaledb']);
  assert.deepEqual(labNames(), ['mongodb', 'mysql', 'postgres', 'timescaledb']);
  assert.ok(!manifests().mysql.not_in_lab && !manifests().timescaledb.not_in_lab);
  assert.deepEqual(uriSchemes(), { 'mongodb:': 'mongodb', 'mysql:': 'mysql', 'postgres:': 'postgres', 'postgresql:': 'postgres',
    'timescaledb:': 'timescaledb' });
  assert.ok(createTarget('postgres', 'postgres://u@127.0.0.1:1/db') instanceof PostgresTarget);
  assert.ok(createTarget('mongodb', 'mongodb://127.0.0.1:1/db') instanceof MongoTarget);
  assert.equal(bindingOf('mysql').name, 'MysqlTarget');
  assert.equal(bindingOf('timescaledb').name, 'TimescaledbTarget');
});

test('a new folder is a new database: its manifest, its scheme and its binding', (t) => {
  const root = rootWith({});
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  fs.writeFileSync(path.join(root, 'nulldb', 'client', 'nulldb.js'), 'class NullTarget {}\nmodule.exports = { NullTarget };\n');
  assert.deepEqual(labNames(root), ['mongodb', 'mysql', 'nulldb', 'postgres', 'timescaledb']);
  assert.equal(uriSchemes(root)['nulldb:'], 'nulldb');
  assert.equal(bindingOf('nulldb', root).name, 'NullTarget');
});

test('a scheme two databases claim, a binding without its target class and an unknown database are refused, naming the file', (t) => {
  const root = rootWith({ uri_schemes: ['postgresql'] });
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  assert.throws(() => uriSchemes(root), (e) => e.message.startsWith(path.join(root, 'postgres', 'database.json'))
    && /"postgresql" is already nulldb's/.test(e.message));
  fs.writeFileSync(path.join(root, 'nulldb', 'client', 'nulldb.js'), 'module.exports = { helper() {} };\n');
  assert.throws(() => bindingOf('nulldb', root), /nulldb\.js: exports no class whose name ends in "Target"/);
  assert.throws(() => bindingOf('redis', root), /database "redis" has no manifest .*known: mongodb, mysql, nulldb, postgres/);
});

test("a database's own client commands come from its folder: MongoDB's replset-initiate, PostgreSQL's PgBouncer admin", () => {
  const found = commands();
  assert.deepEqual(Object.keys(found), ['replset-initiate', 'pool-close', 'pool-ready']);
  assert.deepEqual([found['pool-close'].database, found['pool-ready'].database], ['postgres', 'postgres']);
  assert.deepEqual([COMMANDS['pool-ready'], COMMANDS['pool-close']], [['URI', 'READY_TIMEOUT_S'], ['URI', 'POOL_DB']]);
  assert.equal(parseOptions('pool-close', [], { URI: 'postgres://u:p@pgbouncer:6432/pgbouncer', POOL_DB: 'd' }).poolDb, 'd');
  assert.equal(found['replset-initiate'].database, 'mongodb');
  assert.equal(found['replset-initiate'].file, path.join(ROOT, 'mongodb', 'client', 'commands', 'replset-initiate.js'));
  // options.js takes its keys from there: node client replset-initiate --uri ... --ready-timeout-s ...
  assert.deepEqual(COMMANDS['replset-initiate'], ['URI', 'READY_TIMEOUT_S']);
  assert.equal(parseOptions('replset-initiate', ['--ready-timeout-s', '7'], { URI: 'mongodb://u:p@mongodb:27017/' }).readyTimeoutS, 7);
});

test("a database's command is refused, naming its file, without {command, keys, run} or with a name already taken", (t) => {
  const root = rootWith({});
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  const dir = path.join(root, 'nulldb', 'client', 'commands');
  fs.mkdirSync(dir);
  const file = path.join(dir, 'ping.js');
  fs.writeFileSync(file, "module.exports = { command: 'ping', keys: ['URI'], run: async () => 0 };\n");
  assert.deepEqual(Object.keys(commands(root)), ['ping']);
  assert.equal(commands(root).ping.database, 'nulldb');
  assert.throws(() => commands(root, ['ping']), (e) => e.message.startsWith(file) && /"ping" is already the client's own/.test(e.message));
  fs.writeFileSync(path.join(dir, 'pong.js'), "module.exports = { command: 'ping', keys: [], run: async () => 0 };\n");
  assert.throws(() => commands(root), (e) => e.message.startsWith(path.join(dir, 'pong.js')) && e.message.includes(`is already ${file}`));
  fs.rmSync(path.join(dir, 'pong.js'));  // (a file once required stays in require's cache: a new name)
  fs.writeFileSync(path.join(dir, 'helper.js'), 'module.exports = { helper() {} };\n');
  assert.throws(() => commands(root), /helper\.js: exports no \{command, keys, run\}/);
});

test('a manifest whose name is not its folder\'s is refused, naming the file and the key', (t) => {
  const root = rootWith({ name: 'other' });
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  assert.throws(() => manifests(root), /nulldb[/\\]database\.json: key 'name' is "other" \(allowed: "nulldb"/);
});

test("each database's forms of a query set come from its folder, one for every query the set names", () => {
  const { querySet, queryNames } = require('../../src/queries');
  for (const workload of ['tsbs', 'events']) {
    for (const db of ['mongodb', 'postgres']) {
      const { forms } = require(`../../../databases/${db}/client/queries/${workload}`);
      assert.deepEqual(Object.keys(forms).sort(), queryNames(workload).sort(), `${db} ${workload}`);
      const set = querySet(workload);
      for (const name of queryNames(workload)) assert.equal(set.queries[name][db], forms[name]);
    }
    // the set module itself holds no database's form
    const bare = require(`../../src/queries/${workload === 'tsbs' ? 'tsbs-devops-queries' : 'github-events-queries'}`);
    for (const def of Object.values(bare.queries)) assert.deepEqual(Object.keys(def).sort(), ['about', 'digest', 'params']);
  }
});
