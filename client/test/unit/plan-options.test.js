'use strict';
// `node client <command> --plan FILE --phase ID --client I`: a client container reads its phase and
// settings from the run's plan.json. Each command must parse exactly the options it parsed when the
// lab exported the bench keys (lab/stack.sh client_env_args before plan.json was the only plan):
// same operations, rates, seeds, documents, queries; only RESULT's path is the plan's folder's.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');
const { validateBenchText } = require('../../src/bench-schema');
const { planDocument } = require('../../src/commands/plan');
const { parseOptions, COMMANDS } = require('../../src/options');
const { takePlanFlags, planEnvironment } = require('../../src/plan-options');
const { groupOfClient } = require('../../src/groups');

const ROOT = path.resolve(__dirname, '../../..');
const CLI = path.join(ROOT, 'client', 'src', 'cli.js');
const shipped = fs.readdirSync(ROOT).filter((d) => fs.existsSync(path.join(ROOT, d, 'bench.env'))).sort();
const URIS = {
  mongodb: 'mongodb://u:p@mongodb:27017/jsonbench', postgres: 'postgres://u:p@postgres:5432/jsonbench',
  mysql: 'mysql://u:p@mysql:3306/jsonbench', timescaledb: 'postgres://u:p@timescaledb:5432/jsonbench',
};

// A bench folder in a temporary directory holding bench.env and its plan.json; every one removed
// when the file's tests end.
const temporary = [];
test.after(() => { for (const d of temporary) fs.rmSync(d, { recursive: true, force: true }); });
function benchWithPlan(name) {
  const top = fs.mkdtempSync(path.join(os.tmpdir(), 'plan-options-'));
  temporary.push(top);
  const dir = path.join(top, name);
  fs.mkdirSync(dir);
  fs.copyFileSync(path.join(ROOT, name, 'bench.env'), path.join(dir, 'bench.env'));
  const file = path.join(dir, 'bench.env');
  const doc = planDocument(validateBenchText(fs.readFileSync(file, 'utf8'), file), file);
  fs.writeFileSync(path.join(dir, 'plan.json'), JSON.stringify(doc));
  return { dir, doc, plan: path.join(dir, 'plan.json') };
}

// What a `run` client container got before: every bench key but DATASET, the phase's STAGE (and
// QUERY), its CLIENT_ID, RESULT, BENCH, metrics port and linger, the URI.
function oldEnvironment(doc, phase, i, bench) {
  const env = { ...doc.settings.environment };
  delete env.DATASET;
  Object.assign(env, { STAGE: phase.stage, CLIENT_ID: String(i), RESULT: `/results/${phase.id}-client-${i}.json`,
    METRICS_PORT: '9464', METRICS_LINGER_S: phase.stage === 'query' ? '8' : '3', BENCH: bench, URI: URIS[phase.database] });
  if (phase.query) env.QUERY = phase.query;
  // a client of a group (GROUPS) got its group's MIX, RATE and OPS, and its group's name
  const group = groupOfClient(phase.groups, i);
  if (group) Object.assign(env, { GROUP: group.name, MIX: group.mix, RATE: String(group.rate), OPS: String(group.ops) });
  return env;
}

