'use strict';
// DIGEST=documents: every document read back after a phase (by `count`, outside the window) and
// digested, so that the databases of a run can be shown to hold the same keys and documents.
// Each binding's readBack(key) yields [keyHex | null, document] in any order: the 16-byte key as
// 32 lowercase hex digits (MongoDB Binary subtype 4 or its string form, PostgreSQL uuid, MySQL
// BINARY(16) all give the same), null for KEY=sequence (server-made keys, which differ by design:
// MongoDB ObjectIds, PostgreSQL identity, MySQL AUTO_INCREMENT). A document is compared as a JSON
// value: keys sorted, no whitespace (jsonb and MySQL's binary JSON re-order keys and add spaces;
// MongoDB's _id is the key, not part of the document). The lines
// `key \t sha256(canonical document)` are sorted before the final sha256, so the digest does not
// depend on the order a server returns rows in. keys_sha256 digests the sorted keys alone: after
// concurrent updates of one field (YCSB's clients choose keys independently) each server holds the
// last value it applied, so documents may differ legitimately while the keys may not.
const crypto = require('crypto');

function canonical(v) {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

const sha256 = (text) => crypto.createHash('sha256').update(text).digest('hex');

async function documentsDigest(target, key) {
  const lines = [];
  const keys = [];
  let bytes = 0;
  for await (const [keyHex, doc] of target.readBack(key)) {
    const text = canonical(doc);
    bytes += Buffer.byteLength(text);
    lines.push(`${keyHex ?? ''}\t${sha256(text)}`);
    if (keyHex !== null) keys.push(keyHex);
  }
  lines.sort();
  keys.sort();
  return {
    documents: lines.length,
    sha256: sha256(lines.join('\n')),
    keys_sha256: key === 'sequence' ? null : sha256(keys.join('\n')),
    canonical_bytes: bytes,
    keys: key === 'sequence' ? 'not compared: KEY=sequence keys are made by each server' : 'compared: 16-byte keys as hex',
    about: 'sha256 over the sorted lines "key<TAB>sha256(document as JSON with sorted keys, no whitespace)"',
  };
}

// The read-back of a SQL binding: pages of PAGE_ROWS rows in key order, each after the last key of
// the one before (keyset pagination: no OFFSET rescans, one round trip a page). fetchPage(after, n):
// rows [id, keyHex | null, document text], `after` null for the first page; document(text): the
// document of a row's third column (default: the JSON text parsed; a relational form's binding
// passes its row's document as is).
const PAGE_ROWS = 1000;
async function* keysetReadBack(fetchPage, document = JSON.parse) {
  let after = null;
  for (;;) {
    const rows = await fetchPage(after, PAGE_ROWS);
    for (const [, hex, text] of rows) yield [hex, document(text)];
    if (rows.length < PAGE_ROWS) return;
    after = rows[rows.length - 1][0];
  }
}

module.exports = { documentsDigest, canonical, keysetReadBack };
