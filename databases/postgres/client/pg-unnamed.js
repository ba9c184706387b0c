'use strict';
// Which statements a PostgreSQL transaction session sends (result field transactions.statements).
// Without a pool, and through PgBouncer in session mode, the binding's named prepared statements
// (pg's query config `name`: parsed once per connection). Through PgBouncer in transaction mode a
// client's next transaction may run on another server connection, where its named statement was
// never parsed: PgBouncer 1.18 (the stand-in's) cannot carry them at all, 1.21+ only by rewriting
// them (max_prepared_statements). The lab keeps both paths the same: unnamed statements (parsed
// with every execution, in the same round trip) whenever the pool is in transaction mode.
function statementsFor({ pool, poolMode } = {}) {
  return pool === 'pgbouncer' && poolMode === 'transaction' ? 'unnamed' : 'named';
}

// A view of a pg Client whose query configs lose their name: pg then sends Parse/Bind/Execute of
// the unnamed statement (extended protocol, parameters as before).
function unnamed(client) {
  return {
    query: (config, values) => client.query(
      config && typeof config === 'object' && config.name ? { ...config, name: undefined } : config,
      values,
    ),
  };
}

module.exports = { statementsFor, unnamed };
