'use strict';
// A bench file with the command line's overrides: `FILE [--set KEY=VALUE]...` (validate-bench, plan).
// The lab plans a run from its bench.env and runme.sh's --set overrides (and a sweep point's KEY=v, a
// repetition's REPEAT=1, a relative DATASET made absolute), with no file in between: the overrides
// are read as lines appended to the file, single-quoted as bash wrote them into run.env before
// plan.json was the only plan, so a later line wins and every value reads as it did then.
const fs = require('fs');
const { InputError } = require('./bench-schema');

// argv: [FILE, --set, K=V, --set=K=V, ...] -> { file, sets: ['K=V', ...] }
function fileAndSets(argv, usage) {
  const files = [];
  const sets = [];
  for (let i = 0; i < argv.length; i++) {
    const m = /^--set(?:=(.*))?$/s.exec(argv[i]);
    if (!m) { files.push(argv[i]); continue; }
    const kv = m[1] !== undefined ? m[1] : argv[++i];
    // a single quote is read back whole (the line's quotes are its first and last character)
    if (kv === undefined || !/^[A-Za-z_][A-Za-z0-9_]*=/.test(kv) || /[\r\n]/.test(kv)) {
      throw new InputError(`--set ${JSON.stringify(kv ?? '')}: expected KEY=VALUE (a bench key, a value on one line)`);
    }
    sets.push(kv);
  }
  if (files.length !== 1) throw new InputError(`${usage}, got ${JSON.stringify(argv)}`);
  return { file: files[0], sets };
}

// The file's text with the overrides appended: what the lab's run.env held.
function benchText(file, sets = []) {
  let text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new InputError(`${file}: cannot read: ${err.code || err.message}`);
  }
  if (!sets.length) return text;
  const lines = sets.map((kv) => `${kv.slice(0, kv.indexOf('='))}='${kv.slice(kv.indexOf('=') + 1)}'`);
  return `${text.replace(/\n?$/, '\n')}${lines.join('\n')}\n`;
}

module.exports = { fileAndSets, benchText };
