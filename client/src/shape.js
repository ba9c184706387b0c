'use strict';
// Document shapes: where the FIELDS leaves attr1..attrN sit in a document.
//
// flat: {attr1, ..., attrN} (the original study's documents).
// nested (DEPTH d, FANOUT f): a complete tree of objects d levels deep under
// the root; every inner object has f children named n1..nf, so there are
// L = f^d leaf objects, numbered 0..L-1 in depth-first order (leaf j's path
// is j written in base f, most significant digit first, digit x -> n<x+1>).
// Leaf j holds attr(floor(j*N/L)+1) .. attr(floor((j+1)*N/L)) in order, so
// the JSON text lists attr1..attrN in order and every leaf holds at least
// one field (N >= L is required). Key order inside every object is also
// PostgreSQL jsonb's storage order (shorter keys first, then bytewise), so
// the text PostgreSQL returns equals the text sent, as for flat documents.
//
// Example, FIELDS=3 DEPTH=1 FANOUT=2: {"n1":{"attr1":..},"n2":{"attr2":..,"attr3":..}}

function leafCount(shape) {
  return shape.name === 'nested' ? shape.fanout ** shape.depth : 1;
}

// [{ path: ['n1', 'n2'], fields: [0, 1] }, ...] in depth-first order
// (field k is attr(k+1)).
function leaves(fields, shape) {
  const L = leafCount(shape);
  const out = [];
  for (let j = 0; j < L; j++) {
    const path = [];
    if (shape.name === 'nested') {
      let rest = j;
      for (let level = 0; level < shape.depth; level++) {
        const div = shape.fanout ** (shape.depth - level - 1);
        path.push(`n${Math.floor(rest / div) + 1}`);
        rest %= div;
      }
    }
    const first = Math.floor((j * fields) / L);
    const end = Math.floor(((j + 1) * fields) / L);
    out.push({ path, fields: Array.from({ length: end - first }, (_, i) => first + i) });
  }
  return out;
}

// The tree as nested nodes: { kind: 'object', entries: [[name, node], ...] }
// or { kind: 'field', field: k }.
function tree(fields, shape) {
  const root = { kind: 'object', entries: [] };
  for (const leaf of leaves(fields, shape)) {
    let node = root;
    for (const name of leaf.path) {
      let child = node.entries.length && node.entries[node.entries.length - 1][0] === name
        ? node.entries[node.entries.length - 1][1] : null;
      if (!child) {
        child = { kind: 'object', entries: [] };
        node.entries.push([name, child]);
      }
      node = child;
    }
    for (const k of leaf.fields) node.entries.push([`attr${k + 1}`, { kind: 'field', field: k }]);
  }
  return root;
}

// Path of field k (0-based) as a list of names, e.g. ['n1', 'n2', 'attr3'].
function fieldPaths(fields, shape) {
  const paths = new Array(fields);
  for (const leaf of leaves(fields, shape)) {
    for (const k of leaf.fields) paths[k] = [...leaf.path, `attr${k + 1}`];
  }
  return paths;
}

// Exact BSON size of a document of this shape with a key element of
// `idBytes` bytes (0 for none): objects are int32 length + elements + NUL,
// a string element is type + name NUL + int32 length + bytes + NUL.
function bsonBytes(fields, fieldBytes, shape, idBytes) {
  const size = (node) => {
    let bytes = 4 + 1;
    for (const [name, child] of node.entries) {
      bytes += 1 + name.length + 1 + (child.kind === 'field' ? 4 + fieldBytes + 1 : size(child));
    }
    return bytes;
  };
  if (shape.name !== 'nested') {
    let bytes = 4 + 1 + idBytes;
    for (let i = 1; i <= fields; i++) bytes += 1 + `attr${i}`.length + 1 + 4 + fieldBytes + 1;
    return bytes;
  }
  return size(tree(fields, shape)) + idBytes;
}

const FLAT = Object.freeze({ name: 'flat' });

module.exports = { leaves, tree, fieldPaths, leafCount, bsonBytes, FLAT };
