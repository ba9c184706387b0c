'use strict';
// MongoDB's forms of the events query set (the OnGres queries A-D and the lookup; their names,
// parameters and digests: client/src/queries/github-events-queries.js): the aggregation pipelines
// real MongoDB runs. A group's key comes back as _id (`paths`: the digest reads it there rather than
// renaming it with $project, one stage less for the server to run).

// Most first, ties by key in byte order (MongoDB's simple collation), the first n.
const top = (n) => [{ $sort: { n: -1, _id: 1 } }, { $limit: n }];

const forms = {
  'olap-a': (p) => ({
    aggregate: [
      { $match: { type: p.type, 'payload.action': p.action } },
      { $group: { _id: '$repo.name', n: { $sum: 1 } } },
      ...top(p.limit),
    ],
  }),
  'olap-b': () => ({
    aggregate: [
      { $group: { _id: '$type', n: { $sum: 1 } } },
      { $sort: { n: -1, _id: 1 } },
    ],
  }),
  'olap-c': (p) => ({
    aggregate: [
      { $group: { _id: '$actor.login', n: { $sum: 1 } } },
      ...top(p.limit),
    ],
  }),
  'olap-d': (p) => ({
    aggregate: [
      { $match: { type: p.type, 'payload.issue.comments': { $gt: p.min_comments } } },
      { $group: { _id: '$repo.name', avg_comments: { $avg: '$payload.issue.comments' } } },
      { $sort: { avg_comments: -1, _id: 1 } },
      { $limit: p.limit },
    ],
  }),
  'olap-lookup': (p) => ({
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
};

// Where a form's answer holds a column of the set's digest other than under its name (client/src/queries/index.js).
const paths = {
  'olap-a': { repo: '_id' },
  'olap-b': { type: '_id' },
  'olap-c': { actor: '_id' },
  'olap-d': { repo: '_id' },
};

module.exports = { forms, paths };
