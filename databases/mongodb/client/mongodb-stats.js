'use strict';
// MongoDB's own operation counters (serverStatus), read by `server-stats` at
// the lab's window edges. Also reads the MongoDB stand-ins, which answer
// serverStatus with fewer sections (SecantusDB 0.7.0b3: opcounters that count
// commands, connections, no metrics.commands, no wiredTiger, no tcmalloc, no transactions):
// every counter a server does not offer is null with the reason, naming it.
// Which server answered, and its version, goes with the reading (`server`):
// what a counter means depends on both (analysis/figures/reconcile.py).
const OPCOUNTERS = ['insert', 'query', 'update', 'delete', 'getmore', 'command'];

// serverStatus.transactions fields read as counters (the lab's names: txn_*).
const TRANSACTIONS = {
  txn_total_started: 'totalStarted',
  txn_total_committed: 'totalCommitted',
  txn_total_aborted: 'totalAborted',
  txn_current_open: 'currentOpen',
};

// Commands the reading itself sends on its one pooled connection (handshake
// hellos and the driver's monitoring connection come on top: counted by
// analysis per connection). With the workload's collections: `top` too.
const READING = { connections: 1, statements: 4, about: 'ping; buildInfo; serverStatus; endSessions' };
const READING_WITH_TOP = { connections: 1, statements: 5, about: 'ping; buildInfo; serverStatus; top; endSessions' };

// The write operations `top` counts per collection (MongoDB manual, top: "for every collection ... a
// count of how many times each event has executed"), read for the workload's collections as
// `top_<collection>_<event>`, and summed over the database's other collections as
// `top_other_writes` (the lab's data is in one database: foreign writes elsewhere show in the
// server-wide opcounters).
const TOP_WRITES = ['insert', 'update', 'remove'];

const num = (v) => (v === undefined || v === null ? null : Number(v));

// Per-command totals from metrics.commands (where the server has it).
function commandTotals(status) {
  const out = {};
  const cmds = (status.metrics && status.metrics.commands) || {};
  for (const [name, v] of Object.entries(cmds)) {
    if (v && typeof v === 'object' && v.total !== undefined) out[name] = Number(v.total);
  }
  return out;
}

// {name, version[, stand_in_version]}: the server process as serverStatus names it ("mongod";
// SecantusDB says "secantus") and the version it reports (SecantusDB: the MongoDB version it
// emulates, 8.2.11); a stand-in's own release (buildInfo.secantusVersion: the connect-time
// server.version) is stand_in_version.
function serverOf(status, server = {}) {
  const version = status.version === undefined ? null : String(status.version);
  const name = String(status.process || server.product || 'mongod').toLowerCase().replace(/\.exe$/, '');
  return server.stand_in ? { name, version, stand_in_version: String(server.version) } : { name, version };
}

// Read I/O (analysis/figures/read_io.py with databases/mongodb/analysis.py READ_IO):
// serverStatus.wiredTiger.cache "bytes read into cache", the bytes WiredTiger read from its files
// into its cache (a read the OS page cache may serve; on-disk pages are compressed, so the bytes in
// the cache are larger than the bytes read). A server without the wiredTiger section (SecantusDB) or
// the field: null with the reason.
const WT_CACHE_READ = 'bytes read into cache';
function readIoCounters(status, who) {
  const cache = status.wiredTiger && status.wiredTiger.cache;
  const v = cache ? num(cache[WT_CACHE_READ]) : null;
  if (v !== null) return { counters: { wt_cache_bytes_read: v }, unavailable: {} };
  return {
    counters: { wt_cache_bytes_read: null },
    unavailable: { wt_cache_bytes_read: cache ? `${who} wiredTiger.cache has no '${WT_CACHE_READ}'` : `${who} has no wiredTiger.cache section` },
  };
}

// who: how reasons name the server ("serverStatus", "SecantusDB serverStatus").
function fromStatus(status, who = 'serverStatus') {
  const counters = {};
  const unavailable = {};
  const op = status.opcounters;
  for (const k of OPCOUNTERS) {
    counters[`opcounters_${k}`] = op ? num(op[k]) : null;
    if (!op) unavailable[`opcounters_${k}`] = `${who} has no opcounters section`;
  }
  const conn = status.connections;
  counters.connections_current = conn ? num(conn.current) : null;
  counters.connections_total_created = conn ? num(conn.totalCreated) : null;
  if (!conn) {
    unavailable.connections_current = `${who} has no connections section`;
    unavailable.connections_total_created = `${who} has no connections section`;
  }
  const log = status.wiredTiger && status.wiredTiger.log;
  counters.wt_log_bytes_written = log ? num(log['log bytes written']) : null;
  if (!log) unavailable.wt_log_bytes_written = `${who} has no wiredTiger.log section`;
  // Multi-document transactions (mongod 4.0+; MongoDB 8.0 manual, serverStatus `transactions`):
  // started, committed and aborted since the server started, and those open at the reading.
  const txn = status.transactions;
  for (const [key, field] of Object.entries(TRANSACTIONS)) {
    counters[key] = txn ? num(txn[field]) : null;
    if (!txn) unavailable[key] = `${who} has no transactions section`;
    else if (txn[field] === undefined) unavailable[key] = `${who} transactions has no ${field}`;
  }
  const readIo = readIoCounters(status, who);
  Object.assign(counters, readIo.counters);
  Object.assign(unavailable, readIo.unavailable);
  const commands = commandTotals(status);
  if (!Object.keys(commands).length) unavailable.commands = `${who} has no metrics.commands section`;
  return { counters, commands, unavailable };
}

