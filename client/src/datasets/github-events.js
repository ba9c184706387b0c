'use strict';
// Seeded generator of GitHub-archive-like events (the shape of GH Archive's
// hourly files: id, type, actor, repo, payload, public, created_at, org?),
// for the analytical queries over event JSON (the OnGres study's shapes,
// JSONBench's kind of data). Realistic skew where the queries look:
// - type: GH Archive's mix, PushEvent about half of everything (weights in
//   TYPE_WEIGHTS, docs/datasets.md says where they come from);
// - repo and actor: Zipf over ranks (a few repos/actors hold most events);
// - payload: per type, nested, with arrays (PushEvent commits) and optional
//   keys (org, CreateEvent description), as the real events have.
// Event i is drawn from its own PRNG state (seed, stream, i), so it is the
// same whatever was generated before it, and a client can own any subset of
// indexes. created_at is non-decreasing in i. Key order is fixed by
// construction and every number is an integer, so JSON.stringify gives the
// same bytes every time (toJson).
const { Sfc32, mix32, hashString } = require('../prng');

// Daily counts of GH Archive on 2013-01-03 (published by coderstats.net,
// "GitHub in 2013: Event Types and Commits"), minus the types the Events
// API no longer emits (Follow, Gist, Download); ReleaseEvent (none in that
// day's counts) gets a small weight of our own.
const TYPE_WEIGHTS = Object.freeze({
  PushEvent: 78656,
  CreateEvent: 29179,
  WatchEvent: 15835,
  IssueCommentEvent: 13720,
  IssuesEvent: 8033,
  ForkEvent: 6490,
  PullRequestEvent: 5674,
  GollumEvent: 3117,
  CommitCommentEvent: 1744,
  PullRequestReviewCommentEvent: 1410,
  DeleteEvent: 1112,
  MemberEvent: 895,
  ReleaseEvent: 500,
  PublicEvent: 159,
});
const TYPES = Object.keys(TYPE_WEIGHTS);
const TYPE_CDF = (() => {
  let acc = 0;
  return TYPES.map((t) => (acc += TYPE_WEIGHTS[t]));
})();
const TYPE_TOTAL = TYPE_CDF[TYPE_CDF.length - 1];

const WORDS = ['fix', 'add', 'update', 'remove', 'refactor', 'test', 'docs', 'build', 'bump', 'merge',
  'parser', 'cache', 'index', 'query', 'client', 'server', 'config', 'readme', 'typo', 'error',
  'handler', 'release', 'version', 'support', 'api', 'model', 'view', 'router', 'schema', 'json',
  'memory', 'leak', 'crash', 'timeout', 'retry', 'logging', 'metrics', 'deps', 'lint', 'style',
  'feature', 'flag', 'option', 'default', 'path', 'file', 'stream', 'buffer', 'encoding', 'unicode',
  'date', 'time', 'zone', 'locale', 'cli', 'script', 'ci', 'workflow', 'docker', 'image',
  'plugin', 'theme', 'layout', 'page'];
const REPO_WORDS = ['dotfiles', 'api', 'web', 'app', 'core', 'utils', 'lib', 'site', 'blog', 'cli',
  'server', 'client', 'sdk', 'tools', 'docs', 'bot', 'engine', 'kit', 'ui', 'db'];
const NAME_SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'ti', 'vo', 'ze', 'da', 'fe', 'go', 'hu',
  'ja', 'ko', 'li', 'ma', 'no', 'pa', 're'];

const DEFAULTS = Object.freeze({
  seed: 1,
  count: 10000, // events
  start: '2015-01-01T00:00:00Z',
  spanSeconds: 7 * 86400, // created_at spread evenly over this span
  repos: 10000,
  actors: 20000,
  repoSkew: 1.0, // Zipf exponent: P(rank r) ~ 1 / r^s
  actorSkew: 1.0,
});

const EVENT_STREAM = hashString('github-events/event');
const BASE_EVENT_ID = 2489651045; // GH Archive's first event id of 2015; ids increase by one
const TWO_32 = 4294967296;
const TWO_53 = 9007199254740992;

