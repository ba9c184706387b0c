'use strict';
// Seeded document generator: fields attr1..attrN, each exactly fieldBytes
// characters from a 62-character alphanumeric alphabet.
//
// Why it is built this way: the original study drew one Math.random per
// character and joined an array per field, which costs more CPU than the
// insert it feeds. Here one 32-bit PRNG output yields two 16-bit draws, each
// mapped through a table straight to a pair of characters, so a 10 x 1000 B
// document needs ~2,500 PRNG steps and no per-character allocation.
// Each document is seeded from (seed, client id, document index) so document
// i is the same whatever was dropped or sent before it.
const { Sfc32, hashString } = require('./prng');
const { tree, FLAT } = require('./shape');

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const PAIRS = ALPHABET.length * ALPHABET.length; // 3844
// Largest multiple of 3844 below 2^16: draws at or above it are rejected so
// every character pair is exactly equally likely (uniform, no modulo bias).
const ACCEPT_BELOW = Math.floor(65536 / PAIRS) * PAIRS; // 65348

// PAIR_TABLE[v] is two characters; filled byte-wise so memory holds the same
// bytes on little- and big-endian machines (identical documents everywhere).
const PAIR_TABLE = (() => {
  const table = new Uint16Array(ACCEPT_BELOW);
  const bytes = new Uint8Array(table.buffer);
  for (let v = 0; v < ACCEPT_BELOW; v++) {
    const p = v % PAIRS;
    bytes[2 * v] = ALPHABET.charCodeAt((p / ALPHABET.length) | 0);
    bytes[2 * v + 1] = ALPHABET.charCodeAt(p % ALPHABET.length);
  }
  return table;
})();

// Fill `pairs` 16-bit slots of `out` (Uint16Array) from `rng`. The sfc32
// step is inlined on local variables: V8 keeps them in registers, which
// roughly halves the cost against calling rng.next() per word.
function fillPairs(rng, out, pairs) {
  let a = rng.a, b = rng.b, c = rng.c, d = rng.d;
  let j = 0;
  while (j < pairs) {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (((c << 21) | (c >>> 11)) + t) | 0;
    const lo = t & 0xffff;
    if (lo < ACCEPT_BELOW) out[j++] = PAIR_TABLE[lo];
    const hi = t >>> 16;
    if (hi < ACCEPT_BELOW && j < pairs) out[j++] = PAIR_TABLE[hi];
  }
  rng.a = a; rng.b = b; rng.c = c; rng.d = d;
}

class DocumentGenerator {
  // shape: { name: 'flat' } (default) or { name: 'nested', depth, fanout } (shape.js).
  constructor({ seed, clientId, fields, fieldBytes, shape = FLAT }) {
    this.seed = seed >>> 0;
    this.clientHash = hashString(String(clientId));
    this.fields = fields;
    this.fieldBytes = fieldBytes;
    this.shape = shape;
    this.nested = shape.name === 'nested' ? tree(fields, shape) : null;
    this.names = Array.from({ length: fields }, (_, i) => `attr${i + 1}`);
    const chars = fields * fieldBytes;
    this.pairs = Math.ceil(chars / 2);
    // Own ArrayBuffer so the Uint16Array view is aligned.
    this.scratch16 = new Uint16Array(this.pairs);
    this.scratch = Buffer.from(this.scratch16.buffer, 0, chars);
    // One view per field, made once: copying through a fresh subarray per
    // field and document allocated 10 typed arrays per document.
    this.fieldViews = this.names.map((_, i) => this.scratch.subarray(i * fieldBytes, (i + 1) * fieldBytes));
    this.rng = new Sfc32(0, 0, 0, 0);
    this.buildJsonTemplate();
  }

