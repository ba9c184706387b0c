'use strict';
// PostgreSQL's forms of the events query set (the OnGres queries A-D and the lookup; their names,
// parameters and digests: client/src/queries/github-events-queries.js), in SQL over the jsonb column
// `data`. Text sorts are byte order, as MongoDB's simple collation: PostgreSQL's COLLATE "C" (the
// database's default collation could order '-' and '/' differently): the grouped text column is
// declared COLLATE "C", so ORDER BY on it is byte order.

const forms = {
  'olap-a': (p) => ({
    text: `select data #>> '{repo,name}' collate "C" as repo, count(*) as n from jsonbench
      where data #>> '{type}' = $1 and data #>> '{payload,action}' = $2
      group by 1 order by n desc, repo limit $3`,
    values: [p.type, p.action, p.limit],
  }),
  'olap-b': () => ({
    text: `select data #>> '{type}' collate "C" as type, count(*) as n from jsonbench group by 1 order by n desc, type`,
    values: [],
  }),
  'olap-c': (p) => ({
    text: `select data #>> '{actor,login}' collate "C" as actor, count(*) as n from jsonbench
      group by 1 order by n desc, actor limit $1`,
    values: [p.limit],
  }),
  'olap-d': (p) => ({
    text: `select data #>> '{repo,name}' collate "C" as repo, avg((data #>> '{payload,issue,comments}')::numeric) as avg_comments
      from jsonbench
      where data #>> '{type}' = $1 and (data #>> '{payload,issue,comments}')::numeric > $2
      group by 1 order by avg_comments desc, repo limit $3`,
    values: [p.type, p.min_comments, p.limit],
  }),
  // The correlated count compares under the database's default collation, the actor.login index's:
  // a.actor carries COLLATE "C" (for its sort), and under "C" the planner cannot use that index (an
  // index serves only comparisons in its own collation) and scanned the table once per actor.
  // Equality is byte equality under either (both deterministic): the same answer.
  'olap-lookup': (p) => ({
    text: `select a.actor, a.in_repo,
        (select count(*) from jsonbench e where e.data #>> '{actor,login}' = a.actor collate "default") as total
      from (select data #>> '{actor,login}' collate "C" as actor, count(*) as in_repo from jsonbench
            where data #>> '{repo,name}' = $1 group by 1 order by in_repo desc, actor limit $2) a
      order by a.in_repo desc, a.actor`,
    values: [p.repo, p.limit],
  }),
};

module.exports = { forms };
