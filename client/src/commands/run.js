'use strict';
// `run`: offer the workload's operations (DOCS documents at RATE docs/s for
// the insert workload; a ycsb stage), then write the result.
const { connectTarget } = require('./connect');
const { displayName, standsInFor } = require('../targets');
const { createWorkload, describeWorkload } = require('../workloads');
const { Metrics } = require('../metrics');
const { Runner, STOP_GRACE_MS } = require('../runner');
const { writeFileAtomic } = require('../atomic-write');
const { InputError } = require('../bench-schema');

async function startMetrics(opts) {
  if (!opts.metricsPort) return null;
  const metrics = new Metrics({ bench: opts.bench, database: opts.database, clientId: opts.clientId });
  try {
    await metrics.listen(opts.metricsPort);
  } catch (err) {
    throw new InputError(`--metrics-port: cannot listen on ${opts.metricsPort}: ${err.code || err.message}`);
  }
  return metrics;
}

async function run(opts) {
  const metrics = await startMetrics(opts);
  let target;
  let server;
  try {
    ({ target, server } = await connectTarget(opts));
  } catch (err) {
    if (metrics) await metrics.close();
    throw err;
  }
  const label = displayName(server, opts.database);
  const log = (line) => console.log(line);
  let workload;
  try {
    workload = createWorkload({ target, opts });
  } catch (err) {
    await target.close();
    if (metrics) await metrics.close();
    throw err;
  }
  if (metrics && workload.observe) workload.observe(metrics);
  // A workload with its own storage model (tsbs) prepares its statement instead of the inserts';
  // prepareWork is any other work before the first operation (events: reading DATASET ahead).
  if (workload.prepare) await workload.prepare(opts);
  else await target.prepareInserts(opts);
  if (workload.prepareWork) await workload.prepareWork();
  // More connections for a workload that runs operations side by side (booking: SESSIONS).
  const lanes = [];
  for (let k = 1; k < (workload.sessions || 1); k++) {
    const lane = (await connectTarget(opts)).target;
    lanes.push(lane);
    await workload.prepareTarget(lane, opts);
  }
  const runner = new Runner({
    target, workload, opts, metrics, log, label, describe: describeWorkload(opts), lanes,
  });

  let finished = false;
  const finish = (why) => {
    if (finished) return null;
    finished = true;
    const result = runner.result({ server, database: opts.database });
    if (why) result.stop_reason = why;
    if (workload.result) result.query = workload.result();
    if (opts.result) writeFileAtomic(opts.result, `${JSON.stringify(result, null, 2)}\n`);
    // Not checked against client/src/result.schema.json here: that would spend the client's CPU
    // inside the window (Ajv's load and compile, ~0.4 s here); the lab checks every result file as the
    // phase ends (analysis phase-status), and the client's tests check the files they make.
    log(`[client-${opts.clientId}] ${label} done: ${result.docs_ok}/${result.docs_target} ok, ${result.errors} errors, `
      + `${result.dropped} dropped in ${result.elapsed_s.toFixed(2)} s - Throughput: ${result.achieved_rate.toFixed(2)} ${runner.unit()}/sec`
      + ` (target ${result.target_rate === 0 ? 'back-to-back' : result.target_rate}${result.target_sustained ? '' : ', target not sustained'})${result.interrupted ? ' - interrupted' : ''}`
      + (result.workload === 'insert' ? '' : ` - ${result.phase}: ${Object.entries(result.operations).map(([op, o]) => `${op} ${o.ok} ok/${o.errors} err`).join(', ')}`));
    return result;
  };
  const onSignal = (sig) => {
    log(`[client-${opts.clientId}] ${label}: ${sig}: stopping, waiting for the insert in flight`);
    runner.stop();
    // If the in-flight insert never returns, write the result anyway.
    setTimeout(() => {
      if (finish(`${sig}: in-flight insert did not finish within ${STOP_GRACE_MS} ms`)) process.exit(1);
    }, STOP_GRACE_MS).unref();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  const product = standsInFor(server, opts.database);
  if (server.stand_in) log(`[client-${opts.clientId}] note: ${server.product} ${server.version} is a ${product} stand-in; this is not a ${product} result`);
  await runner.run();
  const result = finish(null);
  if (metrics && opts.metricsLingerS > 0) await new Promise((r) => setTimeout(r, opts.metricsLingerS * 1000));
  await target.close();
  for (const lane of lanes) await lane.close();
  if (metrics) await metrics.close();
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  if (!result) return 1; // the grace timer already wrote it
  // A query the server refuses is an answer (status unsupported in the result), not a failure.
  if (result.query && result.query.status === 'unsupported' && !result.interrupted) return 0;
  return result.docs_ok === result.docs_target && !result.interrupted ? 0 : 1;
}

module.exports = { run };
