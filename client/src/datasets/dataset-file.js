'use strict';
// A user's own events file (bench key DATASET): one JSON object per line,
// `.ndjson` or `.ndjson.gz`, loaded instead of generated events, the same
// bytes on both databases. Files may be GBs: everything streams, a line at a
// time, and nothing holds more than one chunk plus one line.
//
// Numbering (docs/datasets.md "A user's events file"): event i is the i-th
// non-empty line (0-based); an empty or whitespace-only line is skipped and
// is no event, but it still counts in the file's line numbers, so an error
// names the line as an editor shows it (1-based). CRLF line ends and a UTF-8
// byte order mark at the start are accepted.
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');
const { pipeline } = require('stream');
const { spawnSync } = require('child_process');
const { InputError } = require('../bench-schema');

const NEWLINE = 0x0a;
const utf8 = new TextDecoder('utf-8', { fatal: true });

function resolveFile(file, benchDir) {
  if (typeof file !== 'string' || !/\.ndjson(\.gz)?$/.test(file)) {
    throw new InputError(`DATASET=${JSON.stringify(file)}: allowed: a path ending in .ndjson or .ndjson.gz`);
  }
  return path.isAbsolute(file) ? file : path.resolve(benchDir || '.', file);
}

// The file's bytes, decompressed when it ends in .gz. Errors (missing file,
// not gzip, truncated gzip) come out of the iteration, named by the caller.
function openBytes(abs) {
  const raw = fs.createReadStream(abs, { highWaterMark: 1 << 20 });
  if (!abs.endsWith('.gz')) return raw;
  const gunzip = zlib.createGunzip();
  pipeline(raw, gunzip, () => {}); // an error of either ends the iteration of gunzip
  return gunzip;
}

function describeStreamError(err) {
  if (err.code === 'ENOENT') return 'no such file';
  if (err.code === 'EACCES') return 'permission denied';
  if (err.code === 'EISDIR') return 'is a directory';
  if (err.code === 'Z_DATA_ERROR') return `not valid gzip data (${err.message})`;
  if (err.code === 'Z_BUF_ERROR' || /unexpected end of file/.test(err.message)) return 'the gzip data ends early (truncated file)';
  return err.code ? `${err.code}: ${err.message}` : err.message;
}

// Yields {lineNo (1-based), bytes (Buffer, without the line end)} for every
// line, empty ones included.
async function* rawLines(abs, shown) {
  const stream = openBytes(abs);
  let rest = null;
  let lineNo = 0;
  try {
    for await (const chunk of stream) {
      let buf = rest ? Buffer.concat([rest, chunk]) : chunk;
      let from = 0;
      for (let nl = buf.indexOf(NEWLINE, from); nl !== -1; nl = buf.indexOf(NEWLINE, from)) {
        lineNo++;
        yield { lineNo, bytes: buf.subarray(from, nl) };
        from = nl + 1;
      }
      rest = from < buf.length ? Buffer.from(buf.subarray(from)) : null;
      buf = null;
    }
  } catch (err) {
    if (err instanceof InputError) throw err;
    throw new InputError(`${shown}: cannot read DATASET: ${describeStreamError(err)}`);
  } finally {
    stream.destroy();
  }
  if (rest && rest.length) yield { lineNo: lineNo + 1, bytes: rest };
}

const isBlank = (bytes) => {
  for (const b of bytes) if (b !== 0x20 && b !== 0x09 && b !== 0x0d) return false;
  return true;
};

// One line -> the event object, or an InputError naming file:line and what is wrong.
function parseLine(bytes, lineNo, shown) {
  let text;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new InputError(`${shown}:${lineNo}: not valid UTF-8`);
  }
  if (lineNo === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  let doc;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new InputError(`${shown}:${lineNo}: not valid JSON (${err.message}); each line must be one JSON object`);
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) {
    const what = doc === null ? 'null' : Array.isArray(doc) ? 'an array' : `a ${typeof doc}`;
    throw new InputError(`${shown}:${lineNo}: is ${what}, not a JSON object; each line must be one JSON object`);
  }
  return doc;
}

function checkSplit(clients, clientIndex) {
  if (!Number.isSafeInteger(clients) || clients < 1) throw new Error(`dataset-file: clients=${JSON.stringify(clients)} is not allowed; clients must be an integer >= 1`);
  if (!Number.isSafeInteger(clientIndex) || clientIndex < 0 || clientIndex >= clients) {
    throw new Error(`dataset-file: clientIndex=${JSON.stringify(clientIndex)} is not allowed; clientIndex must be an integer in 0..${clients - 1}`);
  }
}

// The events of one client: event i (the i-th non-empty line) when
// i % clients == clientIndex, as {index: floor(i / clients), doc}, in file
// order. Only this client's lines are parsed (every client reads the file).
async function* clientEvents(file, { clients = 1, clientIndex = 0, benchDir } = {}) {
  checkSplit(clients, clientIndex);
  const abs = resolveFile(file, benchDir);
  let i = 0;
  for await (const { lineNo, bytes } of rawLines(abs, file)) {
    if (isBlank(bytes)) continue;
    if (i % clients === clientIndex) yield { index: Math.floor(i / clients), doc: parseLine(bytes, lineNo, file) };
    i++;
  }
}

// Every event of the file, each line checked (so a bad line is refused
// before a bench starts, not in the middle of a load). Returns the count.
async function countEventsAsync(file, benchDir) {
  const abs = resolveFile(file, benchDir);
  let n = 0;
  for await (const { lineNo, bytes } of rawLines(abs, file)) {
    if (isBlank(bytes)) continue;
    parseLine(bytes, lineNo, file);
    n++;
  }
  return n;
}

// Synchronous (plan.js is): the streaming count runs in a child node process
// (zlib has no synchronous streaming inflate, and a GB file must not be read
// into memory). Throws InputError with the child's message.
function countEvents(file, benchDir) {
  resolveFile(file, benchDir); // a bad name is refused here, without a child
  const r = spawnSync(process.execPath, [__filename, '--count', file, benchDir || '.'], {
    encoding: 'utf8', maxBuffer: 1 << 20,
  });
  if (r.error) throw new Error(`dataset-file: cannot count ${file}: ${r.error.message}`);
  let out;
  try {
    out = JSON.parse(r.stdout);
  } catch {
    throw new Error(`dataset-file: counting ${file} failed (exit ${r.status}): ${r.stderr.trim().slice(-2000)}`);
  }
  if (out.error) throw new InputError(out.error);
  return out.count;
}

if (require.main === module && process.argv[2] === '--count') {
  countEventsAsync(process.argv[3], process.argv[4])
    .then((count) => process.stdout.write(`${JSON.stringify({ count })}\n`))
    .catch((err) => {
      if (!(err instanceof InputError)) { console.error(err.stack); process.exitCode = 1; return; }
      process.stdout.write(`${JSON.stringify({ error: err.message })}\n`);
    });
}

module.exports = { clientEvents, countEvents, countEventsAsync, resolveFile };
