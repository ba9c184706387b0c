'use strict';
// The OnGres analytical queries (A-D) over GitHub-archive events, and a join-like lookup, as a query
// set (docs/contracts.md "Query sets"; definitions in docs/datasets.md "The OnGres query set").
// Each query has the MongoDB form real MongoDB runs and a PostgreSQL form over the jsonb column
// `data`; both return the same columns under the same names, so one digest definition serves both.
// A group's key comes back as MongoDB's _id: the digest reads it from there (digest.mongodbPaths)
// rather than renaming it with $project (one stage less for the server to run).
// Text sorts are byte order on both sides: MongoDB's simple collation, PostgreSQL's COLLATE "C"
// (the database's default collation could order '-' and '/' differently): the grouped text
// column is declared COLLATE "C", so ORDER BY on it is byte order.
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

const top = (n) => [{ $sort: { n: -1, _id: 1 } }, { $limit: n }];

const queries = {
  'olap-a': {
    about: 'OnGres A: the 10 repositories with the most opened issues (IssuesEvent, payload.action "opened")',
    params: () => ({ type: 'IssuesEvent', action: 'opened', limit: 10 }),
    mongodb: (p) => ({
      aggregate: [
        { $match: { type: p.type, 'payload.action': p.action } },
        { $group: { _id: '$repo.name', n: { $sum: 1 } } },
        ...top(p.limit),
      ],
    }),
    postgres: (p) => ({
      text: `select data #>> '{repo,name}' collate "C" as repo, count(*) as n from jsonbench
        where data #>> '{type}' = $1 and data #>> '{payload,action}' = $2
        group by 1 order by n desc, repo limit $3`,
      values: [p.type, p.action, p.limit],
    }),
    digest: { columns: ['repo', 'n'], ordered: true, mongodbPaths: { repo: '_id' } },
  },
  'olap-b': {
    about: 'OnGres B: event types by number of events',
    params: () => ({}),
    mongodb: () => ({
      aggregate: [
        { $group: { _id: '$type', n: { $sum: 1 } } },
        { $sort: { n: -1, _id: 1 } },
      ],
    }),
    postgres: () => ({
      text: `select data #>> '{type}' collate "C" as type, count(*) as n from jsonbench group by 1 order by n desc, type`,
      values: [],
    }),
    digest: { columns: ['type', 'n'], ordered: true, mongodbPaths: { type: '_id' } },
  },
  'olap-c': {
    about: 'OnGres C: the 10 most active actors (events per actor.login)',
    params: () => ({ limit: 10 }),
    mongodb: (p) => ({
      aggregate: [
        { $group: { _id: '$actor.login', n: { $sum: 1 } } },
        ...top(p.limit),
      ],
    }),
    postgres: (p) => ({
      text: `select data #>> '{actor,login}' collate "C" as actor, count(*) as n from jsonbench
        group by 1 order by n desc, actor limit $1`,
      values: [p.limit],
    }),
    digest: { columns: ['actor', 'n'], ordered: true, mongodbPaths: { actor: '_id' } },
  },
  'olap-d': {
    about: 'OnGres D: for one comment-carrying event type, the 10 repositories with the highest average payload.issue.comments '
      + 'among its events with more than two comments',
    params: (data, k) => ({ type: COMMENT_TYPES[k % COMMENT_TYPES.length], min_comments: 2, limit: 10 }),
    mongodb: (p) => ({
      aggregate: [
        { $match: { type: p.type, 'payload.issue.comments': { $gt: p.min_comments } } },
        { $group: { _id: '$repo.name', avg_comments: { $avg: '$payload.issue.comments' } } },
        { $sort: { avg_comments: -1, _id: 1 } },
        { $limit: p.limit },
      ],
    }),
    postgres: (p) => ({
      text: `select data #>> '{repo,name}' collate "C" as repo, avg((data #>> '{payload,issue,comments}')::numeric) as avg_comments
        from jsonbench
        where data #>> '{type}' = $1 and (data #>> '{payload,issue,comments}')::numeric > $2
        group by 1 order by avg_comments desc, repo limit $3`,
      values: [p.type, p.min_comments, p.limit],
    }),
    digest: { columns: ['repo', 'avg_comments'], ordered: true, mongodbPaths: { repo: '_id' } },
  },
  'olap-lookup': {
    about: "join-like lookup: for one repository, its 5 most active actors and each actor's events over all repositories",
    params: (data, k) => ({ repo: lookupRepo(data, k), limit: 5 }),
    mongodb: (p) => ({
      aggregate: [
        { $match: { 'repo.name': p.repo } },
        { $group: { _id: '$actor.login', in_repo: { $sum: 1 } } },
        { $sort: { in_repo: -1, _id: 1 } },
        { $limit: p.limit },
        // MongoDB 5.0+: localField/foreignField with a pipeline (uses the actor.login index).
        { $lookup: { from: 'jsonbench', localField: '_id', foreignField: 'actor.login', pipeline: [{ $count: 'n' }], as: 'all' } },
        { $project: { _id: 0, actor: '$_id', in_repo: 1, total: { $ifNull: [{ $arrayElemAt: ['$all.n', 0] }, 0] } } },
      ],
    }),
    postgres: (p) => ({
      text: `select a.actor, a.in_repo,
          (select count(*) from jsonbench e where e.data #>> '{actor,login}' = a.actor) as total
        from (select data #>> '{actor,login}' collate "C" as actor, count(*) as in_repo from jsonbench
              where data #>> '{repo,name}' = $1 group by 1 order by in_repo desc, actor limit $2) a
        order by a.in_repo desc, a.actor`,
      values: [p.repo, p.limit],
    }),
    digest: { columns: ['actor', 'in_repo', 'total'], ordered: true },
  },
};

module.exports = { dataOf, indexes, queries, lookupRepo, COMMENT_TYPES };
