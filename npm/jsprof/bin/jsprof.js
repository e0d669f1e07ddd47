#!/usr/bin/env node
'use strict';
// `jsprof` from npm: runs the native binary (see lib/binary.js for which) with this command's
// arguments and stdio, passes on the signals this process gets, and exits as it exited.

const { spawn } = require('node:child_process');
const { findBinary } = require('../lib/binary.js');

let binary;
try {
  binary = findBinary();
} catch (err) {
  if (err.code !== 'NO_BINARY') throw err;
  process.stderr.write(`${err.message}\n`);
  process.exit(1);
}

const child = spawn(binary, process.argv.slice(2), { stdio: 'inherit' });

// A Ctrl-C reaches the binary by itself (same process group); a signal sent to this process
// alone (`timeout`, a CI job cancelled, `kill`) is passed on, so that `jsprof record` saves
// what it recorded rather than being orphaned. The binary treats a repeated SIGINT as one.
const signals =
  process.platform === 'win32' ? ['SIGINT', 'SIGTERM', 'SIGBREAK'] : ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'];
const forward = (signal) => {
  try {
    child.kill(signal);
  } catch {
    // it has exited
  }
};
for (const signal of signals) process.on(signal, forward);

child.on('error', (err) => {
  process.stderr.write(`jsprof: cannot run ${binary}: ${err.message}\n`);
  process.exit(1);
});

child.on('exit', (code, signal) => {
  for (const s of signals) process.removeListener(s, forward);
  if (signal) {
    // Die of the same signal, so that the caller sees what the binary saw.
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code ?? 1);
});
