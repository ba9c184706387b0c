'use strict';
// Exact BSON size of a generated document, to reject parameters MongoDB
// would refuse (16 MiB per document) before a run starts.
const MONGODB_MAX_BSON_BYTES = 16 * 1024 * 1024;

// _id element: type byte + "_id\0" + payload.
const ID_ELEMENT_BYTES = {
  binary: 1 + 4 + (4 + 1 + 16), // Binary subtype 4: length, subtype, 16 bytes
  string: 1 + 4 + (4 + 36 + 1), // string: length, 36 chars, NUL
};

function maxDocumentBytes(fields, fieldBytes, keyFormat = 'binary') {
  let bytes = 4 + 1 + ID_ELEMENT_BYTES[keyFormat]; // length prefix + trailing NUL + _id
  for (let i = 1; i <= fields; i++) {
    const name = `attr${i}`.length + 1;
    bytes += 1 + name + 4 + fieldBytes + 1;
    if (bytes > MONGODB_MAX_BSON_BYTES * 2) break; // already far too big; avoid a long loop
  }
  return bytes;
}

module.exports = { maxDocumentBytes, MONGODB_MAX_BSON_BYTES };
