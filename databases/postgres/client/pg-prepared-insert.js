'use strict';
// One prepared single-row INSERT, sent as a pre-serialized message on pg's
// own connection.
//
// Why not client.query({name, text, values}): per insert, pg's Query
// serializes four messages (Bind, Describe, Execute, Sync) into its writer,
// copying the 10 kB document, maps every value, builds a Result and parses a
// NoData reply it does not need. Profiled at 1000 docs/s that was about
// 35 us of client CPU per document, as much as the database's reply wake-up.
// Here the Bind+Execute+Sync bytes are serialized once by pg-protocol (pg's
// own serializer) and only the parameter bytes are rewritten in place per
// document; the message goes through pg's client queue as a "submittable"
// (the extension point pg-cursor uses), so pg still owns the socket, parses
// every reply and routes errors and connection loss exactly as for a Query.
const { clientRequire } = require('../../../client/src/sdk');
const { serialize } = clientRequire('pg-protocol');

// The submittable handed to client.query(): pg calls submit() when the
// connection is free, then one of handleError / handleReadyForQuery, which
// resolves to the command tag ("INSERT 0 1": its last number is the rows
// written; a statement without RETURNING yields nothing else to keep).
class StatementSubmittable {
  constructor(message, resolve, reject) {
    this.message = message;
    this.resolve = resolve;
    this.reject = reject;
    this.tag = null;
  }

  submit(connection) {
    connection.stream.write(this.message);
    return null;
  }

  handleError(err) { this.reject(err); }

  handleReadyForQuery() { this.resolve(this.tag); }

  handleCommandComplete(msg) { this.tag = msg.text; }

  handleEmptyQuery() {}

  handleRowDescription() {}

  handleDataRow() {}

  handlePortalSuspended() {}

  handleCopyInResponse(connection) { connection.sendCopyFail('jsonbench inserts never copy'); }

  handleCopyData() {}
}

class PreparedInsert {
  // name: a statement prepared on the session (its parameter types declared,
  // so the binary formats are exact); sizes: byte length of each parameter
  // (every document of a run has the same length).
  constructor({ name, sizes }) {
    this.sizes = sizes;
    const placeholders = sizes.map((n) => Buffer.alloc(n));
    const bind = serialize.bind({ statement: name, values: placeholders });
    this.message = Buffer.concat([bind, serialize.execute(), serialize.sync()]);
    // Bind ends with the parameters, each an int32 length and its bytes,
    // then int16 result-format count and one int16 format code.
    this.offsets = [];
    let end = bind.length - 4;
    for (let i = sizes.length - 1; i >= 0; i--) {
      const at = end - sizes[i];
      if (this.message.readInt32BE(at - 4) !== sizes[i]) throw new Error(`pg Bind layout not as expected at parameter ${i + 1}`);
      this.offsets[i] = at;
      end = at - 4;
    }
  }

  // The bytes of parameter i inside the message, rewritten in place before
  // each send().
  param(i) {
    return this.message.subarray(this.offsets[i], this.offsets[i] + this.sizes[i]);
  }

  // The message is rewritten for the next document only after this insert
  // has settled: the server replies after reading all of it, so the socket
  // no longer holds it by then (one insert in flight per connection).
  send(client) {
    return new Promise((resolve, reject) => {
      client.query(new StatementSubmittable(this.message, resolve, reject));
    });
  }
}

module.exports = { PreparedInsert, StatementSubmittable };
