// The Summary of a selection as DevTools computes it, from the DevTools trace engine under
// target/oracle: the renderer main thread's entries (trace events and the ProfileCalls the
// engine makes of the samples), each in its category by the engine's own style table
// (`Styles.getEventStyle`, System for a name without one); at each instant the innermost entry
// holds the time; Idle is the rest of the range. Usage: node summary-oracle.mjs ENGINE_DIR
// TRACE PID TID RANGES.json -> {"A..B": {category: ms}} on stdout, ranges in ms from the
// engine's trace bounds' min.
import {readFileSync} from 'node:fs';
import {gunzipSync} from 'node:zlib';

const [engine, file, pid, tid, rangesFile] = process.argv.slice(2);
globalThis.DOMRect ??= class DOMRect {};
const Trace = await import(engine + '/models/trace/trace.js');
let bytes = readFileSync(file);
if (bytes[0] === 0x1f && bytes[1] === 0x8b) bytes = gunzipSync(bytes);
const json = JSON.parse(bytes.toString('utf8'));
const model = Trace.TraceModel.Model.createWithAllHandlers();
await model.parse(json.traceEvents ?? json);
const data = model.parsedTrace(0).data;
const min = data.Meta.traceBounds.min;
const thread = data.Renderer.processes.get(Number(pid)).threads.get(Number(tid));
const category = (e) => Trace.Styles.getEventStyle(e.name)?.category.name ?? 'other';
// Entries as [start, end] in ms from the bounds' min, nested by a stack: each instant is the
// innermost open entry's.
const entries = thread.entries.map((e) => ({s: (e.ts - min) / 1000, e: (e.ts + (e.dur ?? 0) - min) / 1000, c: category(e)}))
  .filter((x) => x.e > x.s).sort((a, b) => a.s - b.s || b.e - a.e);
// Elementary segments of [s, e) with their owner's category.
const segments = [];
const stack = [];
let at = -Infinity;
const emit = (to) => { if (stack.length && to > at) segments.push([at, to, stack[stack.length - 1].c]); at = Math.max(at, to); };
for (const x of entries) {
  while (stack.length && stack[stack.length - 1].e <= x.s) { emit(stack[stack.length - 1].e); stack.pop(); }
  emit(x.s);
  at = x.s;
  stack.push(x);
}
while (stack.length) { emit(stack[stack.length - 1].e); stack.pop(); }
const out = {};
for (const [a, b] of JSON.parse(readFileSync(rangesFile, 'utf8'))) {
  const stats = {};
  let busy = 0;
  for (const [s, e, c] of segments) {
    const t = Math.min(e, b) - Math.max(s, a);
    if (t > 0) { stats[c] = (stats[c] ?? 0) + t; busy += t; }
  }
  stats.idle = Math.max(0, b - a - busy);
  out[`${a}..${b}`] = stats;
}
process.stdout.write(JSON.stringify(out));
