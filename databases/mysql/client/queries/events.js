'use strict';
// MySQL's forms of the events query set (the OnGres queries A-D and the lookup; their names,
// parameters and digests: client/src/queries/github-events-queries.js), in SQL over the JSON column
// `data`. Every text it filters, groups or sorts on is textAt(path) (mysql-schema.js): the
// expression the set's functional indexes hold, in byte order without padding (utf8mb4_0900_bin),
// as MongoDB's simple collation and PostgreSQL's COLLATE "C". Numbers: numberAt (a DOUBLE; why
// there). Sent as text-protocol statements, parameters inlined by the driver (mysql-queries.js).
const { TABLE, textAt, numberAt } = require('../mysql-schema');

const type = textAt('type');
const repo = textAt('repo.name');
const actor = textAt('actor.login');

const forms = {
  'olap-a': (p) => ({
    sql: `SELECT ${repo} AS repo, COUNT(*) AS n FROM ${TABLE}
      WHERE ${type} = ? AND ${textAt('payload.action')} = ?
      GROUP BY repo ORDER BY n DESC, repo LIMIT ?`,
    values: [p.type, p.action, p.limit],
  }),
  'olap-b': () => ({
    sql: `SELECT ${type} AS type, COUNT(*) AS n FROM ${TABLE} GROUP BY type ORDER BY n DESC, type`,
    values: [],
  }),
  'olap-c': (p) => ({
    sql: `SELECT ${actor} AS actor, COUNT(*) AS n FROM ${TABLE} GROUP BY actor ORDER BY n DESC, actor LIMIT ?`,
    values: [p.limit],
  }),
  'olap-d': (p) => ({
    sql: `SELECT ${repo} AS repo, AVG(${numberAt('payload.issue.comments')}) AS avg_comments FROM ${TABLE}
      WHERE ${type} = ? AND ${numberAt('payload.issue.comments')} > ?
      GROUP BY repo ORDER BY avg_comments DESC, repo LIMIT ?`,
    values: [p.type, p.min_comments, p.limit],
  }),
  // The actor's events over all repositories: a correlated subquery per actor, on the actor.login
  // index (as PostgreSQL's form and MongoDB's $lookup on it).
  'olap-lookup': (p) => ({
    sql: `SELECT a.actor, a.in_repo,
        (SELECT COUNT(*) FROM ${TABLE} e WHERE ${textAt('actor.login', 'e.data')} = a.actor) AS total
      FROM (SELECT ${actor} AS actor, COUNT(*) AS in_repo FROM ${TABLE}
            WHERE ${repo} = ? GROUP BY actor ORDER BY in_repo DESC, actor LIMIT ?) a
      ORDER BY a.in_repo DESC, a.actor`,
    values: [p.repo, p.limit],
  }),
};

module.exports = { forms };
