'use strict';
// A server process's I/O as the lab's probe reads it, and a cold page cache for a server's files:
// the MongoDB stand-in's read I/O tests (databases/mongodb/client/test/) hold the lab's figure
// against these.
const { execFileSync } = require('child_process');
const path = require('path');

const ROOT = path.resolve(__dirname, '../../..');

// The probe's own per-process reading of PID (lab/driver/cgroup_processes.py process_counters: the
// lab reads every process of a container this way): {read_bytes, rchar, ...}.
function processCounters(pid) {
  return JSON.parse(execFileSync('python3', ['-c', `import json, sys
from lab.driver import cgroup_processes as c
print(json.dumps(c.process_counters(int(sys.argv[1]), "/proc")))`, String(pid)], { cwd: ROOT, encoding: 'utf8' }));
}

// Every file under DIR synced, then its pages dropped from the page cache (posix_fadvise DONTNEED:
// clean pages only, this folder's files only; nothing else of the host's cache).
function dropPageCache(dir) {
  execFileSync('python3', ['-c', `import os, sys
for root, _, files in os.walk(sys.argv[1]):
    for f in files:
        fd = os.open(os.path.join(root, f), os.O_RDONLY)
        try:
            os.fsync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)`, dir]);
}

module.exports = { processCounters, dropPageCache };
