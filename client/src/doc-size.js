'use strict';
// Exact BSON size of a generated document, to reject parameters MongoDB
// would refuse (16 MiB per document) before a run starts.
const { bsonBytes, FLAT } = require('./shape');

const MONGODB_MAX_BSON_BYTES = 16 * 1024 * 1024;

// _id element: type byte + "_id\0" + payload.
const ID_ELEMENT_BYTES = {
  binary: 1 + 4 + (4 + 1 + 16), // Binary subtype 4: length, subtype, 16 bytes
  string: 1 + 4 + (4 + 36 + 1), // string: length, 36 chars, NUL
};

function maxDocumentBytes(fields, fieldBytes, keyFormat = 'binary', shape = FLAT) {
  // Every field costs at least its bytes + 7: a shape far past the limit is
  // answered without building it.
  const lower = fields * (fieldBytes + 7);
  if (lower > MONGODB_MAX_BSON_BYTES * 2) return lower;
  return bsonBytes(fields, fieldBytes, shape, ID_ELEMENT_BYTES[keyFormat]);
}

module.exports = { maxDocumentBytes, MONGODB_MAX_BSON_BYTES, ID_ELEMENT_BYTES };
