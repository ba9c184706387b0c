'use strict';
// Storage forms (Dolgov's "jsonb vs json vs table"): the same generated documents stored as binary
// JSON, as JSON text, or as a table of one column per field. What each database offers is its
// manifest's `offers.forms` (databases/<name>/database.json): PostgreSQL jsonb (default), json,
// relational; MySQL json (default), relational; MongoDB bson.
//
// One bench key per database, <NAME>_FORM (POSTGRES_FORM, MYSQL_FORM, MONGODB_FORM, TIMESCALEDB_FORM),
// as a database's image is chosen by its own <NAME>_VERSION: a bench of several databases names each
// one's form on its own (POSTGRES_FORM=json MYSQL_FORM=relational), a sweep pairs them
// (POSTGRES_FORM+MYSQL_FORM=...), and no key sets a form on a database that does not have it. A key
// applies only to a bench whose DATABASES name its database and whose workload generates documents
// (WORKLOAD=insert, ycsb): elsewhere it would change nothing and is refused. Unset: the manifest's
// default, the form every run stored before the key existed.
const { manifests, labNames } = require('./databases');
const { InputError } = require('./input-error');

const formKey = (database) => `${database.toUpperCase()}_FORM`;

const generatesDocuments = (values) => Boolean(require('./workloads/registry').workload(values.WORKLOAD || 'insert').documents);

// {KEY: spec} in bench-schema.js's form, one per lab database whose manifest offers forms.
function formSpecs() {
  const specs = {};
  for (const m of Object.values(manifests()).filter((x) => x.offers.forms && !x.not_in_lab)) {
    const { forms } = m.offers;
    specs[formKey(m.name)] = {
      type: 'enum',
      values: Object.keys(forms.offered),
      valuesAbout: `the storage forms ${m.name} offers: databases/${m.name}/database.json offers.forms`,
      default: forms.default,
      about: `how ${m.label} stores the generated documents: ${Object.entries(forms.offered).map(([k, what]) => `${k} = ${what}`).join('; ')}`,
      appliesIf: (values) => (values.DATABASES || []).includes(m.name) && generatesDocuments(values),
      appliesAbout: `DATABASES including ${m.name} and a workload of generated documents (WORKLOAD=insert or ycsb)`,
    };
  }
  return specs;
}

// The form a database stores documents in, from parsed values ({KEY: value}); null when it offers none.
function formOf(values, database) {
  const m = manifests()[database];
  if (!m || !m.offers.forms) return null;
  return values[formKey(database)] || m.offers.forms.default;
}

// A relational table has one typed column per top-level field: a nested shape's top-level fields are
// sub-documents (n1..nF), which have no column type but JSON's. Refused before anything starts.
function checkFormShape(values, where) {
  if (values.SHAPE !== 'nested') return;
  for (const db of values.DATABASES || []) {
    if (formOf(values, db) !== 'relational') continue;
    const key = formKey(db);
    const others = Object.keys(manifests()[db].offers.forms.offered).filter((f) => f !== 'relational');
    throw new InputError(`${where(key)}: ${key}=relational cannot store SHAPE=nested documents on ${db}: a relational table has one typed `
      + `column per top-level field, and a nested document's top-level fields are sub-documents (n1..n${values.FANOUT}), which have no column type `
      + `but JSON's; allowed with SHAPE=nested: ${key}=${others.join(' or ')}, or SHAPE=flat`);
  }
}

// The form keys of the lab's databases (the client commands that create, write or read the table take them).
const formKeys = () => labNames().filter((db) => (manifests()[db].offers || {}).forms).map(formKey);

module.exports = {
  formKey, formSpecs, formOf, checkFormShape, formKeys,
};