function fail(key, value, allowed) {
  throw new Error(`github-events: ${key}=${JSON.stringify(value)} is not allowed; ${key} must be ${allowed}`);
}

function normaliseOptions(options = {}) {
  const known = Object.keys(DEFAULTS);
  for (const k of Object.keys(options)) if (!known.includes(k)) fail(k, options[k], `one of ${known.join(', ')} (unknown parameter)`);
  const o = { ...DEFAULTS, ...options };
  const int = (k, min, max = Number.MAX_SAFE_INTEGER) => {
    if (!Number.isSafeInteger(o[k]) || o[k] < min || o[k] > max) fail(k, o[k], `an integer in ${min}..${max}`);
  };
  int('seed', 0, 0xffffffff);
  int('count', 1);
  int('repos', 1, 10000000);
  int('actors', 1, 10000000);
  for (const k of ['repoSkew', 'actorSkew']) if (!(typeof o[k] === 'number' && o[k] >= 0 && o[k] <= 5)) fail(k, o[k], 'a number in 0..5 (0 = uniform)');
  const startMs = o.start instanceof Date ? o.start.getTime() : Date.parse(o.start);
  if (!Number.isFinite(startMs) || startMs % 1000 !== 0) fail('start', o.start, 'an ISO 8601 date-time on a whole second');
  if (!(Number.isSafeInteger(o.spanSeconds) && o.spanSeconds >= 1)) fail('spanSeconds', o.spanSeconds, 'an integer >= 1');
  return { ...o, startMs };
}

// Zipf CDF over ranks 1..n (weights 1/r^s; exactly 1/r for s = 1, no pow),
// built once per (n, s) and kept: n doubles.
const zipfTables = new Map();
function zipfTable(n, s) {
  const key = `${n}/${s}`;
  let t = zipfTables.get(key);
  if (!t) {
    t = new Float64Array(n);
    let acc = 0;
    for (let r = 1; r <= n; r++) {
      acc += s === 1 ? 1 / r : s === 0 ? 1 : Math.pow(r, -s);
      t[r - 1] = acc;
    }
    zipfTables.set(key, t);
  }
  return t;
}

const uniform53 = (rng) => ((rng.next() >>> 5) * 67108864 + (rng.next() >>> 6)) / TWO_53;
const below = (rng, n) => Math.floor((rng.next() * n) / TWO_32);

// 0-based rank: the first index whose cumulative weight exceeds u * total.
function zipfRank(rng, table) {
  const u = uniform53(rng) * table[table.length - 1];
  let lo = 0; let hi = table.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (table[mid] > u) hi = mid; else lo = mid + 1;
  }
  return lo;
}

function pickType(rng) {
  const u = below(rng, TYPE_TOTAL);
  let i = 0;
  while (TYPE_CDF[i] <= u) i++;
  return TYPES[i];
}

// Who an actor or repo of a given rank is: a pure function of (seed, rank),
// so rank 0 is the same login/repo in every event. Ids are a bijection of
// the rank (odd multiplier mod 2^32), unique and not in rank order.
function actorOf(seed, rank) {
  const id = Math.imul(rank + 1, 0x9e3779b1) >>> 0; // odd multiplier: a bijection of 1..2^32-1, never 0
  const h = mix32(seed ^ mix32(rank + 0x51ed27));
  const login = `${NAME_SYLLABLES[h % 20]}${NAME_SYLLABLES[(h >>> 8) % 20]}${NAME_SYLLABLES[(h >>> 16) % 20]}${rank.toString(36)}`;
  return { id, login };
}

function actorObject(a) {
  return {
    id: a.id, login: a.login, display_login: a.login, gravatar_id: '',
    url: `https://api.github.com/users/${a.login}`, avatar_url: `https://avatars.githubusercontent.com/u/${a.id}?`,
  };
}

function repoOf(o, rank) {
  const h = mix32(o.seed ^ mix32(rank + 0x2f6b1d));
  const owner = actorOf(o.seed, h % o.actors);
  const name = `${owner.login}/${REPO_WORDS[(h >>> 12) % REPO_WORDS.length]}-${rank.toString(36)}`;
  const id = Math.imul(rank + 1, 0x85ebca77) >>> 0;
  // About one repo in four belongs to an organisation (events then carry org).
  const org = (h >>> 28) < 4 ? { id: Math.imul(rank + 1, 0xc2b2ae3d) >>> 0, login: `org-${owner.login}` } : null;
  return { id, name, owner, org };
}

