'use strict';
// The original study's generator, rebuilt from its description for
// comparison only: one Math.random per character, an array joined per field.
const CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function originalField(length) {
  return Array.from({ length }, () => CHARS[Math.floor(Math.random() * CHARS.length)]).join('');
}

function originalDocument(fields, fieldBytes) {
  const doc = {};
  for (let i = 1; i <= fields; i++) doc[`attr${i}`] = originalField(fieldBytes);
  return doc;
}

module.exports = { originalDocument };
