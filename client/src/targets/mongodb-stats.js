'use strict';
// MongoDB's own operation counters (serverStatus), read by `server-stats` at
// the lab's window edges. Also reads FerretDB, which answers serverStatus
// with only `metrics.commands` (per command: total, failed): every counter it
// does not offer is null with the reason.
const OPCOUNTERS = ['insert', 'query', 'update', 'delete', 'getmore', 'command'];

// Commands the reading itself sends on its one pooled connection (handshake
// hellos and the driver's monitoring connection come on top: counted by
// analysis per connection).
const READING = { connections: 1, statements: 4, about: 'ping; buildInfo; serverStatus; endSessions' };

const num = (v) => (v === undefined || v === null ? null : Number(v));

// Per-command totals from metrics.commands (MongoDB and FerretDB alike).
function commandTotals(status) {
  const out = {};
  const cmds = (status.metrics && status.metrics.commands) || {};
  for (const [name, v] of Object.entries(cmds)) {
    if (v && typeof v === 'object' && v.total !== undefined) out[name] = Number(v.total);
  }
  return out;
}

function fromStatus(status, stand_in) {
  const counters = {};
  const unavailable = {};
  const who = stand_in ? 'FerretDB serverStatus' : 'serverStatus';
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
  const commands = commandTotals(status);
  if (!Object.keys(commands).length) unavailable.commands = `${who} has no metrics.commands section`;
  return { counters, commands, unavailable };
}

async function readMongoStats(client, { stand_in }) {
  // tcmalloc: 1 asks MongoDB for the allocator's detailed figures (per-CPU
  // caches, heap); servers that do not know the option ignore it.
  const status = await client.db('admin').command({ serverStatus: 1, tcmalloc: 1 });
  const { counters, commands, unavailable } = fromStatus(status, stand_in);
  const raw = {
    opcounters: status.opcounters || null,
    connections: status.connections || null,
    wiredTiger_log: (status.wiredTiger && status.wiredTiger.log) || null,
    tcmalloc: status.tcmalloc || null,
    metrics_commands: (status.metrics && status.metrics.commands) || null,
    uptime_s: num(status.uptime),
  };
  if (!status.tcmalloc) unavailable.tcmalloc = `${stand_in ? 'FerretDB ' : ''}serverStatus has no tcmalloc section`;
  const localTime = status.localTime instanceof Date ? status.localTime.getTime() / 1000 : null;
  return { counters, commands, unavailable, server_time: localTime, raw, reading: READING };
}

module.exports = { readMongoStats, fromStatus, OPCOUNTERS, READING };
