'use strict';
// Client groups (GlobalSign's mixed workers): a run phase whose clients form several streams at once,
// each with its own clients, its own per-client rate and operation count and its own MIX, against
// the same data: e.g. inserts of new documents, updates by id and range selects side by side.
//
//   GROUPS="inserts updates selects"      the groups' names, in client order
//   GROUP_CLIENTS="1 2 1"                 each group's clients (they add up to CLIENTS)
//   GROUP_MIXES="insert=100 update=100 range=100"   each group's MIX (the workload's operations)
//   GROUP_RATES="50 100 20"               each group's RATE per client (unset: RATE for every group)
//   GROUP_OPS="500 1000 200"              each group's OPS per client (unset: OPS for every group)
//
// Parallel lists, one word per group, so every key is a fixed bench key with one meaning. Clients are
// numbered 1..CLIENTS across the groups in order (group 1 takes clients 1..n1, ...): the load stage
// deals the records out over the same CLIENTS as before, each run client keeps its own keys (its
// inserts are keyed by its own id), so two groups never write the same key. Only the run stage has
// groups; the load stage is the workload's own. Refused before anything starts: a workload without
// MIX, lists of the wrong length, counts that do not add up to CLIENTS, a MIX or value a lone key would
// refuse, naming the file, the key and what is allowed.
const { InputError } = require('./input-error');

const NAME = /^[a-z][a-z0-9-]{0,31}$/;

const hasMix = (values) => Boolean((require('./workloads/registry').workload(values.WORKLOAD || 'insert').keys || {}).MIX);
const ABOUT = 'a workload whose run operations are chosen by MIX (WORKLOAD=ycsb, globalsign) and GROUPS';

function groupSpecs() {
  // each list key: one word per group, only beside GROUPS
  const list = (about) => ({
    type: 'text', pattern: /^\S+( \S+)*$/, patternAbout: 'one space-separated word per group of GROUPS', about,
    appliesIf: (v) => hasMix(v) && Boolean(v.GROUPS), appliesAbout: ABOUT,
  });
  return {
    GROUPS: {
      type: 'text', pattern: /^[a-z][a-z0-9-]{0,31}( [a-z][a-z0-9-]{0,31})*$/,
      patternAbout: 'space-separated group names (a-z, 0-9, -; starting with a letter), e.g. "inserts updates selects"',
      about: 'the run phase\'s client groups: streams at once, each with its own clients, rate and MIX (GROUP_CLIENTS, GROUP_MIXES, GROUP_RATES, GROUP_OPS)',
      appliesIf: hasMix, appliesAbout: 'a workload whose run operations are chosen by MIX (WORKLOAD=ycsb, globalsign)',
    },
    GROUP_CLIENTS: list('each group\'s clients, adding up to CLIENTS'),
    GROUP_MIXES: list('each group\'s MIX (op=weight,...)'),
    GROUP_RATES: list('each group\'s RATE per client (unset: RATE)'),
    GROUP_OPS: list('each group\'s OPS per client (unset: OPS)'),
  };
}

// [{name, clients: [first, last], rate, ops, mix}] of parsed bench values, or null without GROUPS.
// where(key): the "file:line" of a key for errors.
function groupsOf(values, where = (k) => k) {
  if (!values.GROUPS) return null;
  const { BENCH_SPECS, parseValue } = require('./bench-schema');
  const names = values.GROUPS.split(' ');
  if (new Set(names).size !== names.length || names.some((n) => !NAME.test(n))) {
    throw new InputError(`${where('GROUPS')}: GROUPS="${values.GROUPS}": group names must be distinct; allowed: ${groupSpecs().GROUPS.patternAbout}`);
  }
  const list = (key, required) => {
    const text = values[key];
    if (text === null || text === undefined || text === '') {
      if (required) throw new InputError(`${where('GROUPS')}: GROUPS needs ${key}, one word per group (${names.length}: ${names.join(' ')}); ${groupSpecs()[key].about}`);
      return null;
    }
    const words = String(text).split(' ');
    if (words.length !== names.length) {
      throw new InputError(`${where(key)}: ${key}="${text}" has ${words.length} word(s) for ${names.length} group(s) of GROUPS (${names.join(' ')}); allowed: one word per group, in the order of GROUPS`);
    }
    return words;
  };
  const clients = list('GROUP_CLIENTS', true).map((w, i) => parseValue({ type: 'int', min: 1 }, w, `${where('GROUP_CLIENTS')}: GROUP_CLIENTS (group ${names[i]})`));
  const mixes = list('GROUP_MIXES', true).map((w, i) => parseValue(BENCH_SPECS.MIX, w, `${where('GROUP_MIXES')}: GROUP_MIXES (group ${names[i]})`));
  const rateWords = list('GROUP_RATES', false);
  const opsWords = list('GROUP_OPS', false);
  const rates = names.map((n, i) => (rateWords ? parseValue(BENCH_SPECS.RATE, rateWords[i], `${where('GROUP_RATES')}: GROUP_RATES (group ${n})`) : values.RATE));
  const ops = names.map((n, i) => (opsWords ? parseValue(BENCH_SPECS.OPS, opsWords[i], `${where('GROUP_OPS')}: GROUP_OPS (group ${n})`) : values.OPS));
  const total = clients.reduce((a, b) => a + b, 0);
  if (total !== values.CLIENTS) {
    throw new InputError(`${where('GROUP_CLIENTS')}: GROUP_CLIENTS="${values.GROUP_CLIENTS}" adds up to ${total} clients, CLIENTS is ${values.CLIENTS}; `
      + 'allowed: counts that add up to CLIENTS (the load stage deals the records over CLIENTS, the run\'s groups share them out)');
  }
  let first = 1;
  return names.map((name, i) => {
    const g = { name, clients: [first, first + clients[i] - 1], rate: rates[i], ops: ops[i], mix: mixes[i] };
    first += clients[i];
    return g;
  });
}

// The workload's own rules for each group's MIX, as for a lone MIX (its file's check).
function checkGroups(values, where, workload) {
  const groups = groupsOf(values, where);
  if (!groups) return;
  for (const g of groups) {
    const foreign = Object.keys(g.mix).filter((op) => workload.mixOps && !workload.mixOps.includes(op));
    if (foreign.length) {
      throw new InputError(`${where('GROUP_MIXES')}: GROUP_MIXES (group ${g.name}) names ${foreign.join(', ')}, which WORKLOAD=${workload.name} does not offer; `
        + `allowed with ${workload.name}: op=weight,... with op in ${workload.mixOps.join(', ')}`);
    }
  }
  if (!workload.check) return;
  for (const g of groups) workload.check({ ...values, MIX: g.mix, RATE: g.rate, OPS: g.ops }, (k) => (k === 'MIX' ? `${where('GROUP_MIXES')} (group ${g.name})` : where(k)));
}

// The group of client `id` (1-based) in a phase's groups, or null.
const groupOfClient = (groups, id) => (groups || []).find((g) => id >= g.clients[0] && id <= g.clients[1]) || null;

module.exports = {
  groupSpecs, groupsOf, checkGroups, groupOfClient,
};