function hex40(rng) {
  let s = '';
  for (let i = 0; i < 5; i++) s += rng.next().toString(16).padStart(8, '0');
  return s;
}

function words(rng, min, max) {
  const n = min + below(rng, max - min + 1);
  const out = [];
  for (let i = 0; i < n; i++) out.push(WORDS[below(rng, WORDS.length)]);
  return out.join(' ');
}

function weighted(rng, pairs) {
  let total = 0;
  for (const [, w] of pairs) total += w;
  let u = below(rng, total);
  for (const [v, w] of pairs) { if (u < w) return v; u -= w; }
  return pairs[pairs.length - 1][0];
}

const userRef = (a) => ({ login: a.login, id: a.id });

// Per-type payloads; draw order inside each is part of the definition.
function payloadOf(type, rng, i, actor, repo, o) {
  switch (type) {
    case 'PushEvent': {
      let size = 1;
      while (size < 40 && rng.next() < TWO_32 / 2) size++; // 1 + geometric(1/2)
      const commits = [];
      for (let c = 0; c < Math.min(size, 20); c++) { // GH Archive lists at most 20 commits
        const sha = hex40(rng);
        commits.push({
          sha, author: { email: `${actor.login}@users.noreply.github.com`, name: actor.login },
          message: words(rng, 2, 12), distinct: true, url: `https://api.github.com/repos/${repo.name}/commits/${sha}`,
        });
      }
      return {
        push_id: 536863970 + i, size, distinct_size: size, ref: `refs/heads/${rng.next() < TWO_32 * 0.7 ? 'main' : WORDS[below(rng, WORDS.length)]}`,
        head: commits[commits.length - 1].sha, before: hex40(rng), commits,
      };
    }
    case 'CreateEvent': {
      const refType = weighted(rng, [['branch', 50], ['repository', 30], ['tag', 20]]);
      const ref = refType === 'repository' ? null : refType === 'tag' ? `v${below(rng, 5)}.${below(rng, 20)}.${below(rng, 10)}` : WORDS[below(rng, WORDS.length)];
      return { ref, ref_type: refType, master_branch: 'main', description: rng.next() < TWO_32 / 2 ? words(rng, 3, 10) : null, pusher_type: 'user' };
    }
    case 'WatchEvent':
      return { action: 'started' };
    case 'IssueCommentEvent':
    case 'IssuesEvent': {
      const action = type === 'IssuesEvent' ? weighted(rng, [['opened', 60], ['closed', 35], ['reopened', 5]]) : 'created';
      const number = 1 + below(rng, 500);
      const issue = {
        id: 100000000 + repo.id * 7 + number, number, title: words(rng, 3, 9),
        user: userRef(actorOf(o.seed, below(rng, o.actors))), state: action === 'closed' ? 'closed' : 'open', comments: below(rng, 30),
      };
      if (type === 'IssuesEvent') return { action, issue };
      return { action, issue, comment: { id: 70000000 + i, user: userRef(actor), body: words(rng, 5, 40) } };
    }
    case 'ForkEvent': {
      const short = repo.name.split('/')[1];
      return { forkee: { id: 30000000 + i, name: short, full_name: `${actor.login}/${short}`, owner: userRef(actor), fork: true, public: true } };
    }
    case 'PullRequestEvent': {
      const action = weighted(rng, [['opened', 50], ['closed', 45], ['reopened', 5]]);
      const number = 1 + below(rng, 300);
      const merged = action === 'closed' && rng.next() < TWO_32 * 0.7;
      return {
        action, number,
        pull_request: {
          id: 20000000 + i, number, state: action === 'closed' ? 'closed' : 'open', title: words(rng, 3, 9), user: userRef(actor),
          merged, commits: 1 + below(rng, 10), additions: below(rng, 2000), deletions: below(rng, 1000), changed_files: 1 + below(rng, 40),
        },
      };
    }
    case 'GollumEvent': {
      const pages = [];
      const n = 1 + below(rng, 3);
      for (let p = 0; p < n; p++) {
        const title = words(rng, 1, 3);
        pages.push({ page_name: title.replace(/ /g, '-'), title, action: rng.next() < TWO_32 / 3 ? 'created' : 'edited', sha: hex40(rng) });
      }
      return { pages };
    }
    case 'CommitCommentEvent':
      return { comment: { id: 9000000 + i, commit_id: hex40(rng), user: userRef(actor), body: words(rng, 3, 20) } };
    case 'PullRequestReviewCommentEvent': {
      const number = 1 + below(rng, 300);
      return {
        action: 'created',
        comment: { id: 22000000 + i, path: `src/${WORDS[below(rng, WORDS.length)]}.js`, user: userRef(actor), body: words(rng, 3, 25) },
        pull_request: { id: 20000000 + repo.id + number, number, title: words(rng, 3, 9) },
      };
    }
    case 'DeleteEvent':
      return { ref: WORDS[below(rng, WORDS.length)], ref_type: rng.next() < TWO_32 * 0.9 ? 'branch' : 'tag', pusher_type: 'user' };
    case 'MemberEvent':
      return { action: 'added', member: userRef(actorOf(o.seed, below(rng, o.actors))) };
    case 'ReleaseEvent': {
      const tag = `v${below(rng, 5)}.${below(rng, 20)}.${below(rng, 10)}`;
      return { action: 'published', release: { id: 800000 + i, tag_name: tag, name: tag, draft: false, prerelease: rng.next() < TWO_32 / 10 } };
    }
    case 'PublicEvent':
      return {};
    default:
      throw new Error(`github-events: no payload for ${type}`);
  }
}

