'use strict';
// The probe's own reading of a container's processes' /proc/<pid>/io (lab/driver/cgroup_processes.py
// `io`, what the lab's driver reads at each window mark), for tests that hold the kernel's figure
// against a server's counter: the same Python code, on the host's python3, for the container's main
// process (docker inspect .State.Pid).
const { execFileSync } = require('child_process');
const path = require('path');

const ROOT = path.resolve(__dirname, '../../..');

function containerIo(containerId) {
  const pid = execFileSync('docker', ['inspect', '-f', '{{.State.Pid}}', containerId], { encoding: 'utf8' }).trim();
  const out = JSON.parse(execFileSync('python3', ['-m', 'lab.driver.cgroup_processes', 'io', pid], { cwd: ROOT, encoding: 'utf8' }));
  if (out.error) throw new Error(`the probe could not read the container's /proc/<pid>/io: ${out.error}`);
  return out;
}

// The window's bytes of a field (read_bytes, rchar) between two readings, as analysis/figures/read_io.py
// takes them (the sums' difference; a process that ended was reaped by a process of the container:
// its bytes are in its parent's counter).
const sum = (reading, field) => reading.processes.reduce((n, p) => n + p[field], 0);
const ioDelta = (a, b, field) => sum(b, field) - sum(a, field);

module.exports = { containerIo, ioDelta };
