'use strict';
// PostgreSQL steps of the query phase and of loading whole documents (methods of PostgresTarget):
// indexes from a query set's declaration, one document with a given key, one query (one round
// trip: an unnamed extended-protocol statement), its plan. Names no workload.
const { uuidString } = require('../../../client/src/sdk');

const TABLE = 'jsonbench';

// 'a.b' -> '{a,b}' (a text[] literal for #>>; paths are the set's own identifiers).
const pathLiteral = (path) => `'{${path.split('.').join(',')}}'`;

// The index expression of one declared field: text and time (ISO text sorts as time) as the
// text at the path, numbers cast to numeric: the expressions the query forms filter on.
function indexExpression(f) {
  if (!/^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$/.test(f.path)) throw new Error(`index path ${JSON.stringify(f.path)}: allowed: dotted identifiers`);
  const text = `(data #>> ${pathLiteral(f.path)})`;
  if (f.type === 'number') return `(${text}::numeric)`;
  if (f.type === 'text' || f.type === 'time') return text;
  throw new Error(`index field ${f.path}: type ${JSON.stringify(f.type)}; allowed: text, number, time`);
}

const indexDdl = (ix) => `create index ${ix.name} on ${TABLE} (${ix.fields.map(indexExpression).join(', ')})`;

// A named statement: pg parses and plans it once per session, then only binds each document, as
// the insert workload's prepared insert does (a per-document Parse would be server CPU MongoDB's
// inserts do not spend).
const PUT = { name: 'jsonbench_put', text: `insert into ${TABLE} (id, data) values ($1, $2::jsonb)` };

const methods = {
  // Returns the DDL it ran, one statement per index.
  async createIndexes(indexes) {
    const out = [];
    for (const ix of indexes) {
      const sql = indexDdl(ix);
      await this.client.query(sql);
      out.push(sql);
    }
    return out;
  },

  // doc: a JSON-able object stored as the jsonb text (dates already ISO text); key: 16 bytes.
  putDocument(key, doc) {
    if (!this.client) return Promise.reject(new Error('not connected'));
    return this.client.query({ ...PUT, values: [uuidString(key), JSON.stringify(doc)] })
      .then(() => 1);
  },

  // form: { text, values }. Resolves to the result (rows and field types, for pgRows).
  query(form) {
    if (!this.client) return Promise.reject(new Error('not connected'));
    return this.client.query({ text: form.text, values: form.values });
  },

  async explain(form) {
    const text = `explain (analyze, buffers, format json) ${form.text}`;
    const r = await this.client.query({ text, values: form.values });
    return { command: `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${form.text}`, values: form.values, plan: r.rows[0]['QUERY PLAN'] };
  },

  // After a load phase and before each query phase, outside the windows (commands/settle.js):
  // VACUUM (ANALYZE) gives the planner its statistics and sets the visibility map and the hint
  // bits the load left (else autovacuum and the first readers do that work inside a later
  // window); CHECKPOINT then writes the pages both dirtied, which the 60 s checkpoint would
  // otherwise write in the next window.
  // tables: a workload's own (booking's five, oltp's sbtest), else the jsonbench table.
  async settle(tables = [TABLE]) {
    const sql = `vacuum (analyze) ${tables.join(', ')}`;
    await this.client.query(sql);
    return `${sql}; ${(await this.flush()).command}`;
  },

  // Before the storage read after a phase (commands/count.js): pg_total_relation_size counts pages
  // at once, so sizes do not change, but the dirty pages (the phase's, and the hint bits the
  // count's own scan sets) are written here and not in the next window.
  async flush() {
    await this.client.query('checkpoint');
    return { command: 'CHECKPOINT', reason: null };
  },

  // PostgreSQL refuses no form of ours for lack of a feature (0A000 would be one).
  isUnsupported(err) {
    return err && err.code === '0A000';
  },
};

module.exports = { methods, indexDdl, indexExpression };