// created_at of event i: start + floor(i * span / count) seconds, GH
// Archive's text form (whole seconds, "Z").
function createdAt(o, i) {
  const s = Math.floor((i * o.spanSeconds) / o.count);
  return new Date(o.startMs + s * 1000).toISOString().replace('.000Z', 'Z');
}

// Event i (0 <= i < count) of the data set `o` (normalised options).
function eventAt(o, i, rng = new Sfc32(0, 0, 0, 0)) {
  rng.reseed(o.seed, EVENT_STREAM, i >>> 0);
  const type = pickType(rng);
  const actor = actorOf(o.seed, zipfRank(rng, zipfTable(o.actors, o.actorSkew)));
  const repo = repoOf(o, zipfRank(rng, zipfTable(o.repos, o.repoSkew)));
  const ev = {
    id: String(BASE_EVENT_ID + i),
    type,
    actor: actorObject(actor),
    repo: { id: repo.id, name: repo.name, url: `https://api.github.com/repos/${repo.name}` },
    payload: payloadOf(type, rng, i, actor, repo, o),
    public: true,
    created_at: createdAt(o, i),
  };
  if (repo.org) {
    ev.org = {
      id: repo.org.id, login: repo.org.login, gravatar_id: '',
      url: `https://api.github.com/orgs/${repo.org.login}`, avatar_url: `https://avatars.githubusercontent.com/u/${repo.org.id}?`,
    };
  }
  return ev;
}

// Events from..to-1 (default all), in order; O(1) memory per event (plus
// the Zipf tables, n doubles each, built once).
function* events(options, { from = 0, to = null } = {}) {
  const o = normaliseOptions(options);
  const end = to === null ? o.count : Math.min(to, o.count);
  const rng = new Sfc32(0, 0, 0, 0);
  for (let i = from; i < end; i++) yield eventAt(o, i, rng);
}

function event(options, i) {
  const o = normaliseOptions(options);
  if (!Number.isSafeInteger(i) || i < 0 || i >= o.count) fail('index', i, `an integer in 0..${o.count - 1}`);
  return eventAt(o, i);
}

const toJson = (ev) => JSON.stringify(ev);

module.exports = { events, event, toJson, normaliseOptions, TYPE_WEIGHTS, TYPES, DEFAULTS, actorOf };
