// Holds ~TARGET_MB of real objects (ASTs of a large JavaScript file parsed with acorn from npm), then
// writes a heap snapshot of itself. Usage: node workload.js OUT.heapsnapshot [TARGET_MB]
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const v8 = require('node:v8');

const out = process.argv[2];
const targetMb = Number(process.argv[3] || 250);
const acornDir = path.dirname(require.resolve('acorn'));
const source = fs.readFileSync(path.join(acornDir, 'acorn.js'), 'utf8');
const acorn = require('acorn');

const kept = [];
while (process.memoryUsage().heapUsed < targetMb * 1024 * 1024) {
  kept.push(acorn.parse(source, {ecmaVersion: 'latest', locations: true}));
}
globalThis.keptAsts = kept;
console.error(`kept ${kept.length} ASTs, heapUsed ${(process.memoryUsage().heapUsed / 1048576).toFixed(0)} MB`);
v8.writeHeapSnapshot(out);
