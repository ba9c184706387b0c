'use strict';
// `node client <command> --plan FILE [--phase ID] [--client I] ...`: the command's settings read from a
// run's plan.json (client/src/plan.schema.json, written by `node client plan --json`) instead of the
// bench keys in the environment. The lab's client containers run this way, so a phase and its clients
// are computed once, by `plan --json`, and never again from exported keys.
// What the plan gives, as the environment gave it before (the same words, so every command parses
// and acts exactly as it did): settings.environment (every bench key), then the phase's environment
// (STAGE, QUERY), then the client's own: CLIENT_ID, RESULT (<plan's folder>/clients/<phase>-client-<I>.json),
// BENCH (the plan's `bench`) and METRICS_LINGER_S (the phase's `metrics_linger_s`); in a phase of
// client groups, its group's GROUP, MIX, RATE and OPS.
// What only the container knows stays in its environment (CONTAINER_KEYS): the URI (a password never
// written into a file), where the data set is mounted, the lab's wait limits, count's outcomes file.
const fs = require('fs');
const path = require('path');
const { InputError } = require('./bench-schema');
const { groupOfClient } = require('./groups');

const CONTAINER_KEYS = ['URI', 'DATASET', 'METRICS_PORT', 'RECONNECT_TIMEOUT_S', 'READY_TIMEOUT_S', 'TXN_OUTCOMES'];
const PLAN_FLAGS = ['--plan', '--phase', '--client'];

// Splits argv into the plan's flags ({plan, phase, client}: undefined when not given) and the rest.
function takePlanFlags(argv) {
  const rest = [];
  const flags = {};
  for (let i = 0; i < argv.length; i++) {
    const m = /^(--plan|--phase|--client)(?:=(.*))?$/s.exec(argv[i]);
    if (!m) { rest.push(argv[i]); continue; }
    let value = m[2];
    if (value === undefined) {
      if (i + 1 >= argv.length) throw new InputError(`${m[1]}: missing value`);
      value = argv[++i];
    }
    flags[m[1].slice(2)] = value;
  }
  return { flags, rest };
}

function readPlan(file) {
  let doc;
  try {
    doc = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new InputError(`--plan ${file}: cannot read the plan: ${err.code || err.message}`);
  }
  if (!doc || typeof doc !== 'object' || !doc.settings || typeof doc.settings.environment !== 'object' || !Array.isArray(doc.phases)) {
    throw new InputError(`--plan ${file}: not a plan (client/src/plan.schema.json: settings.environment and phases are required)`);
  }
  return doc;
}

// The environment a command parses with --plan: the plan's words, and the container's own keys from env.
function planEnvironment({ plan: file, phase: id, client }, env = process.env) {
  if (file === undefined) {
    if (id !== undefined || client !== undefined) throw new InputError('--phase and --client need --plan FILE (a run\'s plan.json)');
    return env;
  }
  const doc = readPlan(file);
  const out = { ...doc.settings.environment };
  // DATASET in the plan is the host's path; the container has the file where the lab mounted it
  delete out.DATASET;
  if (doc.bench !== undefined) out.BENCH = doc.bench;
  if (id !== undefined) {
    const phase = doc.phases.find((p) => p.id === id);
    if (!phase) throw new InputError(`--phase ${JSON.stringify(id)}: not a phase of ${file}; allowed: ${doc.phases.map((p) => p.id).join(', ')}`);
    Object.assign(out, phase.environment);
    if (phase.metrics_linger_s !== undefined) out.METRICS_LINGER_S = String(phase.metrics_linger_s);
    if (client !== undefined) {
      const n = Number(client);
      if (!/^[1-9][0-9]*$/.test(client) || n > phase.clients) {
        throw new InputError(`--client ${JSON.stringify(client)}: phase ${id} of ${file} has ${phase.clients} client(s); allowed: 1 to ${phase.clients}`);
      }
      out.CLIENT_ID = String(n);
      out.RESULT = path.join(path.dirname(file), 'clients', `${id}-client-${n}.json`);
      // a client of a group (GROUPS, groups.js) runs its group's MIX, RATE and OPS, and says its group
      const group = groupOfClient(phase.groups, n);
      if (group) Object.assign(out, { GROUP: group.name, MIX: group.mix, RATE: String(group.rate), OPS: String(group.ops) });
    }
  } else if (client !== undefined) {
    throw new InputError('--client needs --phase ID (the phase the client belongs to)');
  }
  for (const name of CONTAINER_KEYS) if (env[name] !== undefined) out[name] = env[name];
  return out;
}

module.exports = { takePlanFlags, planEnvironment, CONTAINER_KEYS, PLAN_FLAGS };
