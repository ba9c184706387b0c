'use strict';
// MySQL steps of the query phase and of loading whole documents (methods of MysqlTarget): indexes
// from a query set's declaration, one document with a given key, one query (one round trip), its
// plan. Names no workload.
const { clientRequire, InputError } = require('../../../client/src/sdk');
const { TABLE, textAt } = require('./mysql-schema');

const { Types: types } = clientRequire('mysql2');

// The functional index of one declared field (MySQL 8.0.13+: a hidden virtual generated column
// with a B-tree on it, the counterpart of PostgreSQL's expression index on `data #>> '{a,b}'` and
// MongoDB's index on the field). text and time (ISO text sorts as time): textAt(path), the very
// expression the forms write. A number field has no form here yet: refused, naming the field.
function indexExpression(f) {
  if (f.type === 'text' || f.type === 'time') return `(${textAt(f.path)})`;
  throw new InputError(`index field ${f.path}: type ${JSON.stringify(f.type)} has no MySQL index form; allowed with mysql: text, time`);
}

const indexDdl = (ix) => `CREATE INDEX ${ix.name} ON ${TABLE} (${ix.fields.map(indexExpression).join(', ')})`;

// BIGINT (COUNT(*)) and DECIMAL arrive as text (the connection's bigNumberStrings: they may not fit
// a double): typed by the column, as query-digest.js pgRows does for pg's int8 and numeric, so a
// count digests as the same number as PostgreSQL's and MongoDB's. Integral text -> BigInt (exact),
// other decimal text -> a double.
const TEXT_NUMBERS = new Set([types.LONGLONG, types.NEWDECIMAL, types.DECIMAL]);
const INTEGER_TEXT = /^-?[0-9]+$/;
function typedRows(rows, fields) {
  const numeric = (fields || []).filter((f) => TEXT_NUMBERS.has(f.columnType)).map((f) => f.name);
  if (!numeric.length) return rows;
  return rows.map((r) => {
    const out = { ...r };
    for (const n of numeric) {
      const v = out[n];
      if (typeof v === 'string') out[n] = INTEGER_TEXT.test(v) ? BigInt(v) : Number(v);
    }
    return out;
  });
}

// ER_NOT_SUPPORTED_YET: "This version of MySQL doesn't yet support '...'" (a feature the server lacks).
const NOT_SUPPORTED_YET = 1235;

const methods = {
  // Returns the DDL it ran, one statement per index.
  async createIndexes(indexes) {
    const out = [];
    for (const ix of indexes) {
      const sql = indexDdl(ix);
      await this.conn.query(sql);
      out.push(sql);
    }
    return out;
  },

  // doc: a JSON-able object, sent as its JSON text (the same text PostgreSQL's binding sends; dates
  // already ISO text) through the INSERT prepared at prepareInserts; key: 16 bytes.
  putDocument(key, doc) {
    if (!this.statements) return Promise.reject(new Error('not connected'));
    if (!this.withKey) return this.refuseSequence('putDocument');
    return this.statements.insert.execute([key, JSON.stringify(doc)]).then(() => 1);
  },

  // form: { sql, values }. One text-protocol statement (COM_QUERY) with the values inlined by the
  // driver: the server parses and plans it at each execution, with the constants in view, as
  // PostgreSQL's unnamed statement and MongoDB's aggregate. Resolves to the rows as objects.
  query(form) {
    if (!this.conn) return Promise.reject(new Error('not connected'));
    return this.conn.query({ sql: form.sql, values: form.values, rowsAsArray: false })
      .then(([rows, fields]) => typedRows(rows, fields));
  },

  // EXPLAIN ANALYZE (MySQL 8.0.18+: runs the statement and reports each iterator's rows and times,
  // in its TREE format) of the statement as the query phase sent it.
  async explain(form) {
    const statement = this.conn.format(form.sql, form.values);
    const [rows] = await this.conn.query({ sql: `EXPLAIN ANALYZE ${statement}`, rowsAsArray: true });
    return { command: `EXPLAIN ANALYZE ${form.sql}`, values: form.values, plan: rows.map((r) => r[0]).join('\n') };
  },

  isUnsupported(err) {
    return Boolean(err) && err.errno === NOT_SUPPORTED_YET;
  },
};

module.exports = { methods, indexDdl, indexExpression, typedRows };
