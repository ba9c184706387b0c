'use strict';
// `explain`: execution 0 of QUERY (the form and parameters the query phase ran first) with the
// database's plan: EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) on PostgreSQL, explain with
// executionStats on MongoDB (a stand-in answers with what it has). One JSON object on stdout, the
// lab's <phase>.plan.json. Run by the lab after the window, so it is not counted. A refusal is
// an answer too: {error, unsupported: true}, exit 0.
const { connectTarget } = require('./connect');
const { queryOf, formOf } = require('../workloads/query');

async function explain(opts) {
  const { def, data } = queryOf(opts);
  const { params, form } = formOf(def, data, opts.database, 0);
  const { target, server } = await connectTarget(opts, { patient: true });
  const out = { database: opts.database, server, query: opts.query, k: 0, params };
  try {
    Object.assign(out, await target.explain(form));
  } catch (err) {
    out.command = form;
    out.error = String(err.message || err);
    out.unsupported = Boolean(target.isUnsupported(err));
    if (!out.unsupported) {
      console.log(JSON.stringify(out));
      return 1;
    }
  } finally {
    await target.close();
  }
  console.log(JSON.stringify(out));
  return 0;
}

module.exports = { explain };