test('every shipped bench: each phase\'s every client parses from the plan what it parsed from the exported keys', () => {
  let compared = 0;
  for (const name of shipped) {
    const { doc, plan, dir } = benchWithPlan(name);
    assert.equal(doc.bench, name);
    for (const phase of doc.phases) {
      for (let i = 1; i <= phase.clients; i++) {
        const before = parseOptions('run', [], oldEnvironment(doc, phase, i, name));
        const after = parseOptions('run', [], planEnvironment(
          { plan, phase: phase.id, client: String(i) }, { URI: URIS[phase.database], METRICS_PORT: '9464' },
        ));
        assert.equal(after.result, path.join(dir, 'clients', `${phase.id}-client-${i}.json`));
        delete before.result; delete after.result;
        assert.deepEqual(after, before, `${name} ${phase.id} client ${i}`);
        compared++;
      }
      // the one-shots of the phase (count, settle, explain, server-stats) parse as they did
      for (const command of ['count', 'settle', 'server-stats', ...(phase.query ? ['explain'] : [])]) {
        const env = { ...doc.settings.environment, URI: URIS[phase.database], ...(phase.query ? { QUERY: phase.query } : {}) };
        delete env.DATASET;
        assert.deepEqual(parseOptions(command, [], planEnvironment({ plan, phase: phase.id }, { URI: URIS[phase.database] })),
          parseOptions(command, [], env), `${name} ${phase.id} ${command}`);
      }
    }
    const init = { ...doc.settings.environment, URI: URIS[doc.phases[0].database] };
    delete init.DATASET;
    assert.deepEqual(parseOptions('init', [], planEnvironment({ plan }, { URI: init.URI })), parseOptions('init', [], init), `${name} init`);
  }
  assert.ok(compared > shipped.length, `${compared} clients compared`);
});

test('the container keeps its URI and the data set\'s mount; the plan\'s host path of DATASET is not used', () => {
  const { plan } = benchWithPlan('bench1');
  const doc = JSON.parse(fs.readFileSync(plan, 'utf8'));
  doc.settings.environment.DATASET = '/host/data/events.json.gz';
  fs.writeFileSync(plan, JSON.stringify(doc));
  const env = planEnvironment({ plan }, { URI: 'mongodb://x', DATASET: '/dataset/events.json.gz', CLIENTS: '99' });
  assert.equal(env.URI, 'mongodb://x');
  assert.equal(env.DATASET, '/dataset/events.json.gz');
  assert.equal(env.CLIENTS, doc.settings.environment.CLIENTS, 'a bench key comes from the plan, never the environment');
  assert.equal(planEnvironment({ plan }, {}).DATASET, undefined);
});

test('bad --plan, --phase, --client: an error naming the file, the flag and what is allowed', () => {
  const { plan, doc } = benchWithPlan('bench1');
  assert.throws(() => planEnvironment({ plan, phase: 'nope' }), new RegExp(`--phase "nope": not a phase of ${plan}; allowed: ${doc.phases.map((p) => p.id).join(', ')}`));
  assert.throws(() => planEnvironment({ plan, phase: doc.phases[0].id, client: '0' }), /--client "0": .* allowed: 1 to/);
  assert.throws(() => planEnvironment({ plan, phase: doc.phases[0].id, client: String(doc.phases[0].clients + 1) }), /allowed: 1 to/);
  assert.throws(() => planEnvironment({ plan, client: '1' }), /--client needs --phase/);
  assert.throws(() => planEnvironment({ phase: 'x' }), /need --plan FILE/);
  assert.throws(() => planEnvironment({ plan: '/nonexistent/plan.json' }), /--plan \/nonexistent\/plan.json: cannot read the plan: ENOENT/);
  const bad = path.join(path.dirname(plan), 'bad.json');
  fs.writeFileSync(bad, '{"phases": []}');
  assert.throws(() => planEnvironment({ plan: bad }), /not a plan/);
  assert.deepEqual(takePlanFlags(['--plan=a', '--phase', 'b', '--client', '2', '--seed', '3']),
    { flags: { plan: 'a', phase: 'b', client: '2' }, rest: ['--seed', '3'] });
  assert.ok(COMMANDS.run.includes('SEED'));
});

test('the CLI takes --plan: a bad phase exits 2 with the plan\'s phases named', () => {
  const { plan } = benchWithPlan('bench1');
  let err;
  try {
    execFileSync(process.execPath, [CLI, 'run', '--plan', plan, '--phase', 'nope', '--client', '1'],
      { env: { PATH: process.env.PATH, URI: 'mongodb://127.0.0.1:1/x' }, stdio: 'pipe' });
  } catch (e) { err = e; }
  assert.equal(err.status, 2);
  assert.match(err.stderr.toString(), /error: --phase "nope": not a phase of .*plan.json; allowed: mongodb, postgres/);
});
