'use strict';
// Runs `node client ...` as a separate process (exactly as users do) and
// collects its output; killed by pid if it outlives `timeoutMs`.
const { spawn } = require('child_process');
const path = require('path');

const CLIENT_DIR = path.resolve(__dirname, '../..');

function startCli(args, { timeoutMs = 60000, env = {} } = {}) {
  const child = spawn(process.execPath, [CLIENT_DIR, ...args], {
    env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => { stdout += d; });
  child.stderr.on('data', (d) => { stderr += d; });
  let timedOut = false;
  const timer = setTimeout(() => { timedOut = true; child.kill('SIGKILL'); }, timeoutMs);
  const started = Date.now();
  const done = new Promise((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, timedOut, seconds: (Date.now() - started) / 1000 });
    });
  });
  return { child, done, output: () => stdout };
}

const runCli = (args, opts) => startCli(args, opts).done;

module.exports = { startCli, runCli };
