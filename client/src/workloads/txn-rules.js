'use strict';
// The rules of the transaction workloads' keys (workloads/shared-keys.js TRANSACTION_KEYS) between
// themselves and DATABASES/TOPOLOGY, checked before anything starts; booking and oltp call them.
const { InputError } = require('../input-error');
const { checkTransactionTopology } = require('../topology-rules');
const { manifests } = require('../databases');

// The lab's databases whose manifest offers the pooler POOL (offers.poolers: databases/<db>/<pooler>/).
function offering(pooler) {
  return Object.values(manifests()).filter((m) => !m.not_in_lab && (m.offers.poolers || {})[pooler]);
}

function checkTransactionKeys(values, where) {
  const pooled = values.POOL === 'pgbouncer';
  // A pooler sits in front of a database that offers it: without one in DATABASES it would do nothing.
  const offers = values.POOL && values.POOL !== 'none' ? offering(values.POOL) : [];
  if (values.POOL && values.POOL !== 'none' && values.DATABASES && !offers.some((m) => values.DATABASES.includes(m.name))) {
    if (!offers.length) {
      throw new InputError(`${where('POOL')}: POOL=${values.POOL}: no database's manifest offers it (offers.poolers); allowed: POOL=none`);
    }
    const names = offers.map((m) => m.name).join(' or ');
    throw new InputError(`${where('POOL')}: POOL=${values.POOL} pools ${offers.map((m) => m.label).join(' or ')} connections and this file has `
      + `DATABASES=${values.DATABASES.join(' ')}; allowed without ${names} in DATABASES: POOL=none (or add ${names} to DATABASES)`);
  }
  // Session pooling holds a server connection for each client session's whole life: a pool
  // smaller than the sessions would leave the rest waiting (PgBouncer's query_wait_timeout, 120 s).
  if (pooled && values.POOL_MODE === 'session' && values.POOL_SIZE < values.CLIENTS * values.SESSIONS) {
    throw new InputError(`${where('POOL_SIZE')}: POOL_MODE=session gives every client session a server connection for the whole run `
      + `and POOL_SIZE=${values.POOL_SIZE} is fewer than CLIENTS x SESSIONS = ${values.CLIENTS * values.SESSIONS}: the others would wait; `
      + `allowed with POOL_MODE=session: POOL_SIZE >= ${values.CLIENTS * values.SESSIONS} (or POOL_MODE=transaction)`);
  }
  // A database that runs multi-document transactions only on some topologies (its manifest's
  // offers.transaction_topologies; its binding refuses such a server at run time too).
  checkTransactionTopology(values, where);
}

module.exports = { checkTransactionKeys };
