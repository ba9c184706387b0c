'use strict';
// Write a file so readers see either the old or the complete new content,
// never half a result (the client may be killed at any moment).
const fs = require('fs');
const path = require('path');

function writeFileAtomic(file, text) {
  fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const tmp = `${file}.tmp-${process.pid}`;
  const fd = fs.openSync(tmp, 'w');
  try {
    fs.writeSync(fd, text);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
}

module.exports = { writeFileAtomic };
