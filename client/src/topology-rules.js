'use strict';
// The rules of TOPOLOGY against DATABASES, read from the databases' manifests (databases/<name>/
// database.json `offers.topologies`, `offers.transaction_topologies`; docs/contracts.md §2a), so no
// rule here names a database. A manifest without `offers.topologies` runs only the default
// topology (standalone: one server, nothing to choose); one without `offers.transaction_topologies`
// runs the transaction workloads on every topology it offers. `all`: {name: manifest}, the client's
// registry, and `offered(name)`: the workloads a database offers (its workload files,
// databases/<name>/client/workloads/), unless a test gives its own.
const { InputError } = require('./input-error');

// The words the refusals use for each TOPOLOGY value (the lab's vocabulary, not a database's).
const TOPOLOGY_WORDS = { standalone: 'a standalone server', replset: 'a replica set' };

const registry = () => require('./databases').manifests();
const offeredWorkloads = (name) => require('./databases').offeredWorkloads(name);
const inLab = (all) => Object.values(all).filter((m) => !m.not_in_lab);
const offersTopology = (m, topology, defaultTopology) => (m.offers.topologies || [defaultTopology]).includes(topology);

// TOPOLOGY set to a value none of DATABASES offers would change nothing: refused, naming the
// databases whose manifest offers it. The default is every database's, so never refused.
function checkTopologyOffered(values, where, given, defaultTopology, all = registry()) {
  if (!given('TOPOLOGY') || values.TOPOLOGY === defaultTopology) return;
  if (values.DATABASES.some((db) => all[db] && offersTopology(all[db], values.TOPOLOGY, defaultTopology))) return;
  const offering = inLab(all).filter((m) => offersTopology(m, values.TOPOLOGY, defaultTopology));
  const what = offering.length
    ? `applies only to ${offering.map((m) => m.label).join(' or ')}`
    : 'is offered by no database of the lab (databases/<name>/database.json offers.topologies)';
  const fix = offering.length ? `add ${offering.map((m) => m.name).join(' or ')} to DATABASES or remove TOPOLOGY` : 'remove TOPOLOGY';
  throw new InputError(`${where('TOPOLOGY')}: TOPOLOGY=${values.TOPOLOGY} ${what} and this file has `
    + `DATABASES=${values.DATABASES.join(' ')}: ${fix}`);
}

// A transaction workload (booking, oltp) on a database that runs multi-document transactions only
// on some topologies (its manifest's offers.transaction_topologies) is refused on the others before
// anything starts (its binding refuses such a server at run time too). What else is allowed: those
// topologies, or the lab's databases that run this workload's transactions on this TOPOLOGY.
function checkTransactionTopology(values, where, all = registry(), offered = offeredWorkloads) {
  for (const db of values.DATABASES || []) {
    const m = all[db];
    const need = m && m.offers.transaction_topologies;
    if (!need || need.includes(values.TOPOLOGY)) continue;
    const others = inLab(all).filter((o) => o.name !== db && offered(o.name).includes(values.WORKLOAD)
      && (!o.offers.transaction_topologies || o.offers.transaction_topologies.includes(values.TOPOLOGY)))
      .map((o) => o.name);
    throw new InputError(`${where('TOPOLOGY')}: WORKLOAD=${values.WORKLOAD} runs multi-document transactions, which ${m.label} allows only on `
      + `${need.map((t) => TOPOLOGY_WORDS[t] || t).join(' or ')}, and this file has TOPOLOGY=${values.TOPOLOGY}; allowed with `
      + `WORKLOAD=${values.WORKLOAD} and ${db} in DATABASES: ${need.map((t) => `TOPOLOGY=${t}`).join(' or ')}`
      + `${others.length ? ` (or DATABASES=${others.join(' ')})` : ''}`);
  }
}

module.exports = { checkTopologyOffered, checkTransactionTopology, TOPOLOGY_WORDS };
