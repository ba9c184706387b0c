'use strict';
// The OnGres analytical queries (A-D) over GitHub-archive events, and a join-like lookup, as a query
// set (docs/contracts.md "Query sets"; definitions in docs/datasets.md "The OnGres query set").
// This file holds each query's name, parameters and digest; each database's form of it is in the
// database's folder (databases/<name>/client/queries/events.js, joined by ./index.js). Every form
// returns the same columns under the same names, so one digest definition serves them all.
// A form may return a column under another path (a group key in _id): its folder's forms file says
// where (`paths`, joined into the digest by ./index.js), so the digest stays one definition.
// Text sorts are byte order on every side: MongoDB's simple collation, PostgreSQL's COLLATE "C".
// dataOf takes the client's parsed options (camelCase: seed, events, repos, actors, skew, dataset).
const gh = require('../datasets/github-events');
const { Sfc32, hashString } = require('../prng');

// Where every path the queries filter or group on lives; PostgreSQL indexes the same text
// expression (data #>> '{a,b}') the queries use.
const INDEXES = [
  { name: 'jsonbench_type', fields: [{ path: 'type', type: 'text' }] },
  { name: 'jsonbench_repo_name', fields: [{ path: 'repo.name', type: 'text' }] },
  { name: 'jsonbench_actor_login', fields: [{ path: 'actor.login', type: 'text' }] },
];

// The generator's options for this bench (docs/datasets.md: created_at over the generator's
// default span from its default start). A DATASET bench has none: its parameters cannot be drawn
// from the generator (olap-lookup says so).
function dataOf(o) {
  if (o.dataset) return { dataset: o.dataset, seed: o.seed >>> 0 };
  return {
    seed: o.seed >>> 0,
    generator: { seed: o.seed >>> 0, count: o.events, repos: o.repos, actors: o.actors, repoSkew: o.skew, actorSkew: o.skew },
  };
}

const indexes = () => INDEXES.map((i) => ({ name: i.name, fields: i.fields.map((f) => ({ ...f })) }));

const PARAM_STREAM = hashString('github-events-queries/params');
const COMMENT_TYPES = ['IssueCommentEvent', 'IssuesEvent']; // the types whose payload.issue has `comments`

// A repository for execution k of olap-lookup: the repository of a seeded event index, so popular
// repositories (Zipf) are chosen the way events hit them. The same on both databases.
function lookupRepo(data, k) {
  if (!data.generator) {
    throw new Error('olap-lookup: its repository parameter is drawn from the generated events; with DATASET it has none '
      + '(allowed with DATASET: QUERIES without olap-lookup)');
  }
  const rng = new Sfc32(0, 0, 0, 0);
  rng.reseed(data.seed, PARAM_STREAM, k >>> 0);
  const i = Math.floor((rng.next() * data.generator.count) / 4294967296);
  return gh.event(data.generator, i).repo.name;
}

const queries = {
  'olap-a': {
    about: 'OnGres A: the 10 repositories with the most opened issues (IssuesEvent, payload.action "opened")',
    params: () => ({ type: 'IssuesEvent', action: 'opened', limit: 10 }),
    digest: { columns: ['repo', 'n'], ordered: true },
  },
  'olap-b': {
    about: 'OnGres B: event types by number of events',
    params: () => ({}),
    digest: { columns: ['type', 'n'], ordered: true },
  },
  'olap-c': {
    about: 'OnGres C: the 10 most active actors (events per actor.login)',
    params: () => ({ limit: 10 }),
    digest: { columns: ['actor', 'n'], ordered: true },
  },
  'olap-d': {
    about: 'OnGres D: for one comment-carrying event type, the 10 repositories with the highest average payload.issue.comments '
      + 'among its events with more than two comments',
    params: (data, k) => ({ type: COMMENT_TYPES[k % COMMENT_TYPES.length], min_comments: 2, limit: 10 }),
    digest: { columns: ['repo', 'avg_comments'], ordered: true },
  },
  'olap-lookup': {
    about: "join-like lookup: for one repository, its 5 most active actors and each actor's events over all repositories",
    params: (data, k) => ({ repo: lookupRepo(data, k), limit: 5 }),
    digest: { columns: ['actor', 'in_repo', 'total'], ordered: true },
  },
};

module.exports = { dataOf, indexes, queries, lookupRepo, COMMENT_TYPES };