  // The JSON text with every value slot left blank: a document's JSON is
  // this template with the random characters copied into the slots. No
  // escaping is needed: the alphabet has no JSON specials.
  buildJsonTemplate() {
    const parts = [];
    this.valueOffsets = new Array(this.fields);
    let len = 0;
    const emit = (text) => { parts.push(text); len += text.length; };
    const object = (node) => {
      emit('{');
      node.entries.forEach(([name, child], i) => {
        emit(`${i ? ',' : ''}"${name}":`);
        if (child.kind === 'object') {
          object(child);
        } else {
          emit('"');
          this.valueOffsets[child.field] = len;
          emit(' '.repeat(this.fieldBytes));
          emit('"');
        }
      });
      emit('}');
    };
    object(this.nested || { entries: this.names.map((name, k) => [name, { kind: 'field', field: k }]) });
    this.jsonTemplate = Buffer.from(parts.join(''), 'latin1');
    this.jsonLength = this.jsonTemplate.length;
  }

  // Random characters of document `index`, all fields concatenated.
  chars(index) {
    fillPairs(this.rng.reseed(this.seed, this.clientHash, index >>> 0), this.scratch16, this.pairs);
    return this.scratch;
  }

  // A Buffer of `prefix` bytes (zero) followed by room for the JSON text,
  // for jsonInto(). The caller owns it and may reuse it for every document.
  jsonBuffer(prefix = 0) {
    const buf = Buffer.alloc(prefix + this.jsonLength);
    this.jsonTemplate.copy(buf, prefix);
    return buf;
  }

  // Writes the JSON text of document `index` into `buf` (from jsonBuffer(offset))
  // at `offset`: only the value slots change, the template around them stays.
  // Lets a target send the bytes without building a JS string first.
  jsonInto(index, buf, offset = 0) {
    this.chars(index);
    for (let i = 0; i < this.fields; i++) {
      buf.set(this.fieldViews[i], offset + this.valueOffsets[i]);
    }
    return buf;
  }

  // The FIELDS values of document `index` as Buffers (views of the generator's scratch, valid until
  // its next document), attr1 first: a relational form's columns (flat documents only: a nested
  // shape's values are the same characters, but its fields are not a row's columns).
  fieldBuffers(index) {
    this.chars(index);
    return this.fieldViews;
  }

  // The same values as strings (MySQL's relational parameters).
  fieldStrings(index) {
    return this.fieldBuffers(index).map((b) => b.latin1Slice(0, b.length));
  }

  // JSON text of document `index`, as a string (same bytes as jsonInto).
  json(index) {
    if (!this.jsonScratch) this.jsonScratch = this.jsonBuffer(0);
    return this.jsonInto(index, this.jsonScratch, 0).latin1Slice(0, this.jsonLength);
  }

  // Plain object of document `index` (what MongoDB receives), same field
  // order and characters as json(index).
  object(index) {
    const src = this.chars(index);
    const B = this.fieldBytes;
    if (this.nested) return this.nestedObject(this.nested, src);
    const doc = {};
    for (let i = 0; i < this.fields; i++) {
      doc[this.names[i]] = src.latin1Slice(i * B, (i + 1) * B);
    }
    return doc;
  }

  nestedObject(node, src) {
    const B = this.fieldBytes;
    const doc = {};
    for (const [name, child] of node.entries) {
      doc[name] = child.kind === 'object' ? this.nestedObject(child, src) : src.latin1Slice(child.field * B, (child.field + 1) * B);
    }
    return doc;
  }

  // A field value of fieldBytes alphabet characters (a string) from the
  // seed words (w0, w1, w2): an update's new value, reproducible from the
  // operation's own seed like a document from its index.
  value(w0, w1, w2) {
    if (!this.valueScratch16) {
      this.valueScratch16 = new Uint16Array(Math.ceil(this.fieldBytes / 2));
      this.valueScratch = Buffer.from(this.valueScratch16.buffer, 0, this.fieldBytes);
      this.valueRng = new Sfc32(0, 0, 0, 0);
    }
    fillPairs(this.valueRng.reseed(w0, w1, w2), this.valueScratch16, this.valueScratch16.length);
    return this.valueScratch.latin1Slice(0, this.fieldBytes);
  }
}

module.exports = { DocumentGenerator, ALPHABET };
