'use strict';
// WORKLOAD=globalsign on PostgreSQL (client/src/workloads/globalsign*.js): the people as one jsonb
// document each, table globalsign(id bigint primary key, data jsonb), as the study's tool stored them
// (the JSON text of the person: dob ISO 8601 text, padding base64 text, as Go's encoding/json writes a
// []byte). The partial index is the study's: a B-tree on the expression (data->'age') holding only the
// rows of the band, and the range statement names the same expression with the band's bounds as
// constants in its text (jsonb compares numbers numerically). Constants, not parameters, because a
// generic plan (which PostgreSQL's plan cache may choose for a prepared statement after its fifth
// execution) cannot prove a partial index's predicate from parameters of unknown value: with $1/$2
// the index would serve only custom plans. A statement without parameters has one plan, the generic
// one, from its first execution; the proof (count) shows it with the plan cache's own counters.
const { clientRequire, workloadData } = require('../../../../client/src/sdk');
const { tableSizes } = require('../table-sizes');

const { TABLE, INDEX, bandBounds, personJson } = workloadData('globalsign');

const DDL = `create table ${TABLE} (id bigint primary key, data jsonb not null)`;
const bandSql = (band) => { const { min, max } = bandBounds(band); return `(data->'age') > '${min}' and (data->'age') < '${max}'`; };
const indexSql = (band) => `create index ${INDEX} on ${TABLE} ((data->'age')) where ${bandSql(band)}`;
// Rows come back as the server's text, unparsed (as the binding's reads: postgres.js).
const RAW_TEXT = { getTypeParser: () => (value) => value };
// pg's named prepared statements: parsed once per session, then bound and executed by name.
const INSERT = { name: 'globalsign_insert', text: `insert into ${TABLE} (id, data) values ($1, $2)` };
// The new balance as JSON text: jsonb keeps its digits exactly (float8 -> jsonb would round it to 15).
const UPDATE = { name: 'globalsign_update', text: `update ${TABLE} set data = jsonb_set(data, '{balance}', $2::jsonb) where id = $1` };
const rangeStatement = (band) => ({
  name: 'globalsign_range', text: `select data from ${TABLE} where ${bandSql(band)}`, rowMode: 'array', types: RAW_TEXT,
});

async function init(client, { rangeMin, rangeMax }) {
  await client.query(`drop table if exists ${TABLE}`);
  await client.query(DDL);
  const index = indexSql({ min: rangeMin, max: rangeMax });
  await client.query(index);
  return { created: DDL, indexes: [index] };
}

// The session's commit durability, set again on a new connection (after a reconnect).
const syncCommit = (durability) => `set synchronous_commit = ${durability === 'strict' ? 'on' : 'off'}`;

function stepsOn(target, { durability, rangeMin, rangeMax }) {
  const range = rangeStatement({ min: rangeMin, max: rangeMax });
  let session = target.handle();
  const client = () => {
    const c = target.handle();
    if (c === session) return Promise.resolve(c);
    return c.query(syncCommit(durability)).then(() => { session = c; return c; });
  };
  const one = (what, id) => (r) => {
    if (r.rowCount !== 1) throw Object.assign(new Error(`${what}: no person with id ${id}`), { code: 'JSONBENCH_NOT_FOUND' });
    return 1;
  };
  return {
    insert: (doc) => client().then((c) => c.query({ ...INSERT, values: [doc.id, doc.json] })).then(one('insert', doc.id)),
    update: (id, balance) => client().then((c) => c.query({ ...UPDATE, values: [id, JSON.stringify(balance)] })).then(one('update', id)),
    range: () => client().then((c) => c.query(range)).then((r) => r.rows.length),
  };
}

const sizes = (client) => tableSizes(client, TABLE, 'table_bytes = pg_table_size (heap + TOAST)');

// Every person, 1,000 rows a round trip in id order.
async function* readBack(client) {
  let after = -1;
  for (;;) {
    const { rows } = await client.query({
      text: `select id, data::text from ${TABLE} where id > $1 order by id limit 1000`, values: [after], rowMode: 'array', types: RAW_TEXT,
    });
    for (const [, text] of rows) yield JSON.parse(text);
    if (rows.length < 1000) return;
    after = rows[rows.length - 1][0];
  }
}

// The plan nodes of an EXPLAIN (FORMAT JSON) plan, depth first.
function* nodes(plan) {
  yield plan;
  for (const child of plan.Plans || []) yield* nodes(child);
}
const withoutChildren = ({ Plans, ...node }) => node;
const EXECUTIONS = 6;

// The index proof: on a session of its own, the run's range statement (the same name, text and
// protocol: pg's extended query protocol with a named statement) executed 6 times, one more than the
// 5 custom plans after which the plan cache may switch to a generic plan, then EXPLAIN (FORMAT JSON)
// EXECUTE of that statement: the plan the next execution of the run would take. pg_prepared_statements
// says which plans the cache made (generic_plans, custom_plans).
async function proof(client, band) {
  const range = rangeStatement(band);
  for (let k = 0; k < EXECUTIONS; k++) await client.query(range);
  const { rows } = await client.query({ text: `explain (format json) execute ${range.name}`, rowMode: 'array' });
  const explained = typeof rows[0][0] === 'string' ? JSON.parse(rows[0][0]) : rows[0][0];
  const plan = explained[0].Plan;
  const { rows: [cache] } = await client.query('select generic_plans, custom_plans from pg_prepared_statements where name = $1', [range.name]);
  const all = [...nodes(plan)];
  const usedNode = all.find((n) => n['Index Name'] === INDEX);
  const anyIndex = all.find((n) => n['Index Name']);
  await client.query(`deallocate ${range.name}`);
  return {
    statement: range.text,
    index: INDEX,
    used: Boolean(usedNode),
    index_used: anyIndex ? anyIndex['Index Name'] : null,
    plan_node: withoutChildren(usedNode || plan),
    plan_nodes: all.map((n) => `${n['Node Type']}${n['Index Name'] ? ` on ${n['Index Name']}` : ''}`),
    executions_before: EXECUTIONS,
    plan_cache: cache ? { generic_plans: Number(cache.generic_plans), custom_plans: Number(cache.custom_plans) } : null,
    method: `EXPLAIN (FORMAT JSON) EXECUTE ${range.name} after ${EXECUTIONS} executions of the run's named prepared statement on one session`,
  };
}

// What client/src/workloads/globalsign*.js ask of this database.
module.exports = {
  init: (target, opts) => init(target.handle(), opts),
  prepare: (target, opts) => target.handle().query(syncCommit(opts.durability)),
  stepsOn,
  // the JSON text stored, beside the id column
  encode: (doc) => ({ id: doc.id, json: personJson(doc) }),
  sizes: (target) => sizes(target.handle()),
  readBack: (target) => readBack(target.handle()),
  proof: (target, band) => proof(target.handle(), band),
  // what each run session sends besides its operations: the binding's connect, then the durability
  runSession: { connections: 1, statements: 2, about: 'show server_version; set synchronous_commit' },
  // for the tests: the statements as sent
  rangeStatement,
  indexSql,
};