// {counters, unavailable} of `top` (admin command; its totals keyed "<db>.<collection>") for the
// collections of database db; why: the reason when there is no answer.
function fromTop(top, db, collections, why = 'top has no totals') {
  const counters = {};
  const unavailable = {};
  const totals = (top && top.totals) || null;
  for (const c of collections) {
    for (const e of TOP_WRITES) {
      const cell = totals && totals[`${db}.${c}`] && totals[`${db}.${c}`][e];
      // a collection nothing has touched yet may have no entry: none of its events ran
      counters[`top_${c}_${e}`] = totals ? num(cell ? cell.count : 0) : null;
      if (!totals) unavailable[`top_${c}_${e}`] = why;
    }
  }
  counters.top_other_writes = totals ? Object.entries(totals)
    .filter(([ns]) => ns.startsWith(`${db}.`) && !collections.includes(ns.slice(db.length + 1)))
    .reduce((n, [, v]) => n + TOP_WRITES.reduce((m, e) => m + Number((v[e] && v[e].count) || 0), 0), 0) : null;
  if (!totals) unavailable.top_other_writes = why;
  return { counters, unavailable };
}

// The cache as the server holds it (the independent check of CACHE_MB / .env's MONGO_CACHE_GB,
// analysis/figures/memory.py): serverStatus's wiredTiger.cache "maximum bytes configured", the
// cache_size mongod gave WiredTiger (from --wiredTigerCacheSizeGB). Read from the serverStatus the
// reading sends anyway: no command of its own. A server without that field (SecantusDB 0.7.0b3: no
// wiredTiger section, and its getCmdLineOpts names no cache either) gives null with the reason.
const CACHE_FIELD = 'maximum bytes configured';

function cacheOf(status, who = 'serverStatus') {
  const wt = status.wiredTiger;
  const cache = wt && wt.cache;
  const value = cache ? cache[CACHE_FIELD] : undefined;
  const bytes = value === undefined || value === null ? null : Number(value);
  let reason = null;
  if (!wt) reason = `${who} has no wiredTiger section`;
  else if (!cache) reason = `${who} has no wiredTiger.cache section`;
  else if (bytes === null) reason = `${who} wiredTiger.cache has no "${CACHE_FIELD}"`;
  return {
    bytes, setting: 'wiredTigerCacheSizeGB', source: `serverStatus wiredTiger.cache["${CACHE_FIELD}"]`, reason,
  };
}

// server: the connect-time server info ({product, version, stand_in}); db, collections: the
// workload's collections, whose writes `top` counts one by one (none: no `top`).
async function readMongoStats(client, server = {}, { db, collections = [] } = {}) {
  // tcmalloc: 1 asks MongoDB for the allocator's detailed figures (per-CPU
  // caches, heap); servers that do not know the option ignore it.
  const status = await client.db('admin').command({ serverStatus: 1, tcmalloc: 1 });
  const who = server.stand_in ? `${server.product} serverStatus` : 'serverStatus';
  const { counters, commands, unavailable } = fromStatus(status, who);
  const raw = {
    opcounters: status.opcounters || null,
    connections: status.connections || null,
    wiredTiger_log: (status.wiredTiger && status.wiredTiger.log) || null,
    transactions: status.transactions || null,
    tcmalloc: status.tcmalloc || null,
    metrics_commands: (status.metrics && status.metrics.commands) || null,
    uptime_s: num(status.uptime),
  };
  if (!status.tcmalloc) unavailable.tcmalloc = `${who} has no tcmalloc section`;
  if (collections.length) {
    let top = null;
    let why = null;
    try {
      top = await client.db('admin').command({ top: 1 });
    } catch (err) {
      why = `${server.stand_in ? `${server.product} ` : ''}top failed: ${err.message}`;
    }
    const t = fromTop(top, db, collections, why || undefined);
    Object.assign(counters, t.counters);
    Object.assign(unavailable, t.unavailable);
  }
  const localTime = status.localTime instanceof Date ? status.localTime.getTime() / 1000 : null;
  return {
    server: { ...serverOf(status, server), product: server.product, stand_in: Boolean(server.stand_in) },
    counters, commands, unavailable, server_time: localTime, raw, reading: collections.length ? READING_WITH_TOP : READING,
    cache: cacheOf(status, who),
  };
}

module.exports = {
  readMongoStats, fromStatus, fromTop, readIoCounters, serverOf, cacheOf, OPCOUNTERS, READING, READING_WITH_TOP, TRANSACTIONS, TOP_WRITES,
};
