'use strict';
// The query phase's workload (docs/contracts.md §2, "query"): QUERY's K = QUERY_RUNS executions,
// k = 0..K-1, one at a time on one connection at QUERY_RATE (the runner's open loop: a late
// execution is counted late, never skipped or dropped; 0 = back to back). Execution k runs the
// set's form for this database with params(data, k), the same parameters on every database.
// Every answer is digested (query-digest.js, the set's normalisation); the first refusal by the
// server (a stage or operator it lacks) ends the phase as `unsupported`, with the server's words.
// Names no database: the binding's query(form) runs the form, toRows(result) gives the rows.
const crypto = require('crypto');
const { requireForms } = require('../queries');
const { digestRows, pgRows } = require('../query-digest');
const { InputError } = require('../bench-schema');

// Normalised rows kept per execution in the result file (the answers shown on a mismatch).
const ANSWER_ROWS = 200;

// The query definition, the data it runs on and execution k's form for `database`.
function queryOf(opts) {
  if (!opts.query) throw new InputError('--query (QUERY) is required with STAGE=query; allowed: a query name of the workload\'s set');
  const set = requireForms(opts.workload, opts.database);
  const def = set.queries[opts.query];
  if (!def) throw new InputError(`--query ${opts.query}: unknown for WORKLOAD=${opts.workload}; allowed: ${Object.keys(set.queries).join(', ')}`);
  return { set, def, data: set.dataOf(opts) };
}

function formOf(def, data, database, k) {
  const params = def.params(data, k);
  const form = def[database](params, data);
  return { params, form };
}

// The digest options (query-digest.js) for one database: the set's `digest`, with the columns read
// from other paths where the database's forms say so (digest.paths[database], from its forms file's
// `paths`, queries/index.js: e.g. a group key in _id). The column names, so the normalisation, are
// the same on every database.
function digestOptionsFor(digest, database) {
  const { paths, ...opts } = digest;
  const own = paths && paths[database];
  if (!own) return opts;
  const names = Array.isArray(opts.columns) ? opts.columns : Object.keys(opts.columns);
  const pathOf = Array.isArray(opts.columns) ? (n) => n : (n) => opts.columns[n];
  return { ...opts, columns: Object.fromEntries(names.map((n) => [n, own[n] || pathOf(n)])) };
}

// A binding's answer as rows: pg's result (numbers typed by column), or the driver's array.
const rowsOf = (answer) => (Array.isArray(answer) ? answer : pgRows(answer));

class QueryWorkload {
  constructor({ target, opts }) {
    this.target = target;
    this.database = opts.database;
    this.name = opts.query;
    const { def, data } = queryOf(opts);
    this.def = def;
    this.data = data;
    this.digestOptions = digestOptionsFor(def.digest, opts.database);
    this.opNames = [opts.query];
    this.total = opts.queryRuns;
    this.rate = opts.queryRate;
    this.neverDrop = true; // every one of the K executions runs, late if need be
    this.perExecution = [];
    this.answers = [];
    this.paramsOfFirst = null;
    this.unsupported = null;
    this.halted = false;
  }

  typeOf() { return 0; }

  // Parameters and form before the hand-off (client work, out of the service time).
  build(k) {
    const { params, form } = formOf(this.def, this.data, this.database, k);
    if (k === 0) this.paramsOfFirst = params;
    return { k, params, form, rows: null };
  }

  exec(op) {
    return this.target.query(op.form).then((answer) => {
      op.rows = rowsOf(answer);
      return op.rows.length;
    }, (err) => {
      if (this.target.isUnsupported(err)) {
        this.unsupported = String(err.message || err);
        this.halted = true; // the runner sends nothing more
      }
      throw err;
    });
  }

  // After the latency is taken: digest the answer (client work, outside the measurement).
  acknowledge(op) {
    const d = digestRows(op.rows, this.digestOptions);
    this.normalisation = d.normalisation;
    this.perExecution.push({ k: op.k, digest: d.digest, rows: d.rows });
    this.answers.push({ k: op.k, rows: d.lines.slice(0, ANSWER_ROWS).map((l) => JSON.parse(l)), truncated: d.rows > ANSWER_ROWS });
    op.rows = null;
  }

  // The result file's `query` object.
  result() {
    const digest = crypto.createHash('sha256');
    for (const e of this.perExecution) digest.update(e.digest).update('\n');
    const complete = this.perExecution.length === this.total;
    return {
      name: this.name,
      about: this.def.about,
      status: this.unsupported ? 'unsupported' : complete ? 'ok' : 'incomplete',
      reason: this.unsupported ? `the server refused the query: ${this.unsupported}` : complete ? null
        : `${this.perExecution.length} of ${this.total} executions answered`,
      executions: this.total,
      answered: this.perExecution.length,
      rate: this.rate,
      paced: this.rate > 0 ? 'open loop at QUERY_RATE' : 'back to back (QUERY_RATE=0)',
      params_of_first: this.paramsOfFirst,
      form_of_first: this.paramsOfFirst ? formOf(this.def, this.data, this.database, 0).form : null,
      normalisation: this.normalisation || null,
      // Over the K per-execution digests in order: equal on two databases = the same K answers.
      digest: complete ? digest.digest('hex') : null,
      per_execution: this.perExecution,
      answers: this.answers,
      standin_gaps: this.def.standinGaps || [],
    };
  }
}

module.exports = { QueryWorkload, queryOf, formOf, rowsOf, digestOptionsFor, ANSWER_ROWS };
