'use strict';
// A TCP proxy in front of a MongoDB-protocol server that lets every message through, except that
// it can swallow the server's replies to chosen commands: the server has done the command, the
// client sees its connection closed instead of the reply. It forces "the commit landed and its
// reply was lost", the case MongoDB's UnknownTransactionCommitResult label is for, against a real
// server. It can also swallow a chosen command itself (the server never sees it), run something
// against the server meanwhile, then close the client's connection: "the commit was lost on its
// way, and the server forgot the transaction" (killSessions), which the driver's own retry of the
// commit then meets as NoSuchTransaction. Wire format: each message starts with a 16-byte header
// (int32 length, requestID, responseTo, opCode), little-endian (MongoDB Wire Protocol).
const net = require('net');

// Whole messages out of a stream of chunks.
function messageSplitter(onMessage) {
  let buf = Buffer.alloc(0);
  return (chunk) => {
    buf = Buffer.concat([buf, chunk]);
    while (buf.length >= 4 && buf.length >= buf.readInt32LE(0)) {
      const n = buf.readInt32LE(0);
      onMessage(buf.subarray(0, n));
      buf = buf.subarray(n);
    }
  };
}

// upstream: {host, port}; drop(commandName, count): the replies to the next `count` commands whose
// body names commandName (as a BSON key) are swallowed and the client's connection is closed.
async function startDropReplyProxy(upstream) {
  const rules = [];
  const seen = {};
  const sockets = new Set();
  const server = net.createServer((client) => {
    const up = net.connect(upstream.port, upstream.host);
    sockets.add(client); sockets.add(up);
    const doomed = new Set(); // requestIDs whose replies are swallowed
    const close = () => { client.destroy(); up.destroy(); };
    let held = false; // a swallowed request: nothing more goes through on this connection
    client.on('data', messageSplitter((msg) => {
      if (held) return;
      for (const rule of rules) {
        if (rule.left > 0 && msg.includes(rule.key)) {
          seen[rule.name] = (seen[rule.name] || 0) + 1;
          rule.left--;
          rule.dropped++;
          if (rule.request) {
            held = true;
            Promise.resolve().then(rule.meanwhile).finally(close);
            return;
          }
          doomed.add(msg.readInt32LE(4));
        }
      }
      up.write(msg);
    }));
    up.on('data', messageSplitter((msg) => {
      if (doomed.has(msg.readInt32LE(8))) { close(); return; }
      client.write(msg);
    }));
    for (const s of [client, up]) {
      s.on('error', close);
      s.on('close', () => { sockets.delete(s); close(); });
    }
  });
  await new Promise((resolve) => { server.listen(0, '127.0.0.1', resolve); });
  return {
    port: server.address().port,
    drop(name, count) {
      const rule = { name, key: Buffer.from(`${name}\0`), left: count, dropped: 0 };
      rules.push(rule);
      return rule;
    },
    // The next `count` commands naming `name` never reach the server: meanwhile() runs (awaited),
    // then the client's connection is closed.
    swallow(name, count, meanwhile = async () => {}) {
      const rule = {
        name, key: Buffer.from(`${name}\0`), left: count, dropped: 0, request: true, meanwhile,
      };
      rules.push(rule);
      return rule;
    },
    close() {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => { server.close(() => resolve()); });
    },
  };
}

module.exports = { startDropReplyProxy };
