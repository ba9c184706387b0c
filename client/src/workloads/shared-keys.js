'use strict';
// The bench keys several workloads read, each spec written once and referenced by name from the
// workload files that declare it (workloads/*.workload.js): the registry refuses a key two files
// define differently, so a shared key is declared by using the object here.
//
// A workload key's spec is a bench-schema.js spec without appliesIf: the registry derives it from
// the workloads that declare the key (WORKLOAD is one of them) and `when` (a further condition,
// `whenAbout` its words); `appliesAbout`, when given, replaces the derived words;
// `requiredWhereApplies`: the key has no default and must be set wherever it applies.

// Generated documents of FIELDS x FIELD_BYTES (insert, ycsb); the other workloads bring their own
// data sets (client/src/datasets/, docs/datasets.md).
const FIELDS = { type: 'int', min: 1, requiredWhereApplies: true, about: 'fields per document' };
const FIELD_BYTES = { type: 'int', min: 1, requiredWhereApplies: true, about: 'characters per field' };
// Off by default: reading every document back after a phase takes time and warms the cache before
// a following phase on the same database (ycsb's run after its load), for every database alike.
const DIGEST = {
  type: 'enum', values: ['none', 'documents'], default: 'none',
  about: 'documents: count reads every document back after each phase (outside the window) and digests keys and documents, compared across the databases',
};
const SHAPE = { type: 'enum', values: ['flat', 'nested'], default: 'flat', about: 'document shape' };
const nested = (v) => v.SHAPE === 'nested';
const DEPTH = { type: 'int', min: 1, default: '3', when: nested, appliesAbout: 'SHAPE=nested', about: 'nested: levels of objects' };
const FANOUT = { type: 'int', min: 1, default: '2', when: nested, appliesAbout: 'SHAPE=nested', about: 'nested: children per object' };

const RATE = {
  type: 'number', gt: 0, requiredWhereApplies: true, appliesAbout: 'WORKLOAD=insert, ycsb or tsbs (events loads at LOAD_RATE)',
  about: 'per client: documents/s (insert), operations/s (ycsb run stage), events/s (tsbs ingest)',
};
const LOAD_RATE = { type: 'number', min: 0, default: '0', about: 'docs/s per client in the load stage (0 = back-to-back on one connection)' };
const OPS = { type: 'int', min: 1, default: '1000', about: 'operations (booking, oltp: transactions) per client in the run stage' };
// A load stage then a run of operations MIX chooses (ycsb; globalsign): the operations a workload
// offers are its file's `mixOps` (bench-schema.js refuses the others, naming them).
const MIX = { type: 'mix', default: 'A', about: 'run-stage operation mix (ycsb: its core workloads A-F or read/update/insert/scan/rmw; globalsign: insert/update/range)' };
const RECORDS = { type: 'int', min: 1, default: '1000', about: 'records loaded before the run (all clients together)' };

// The transaction workloads (booking, oltp): each operation one transaction.
const ISOLATION = {
  type: 'enum', values: ['read-committed', 'repeatable-read', 'serializable'], default: 'read-committed',
  about: 'PostgreSQL isolation level (MongoDB transactions are always snapshot read concern, majority write concern)',
};
const RETRY = {
  type: 'enum', values: ['backoff', 'immediate'], default: 'backoff',
  about: 'after a conflict: backoff (5 ms x1.5 up to 500 ms, MongoDB drivers\' specification, seeded jitter) or immediate (the study\'s client)',
};
const SESSIONS = {
  type: 'int', min: 1, max: 64, default: '4',
  about: 'connections (each with its session) per client: a transaction due while others are still open, or retrying, starts on a free one',
};
const MAX_ATTEMPTS = { type: 'int', min: 1, max: 1000, default: '10', about: 'attempts of one transaction before it counts as an error' };
// PgBouncer between the clients and PostgreSQL (databases/postgres/pgbouncer/): the clients'
// sessions go through it, the lab's own readings (counts, server statistics) straight to the server.
// (The transaction workloads' many small transactions: the study's OLTP part ran through PgBouncer.)
const POOL = {
  type: 'enum', values: ['none', 'pgbouncer'], default: 'none',
  about: 'PostgreSQL connection pooler between the clients and the server: none, or pgbouncer (its CPU, memory and network reported beside the server\'s)',
};
const pooled = (v) => v.POOL === 'pgbouncer';
const POOL_MODE = {
  type: 'enum', values: ['transaction', 'session'], default: 'transaction', when: pooled, appliesAbout: 'POOL=pgbouncer',
  about: 'PgBouncer pool_mode: transaction (a server connection per transaction; the clients\' named prepared statements carried by its max_prepared_statements) or session (one per client session); named prepared statements in both, as without a pool',
};
const POOL_SIZE = {
  type: 'int', min: 1, max: 190, default: '20', when: pooled, appliesAbout: 'POOL=pgbouncer',
  about: 'PgBouncer default_pool_size: server connections PostgreSQL sees at most (20 = PgBouncer\'s default; below the server\'s max_connections, PG_MAX_CONNECTIONS 200)',
};

// Query phases (a workload with a query set: tsbs, events): after the data is in, one measured
// window per query type.
const QUERIES = {
  type: 'text', default: 'none', pattern: /^[a-z0-9 -]+$/, patternAbout: 'none, all, or space-separated query names of the workload (client/src/queries/)',
  about: 'query types to run, each in its own window, after the data is loaded',
};
const QUERY_RUNS = { type: 'int', min: 1, default: '20', about: 'executions of each query type (K), by one client' };
const QUERY_RATE = { type: 'number', min: 0, default: '1', about: 'query executions per second (0 = back to back)' };
// PostgreSQL sorts and hashes in work_mem (4MB, the server's and the official image's default)
// where MongoDB gives each blocking stage 100 MB; a query bench may align them. Sent in the
// query session's start-up packet (no statement of its own) and to explain's session.
const WORK_MEM = {
  type: 'text', default: '4MB', pattern: /^[1-9][0-9]{0,6}(kB|MB|GB)$/, patternAbout: 'a PostgreSQL memory size: an integer with kB, MB or GB, as 4MB or 100MB',
  about: 'PostgreSQL work_mem of the query sessions (4MB = the server default)',
};

// The keys of each family, in the order a workload file lists them.
const DOCUMENT_KEYS = { FIELDS, FIELD_BYTES, RATE, DIGEST, SHAPE, DEPTH, FANOUT };
const TRANSACTION_KEYS = { ISOLATION, RETRY, SESSIONS, MAX_ATTEMPTS, POOL, POOL_MODE, POOL_SIZE };
const QUERY_KEYS = { QUERIES, QUERY_RUNS, QUERY_RATE, WORK_MEM };

module.exports = {
  FIELDS, FIELD_BYTES, DIGEST, SHAPE, DEPTH, FANOUT, RATE, LOAD_RATE, OPS, MIX, RECORDS,
  ISOLATION, RETRY, SESSIONS, MAX_ATTEMPTS, POOL, POOL_MODE, POOL_SIZE, QUERIES, QUERY_RUNS, QUERY_RATE, WORK_MEM,
  DOCUMENT_KEYS, TRANSACTION_KEYS, QUERY_KEYS,
};
