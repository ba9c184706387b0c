'use strict';
// The 16-byte key of a TSBS bucket document (ingest model "bucket": one document per host and UTC
// hour), derived from its bucket id text `<hostname>@<hour ISO>` (tsbs-devops.js bucketId) as a
// name-based UUID version 5 (RFC 9562 §5.5: SHA-1 of namespace bytes + name bytes, version and
// variant bits set). Why v5: it is the standard derivation of a UUID from a name, so the key is the
// same 16 bytes on both databases (BSON Binary subtype 4 / uuid) and anyone can recompute it, e.g.
// PostgreSQL's uuid-ossp `uuid_generate_v5(namespace, id)` gives the same value (tested).
const crypto = require('crypto');

// Our own namespace (a fixed random UUID), so bucket keys never collide with another v5 use of
// the same names.
const TSBS_BUCKET_NAMESPACE = 'd2a3c1e4-5b6f-4c7d-8e9f-0a1b2c3d4e5f';
const NAMESPACE_BYTES = Buffer.from(TSBS_BUCKET_NAMESPACE.replace(/-/g, ''), 'hex');

// bucketId: '<hostname>@<hour ISO>' -> Buffer(16).
function bucketKey(bucketId) {
  const h = crypto.createHash('sha1').update(NAMESPACE_BYTES).update(bucketId, 'utf8').digest();
  const b = h.subarray(0, 16);
  b[6] = (b[6] & 0x0f) | 0x50; // version 5
  b[8] = (b[8] & 0x3f) | 0x80; // RFC 4122/9562 variant 10xx
  return Buffer.from(b);
}

module.exports = { bucketKey, TSBS_BUCKET_NAMESPACE };
