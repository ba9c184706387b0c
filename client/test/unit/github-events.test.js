'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('crypto');
const path = require('path');
const { execFileSync } = require('child_process');
const g = require('../../src/datasets/github-events');

const OPTS = { seed: 3, count: 20000, repos: 10000, actors: 20000 };
const sha = (iter) => {
  const h = crypto.createHash('sha256');
  for (const e of iter) h.update(g.toJson(e)).update('\n');
  return h.digest('hex');
};

test('same seed, same bytes (also in another process); another seed, other bytes', () => {
  const o = { ...OPTS, count: 3000 };
  const a = sha(g.events(o));
  assert.equal(sha(g.events({ ...o })), a);
  assert.notEqual(sha(g.events({ ...o, seed: 4 })), a);
  const script = `const g = require(${JSON.stringify(path.resolve(__dirname, '../../src/datasets/github-events'))});
    const h = require('crypto').createHash('sha256');
    for (const e of g.events(${JSON.stringify(o)})) h.update(g.toJson(e)).update('\\n');
    process.stdout.write(h.digest('hex'));`;
  assert.equal(execFileSync(process.execPath, ['-e', script]).toString(), a);
});

test('event i is the same alone, in a range, or in the whole stream', () => {
  const all = [...g.events({ ...OPTS, count: 500 })].map(g.toJson);
  assert.equal(g.toJson(g.event({ ...OPTS, count: 500 }, 321)), all[321]);
  const parts = [...g.events({ ...OPTS, count: 500 }, { from: 100, to: 200 })].map(g.toJson);
  assert.deepEqual(parts, all.slice(100, 200));
});

test('GH Archive shape: keys in order, nested payload per type, ids and created_at increasing', () => {
  let prev = null;
  const seenTypes = new Set();
  for (const e of g.events({ ...OPTS, count: 5000 })) {
    const keys = Object.keys(e);
    assert.deepEqual(keys.slice(0, 7), ['id', 'type', 'actor', 'repo', 'payload', 'public', 'created_at']);
    assert.ok(keys.length === 7 || (keys.length === 8 && keys[7] === 'org'));
    assert.match(e.id, /^\d+$/);
    assert.match(e.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.deepEqual(Object.keys(e.actor), ['id', 'login', 'display_login', 'gravatar_id', 'url', 'avatar_url']);
    assert.ok(Number.isInteger(e.actor.id) && e.actor.id > 0 && Number.isInteger(e.repo.id) && e.repo.id > 0);
    assert.ok(e.repo.name.includes('/'));
    assert.ok(e.type in g.TYPE_WEIGHTS);
    seenTypes.add(e.type);
    if (e.type === 'PushEvent') {
      assert.ok(e.payload.size >= 1 && e.payload.commits.length === Math.min(e.payload.size, 20));
      assert.equal(e.payload.head, e.payload.commits.at(-1).sha);
      assert.match(e.payload.head, /^[0-9a-f]{40}$/);
    }
    if (e.type === 'IssuesEvent') assert.ok(['opened', 'closed', 'reopened'].includes(e.payload.action));
    if (e.type === 'WatchEvent') assert.deepEqual(e.payload, { action: 'started' });
    if (prev) {
      assert.equal(BigInt(e.id), BigInt(prev.id) + 1n);
      assert.ok(e.created_at >= prev.created_at);
    }
    prev = e;
  }
  assert.ok(seenTypes.size >= 13, `most types appear in 5000 events (${[...seenTypes]})`);
  assert.equal(prev.created_at < '2015-01-08T00:00:00Z', true, 'inside the 7-day span');
});

test('skew: type mix within 2% of the weights (PushEvent about half), Zipf repos and actors', () => {
  const types = {}; const repos = new Map(); const actors = new Map();
  const logins = new Map(); const repoIds = new Map();
  for (const e of g.events(OPTS)) {
    types[e.type] = (types[e.type] || 0) + 1;
    repos.set(e.repo.name, (repos.get(e.repo.name) || 0) + 1);
    actors.set(e.actor.login, (actors.get(e.actor.login) || 0) + 1);
    // a login / repo name always has the same id, and ids are unique
    if (logins.has(e.actor.login)) assert.equal(logins.get(e.actor.login), e.actor.id); else logins.set(e.actor.login, e.actor.id);
    if (repoIds.has(e.repo.name)) assert.equal(repoIds.get(e.repo.name), e.repo.id); else repoIds.set(e.repo.name, e.repo.id);
  }
  assert.equal(new Set(logins.values()).size, logins.size, 'actor ids unique');
  assert.equal(new Set(repoIds.values()).size, repoIds.size, 'repo ids unique');
  const total = Object.values(g.TYPE_WEIGHTS).reduce((a, b) => a + b, 0);
  for (const [type, w] of Object.entries(g.TYPE_WEIGHTS)) {
    const share = (types[type] || 0) / OPTS.count;
    assert.ok(Math.abs(share - w / total) < 0.02, `${type}: ${share} vs ${w / total}`);
  }
  const push = types.PushEvent / OPTS.count;
  assert.ok(push > 0.43 && push < 0.52, `PushEvent share ${push}`);
  assert.equal(Object.entries(types).sort((a, b) => b[1] - a[1])[0][0], 'PushEvent');
  // Zipf s=1 over n ranks: the top rank has 1/H_n of the events (H_10000 = 9.79 -> 10.2%).
  const harmonic = (n) => { let h = 0; for (let r = 1; r <= n; r++) h += 1 / r; return h; };
  const top = (m) => [...m.values()].sort((a, b) => b - a);
  const rTop = top(repos); const aTop = top(actors);
  const expectRepo1 = OPTS.count / harmonic(OPTS.repos);
  assert.ok(Math.abs(rTop[0] - expectRepo1) < 0.15 * expectRepo1, `top repo ${rTop[0]} vs ${expectRepo1}`);
  const expectActor1 = OPTS.count / harmonic(OPTS.actors);
  assert.ok(Math.abs(aTop[0] - expectActor1) < 0.15 * expectActor1, `top actor ${aTop[0]} vs ${expectActor1}`);
  // the top 1% of repos hold far more than 1% of the events (Zipf: ~H_100/H_10000 = 53%)
  const top1pct = rTop.slice(0, OPTS.repos / 100).reduce((a, b) => a + b, 0) / OPTS.count;
  assert.ok(top1pct > 0.45 && top1pct < 0.6, `top 1% of repos hold ${top1pct}`);
  // and uniform (skew 0) does not
  const flat = new Map();
  for (const e of g.events({ ...OPTS, count: 5000, repoSkew: 0 })) flat.set(e.repo.name, (flat.get(e.repo.name) || 0) + 1);
  assert.ok(top(flat)[0] < 6, `uniform repos: top repo has ${top(flat)[0]} of 5000`);
});

test('bad parameters: a clear error naming the parameter and the allowed values', () => {
  const bad = (o, re) => assert.throws(() => g.events(o).next(), re);
  bad({ count: 0 }, /count=0 .* must be an integer in 1\.\./);
  bad({ repos: 1.5 }, /repos=1.5/);
  bad({ repoSkew: -1 }, /repoSkew=-1 .* 0\.\.5/);
  bad({ start: 'soon' }, /start="soon" .* ISO 8601/);
  bad({ start: '2015-01-01T00:00:00.500Z' }, /whole second/);
  bad({ hosts: 3 }, /hosts=3 .*unknown parameter/);
  assert.throws(() => g.event({ count: 10 }, 10), /index=10 .* 0\.\.9/);
});
