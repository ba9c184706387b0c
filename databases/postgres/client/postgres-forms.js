'use strict';
// The storage forms of the document table on PostgreSQL (database.json offers.forms; the bench key
// POSTGRES_FORM, client/src/forms.js): what the table holds and the statements of each step kind.
// - jsonb (the default, every run before the forms): data jsonb, sent in jsonb's binary format
//   (version byte 1, then the JSON text), parsed by the server into binary JSON.
// - json: data json, sent in json's binary format, which is the text itself (json_recv), kept
//   verbatim. A patch goes through jsonb (there is no json_set), so an updated document's text is
//   jsonb's, no longer the text sent: said in init's line.
// - relational: one varchar(FIELD_BYTES) column per top-level field, attr1..attrN (SHAPE=flat:
//   forms.js refuses nested shapes), each value a binary-format parameter (varchar's is its text)
//   of the same one-row prepared insert; the JSON's key names and punctuation are not sent.
// Every form: one prepared single-row insert per document, one round trip per step, the same
// synchronous_commit.
const TABLE = 'jsonbench';
const COLUMN = /^attr[1-9][0-9]*$/;

const names = (fields) => Array.from({ length: fields }, (_, i) => `attr${i + 1}`);

// The key column of a key strategy (PostgreSQL has no clustered layout that stays clustered under
// inserts: always a heap with a B-tree primary key).
const idColumn = (key) => (key === 'sequence' ? 'id bigint generated always as identity (cache 100) primary key' : 'id uuid primary key');

const FORMS = {
  jsonb: {
    columns: () => 'data jsonb not null',
    insertColumns: () => ['data'],
    types: () => ['jsonb'],
    // jsonb's binary format: a version byte before the text
    prefix: Buffer.from([1]),
    get: 'select data',
    patchSql: `update ${TABLE} set data = jsonb_set(data, $2::text[], $3::jsonb) where id = $1`,
    note: null,
  },
  json: {
    columns: () => 'data json not null',
    insertColumns: () => ['data'],
    types: () => ['json'],
    prefix: Buffer.alloc(0),
    get: 'select data',
    patchSql: `update ${TABLE} set data = jsonb_set(data::jsonb, $2::text[], $3::jsonb)::json where id = $1`,
    note: 'json: the text as sent is kept verbatim; a patch goes through jsonb (jsonb_set), so an updated document holds jsonb\'s text',
  },
  relational: {
    columns: ({ fields, fieldBytes }) => names(fields).map((c) => `${c} varchar(${fieldBytes}) not null`).join(', '),
    insertColumns: ({ fields }) => names(fields),
    types: ({ fields }) => names(fields).map(() => 'varchar'),
    note: 'relational: one column per field; an insert sends the values only, without the JSON text\'s key names and punctuation',
  },
};

function form(name = 'jsonb') {
  const f = FORMS[name];
  if (!f) throw new Error(`PostgreSQL has no storage form ${JSON.stringify(name)} (allowed: ${Object.keys(FORMS).join(', ')})`);
  return f;
}

// CREATE TABLE of a key strategy and form; shape {fields, fieldBytes}: the relational columns.
function ddl(key, formName = 'jsonb', shape = {}) {
  if (formName === 'relational' && !(shape.fields >= 1 && shape.fieldBytes >= 1)) {
    throw new Error('the relational form needs FIELDS and FIELD_BYTES (its columns) at init');
  }
  return `create table ${TABLE} (${idColumn(key)}, ${form(formName).columns(shape)})`;
}

// {sql, types} of the one-row insert.
function insertStatement(withKey, formName, shape) {
  const f = form(formName);
  const cols = f.insertColumns(shape);
  const all = withKey ? ['id', ...cols] : cols;
  return {
    sql: `insert into ${TABLE} (${all.join(', ')}) values (${all.map((_, i) => `$${i + 1}`).join(', ')})`,
    types: [...(withKey ? ['uuid'] : []), ...f.types(shape)],
  };
}

// A relational patch sets one column: its statement, named per column (pg prepares a named
// statement on its first use, in the same round trip).
function relationalPatch(path) {
  const column = path.length === 1 ? path[0] : null;
  if (!column || !COLUMN.test(column)) throw new Error(`patch: the relational form has columns attr1..attrN, not ${JSON.stringify(path.join('.'))}`);
  return { name: `jsonbench_patch_${column}`, text: `update ${TABLE} set ${column} = $2 where id = $1` };
}

// A relational row (its columns by name, id left out) as the document it stores: {attr1: v, ...}.
function rowDocument(fieldNames, row, from) {
  const doc = {};
  for (let i = from; i < row.length; i++) if (fieldNames[i] !== 'id') doc[fieldNames[i]] = row[i];
  return doc;
}

module.exports = {
  TABLE, FORMS, form, ddl, insertStatement, relationalPatch, rowDocument, names,
};
