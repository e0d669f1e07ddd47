// Lantern's page dependency graph of each navigation of a trace, as DevTools' trace engine builds
// it (npm @paulirish/trace_engine 0.0.65, `lantern/graph/PageDependencyGraph.createGraph`, called
// by the engine's `#createLanternContext` for every main-frame navigation).
//   node lantern-oracle.mjs TRACE.json[.gz]  > lantern.json
// The engine is found as insights-oracle.mjs finds it: $TRACE_ENGINE or node_modules next to this
// script. Output: {tool, file, graphs: [{root_url, nodes: [{type ('network'|'cpu'), id (a request
// id, `:redirect` per redirect hop; `tid.ts` for a task), url (network), start_us, end_us,
// dependencies: [id]}]}]} — one graph per navigation the engine built one for, in navigation
// order; nodes in the engine's breadth-first order from the root (each node's dependents in the
// order the engine added them), dependencies in the order the engine added them.
// Each graph also carries `lantern` — the engine's simulation of it: `{network: {rtt_ms,
// throughput_bps, additional_rtt_by_origin, server_response_time_by_origin}, fcp, lcp}`, each
// metric `{timing_ms, optimistic, pessimistic}`, each simulation `{time_ms, nodes: [{id,
// start_ms, end_ms}]}` in the engine's order (by simulated start) — or `null` when the engine
// stopped before simulating (its error is on stderr).
import {createRequire} from 'node:module';
import {readTrace} from './trace-file.mjs';
const require = createRequire(import.meta.url);
let base = process.env.TRACE_ENGINE || require.resolve('@paulirish/trace_engine/package.json').replace(/package\.json$/, '');
if (!base.endsWith('/')) base += '/';
globalThis.DOMRect ??= class DOMRect { constructor(x = 0, y = 0, w = 0, h = 0) { Object.assign(this, {x, y, width: w, height: h, top: y, left: x, right: x + w, bottom: y + h}); } };
for (const k of ['log', 'info', 'debug', 'warn']) console[k] = (...a) => console.error(...a);   // stdout is for the JSON only
const Trace = await import(base + 'models/trace/trace.js');
const Lantern = await import(base + 'models/trace/lantern/lantern.js');

// The engine builds the graph inside its processor and keeps only what the insights need of it:
// wrap the builder to see each graph as it is made.
const graphs = [];
const PDG = Lantern.Graph.PageDependencyGraph;
const createGraph = PDG.createGraph;
PDG.createGraph = function (...args) {
  const root = createGraph.apply(this, args);
  graphs.push(root);
  return root;
};

// Likewise the network analysis and the FCP/LCP metrics, each attached to the graph made last.
const lantern = new Map();
const attach = (key, value) => {
  const g = graphs.at(-1);
  if (!g) return;
  lantern.set(g, {...(lantern.get(g) ?? {}), [key]: value});
};
const NA = Lantern.Core.NetworkAnalyzer;
const analyze = NA.analyze;
NA.analyze = function (...args) {
  const a = analyze.apply(this, args);
  if (a) {
    attach('network', {rtt_ms: a.rtt, throughput_bps: a.throughput,
      additional_rtt_by_origin: Object.fromEntries(a.additionalRttByOrigin),
      server_response_time_by_origin: Object.fromEntries(a.serverResponseTimeByOrigin)});
  }
  return a;
};
const simulation = (s) => ({time_ms: s.timeInMs,
  nodes: [...s.nodeTimings].map(([n, t]) => ({id: n.id, start_ms: t.startTime, end_ms: t.endTime}))});
for (const [key, Metric] of [['fcp', Lantern.Metrics.FirstContentfulPaint], ['lcp', Lantern.Metrics.LargestContentfulPaint]]) {
  const compute = Metric.compute;
  Metric.compute = function (...args) {
    const r = compute.apply(this, args);
    attach(key, {timing_ms: r.timing, optimistic: simulation(r.optimisticEstimate), pessimistic: simulation(r.pessimisticEstimate)});
    return r;
  };
}

const {file, events, metadata} = readTrace('lantern-oracle.mjs');
const model = Trace.TraceModel.Model.createWithAllHandlers();
await model.parse(events, {metadata, isFreshRecording: false});

const out = graphs.map((root) => {
  const nodes = [];
  root.traverse((n) => nodes.push({type: n.type, id: n.id, ...(n.type === 'network' ? {url: n.request.url} : {}),
    start_us: n.startTime, end_us: n.endTime, dependencies: n.getDependencies().map((d) => d.id)}));
  const l = lantern.get(root);
  return {root_url: root.request.url, nodes, lantern: l?.fcp && l?.lcp ? l : null};
});
process.stdout.write(JSON.stringify({tool: 'lantern page dependency graph (@paulirish/trace_engine)', file: file.split('/').pop(), graphs: out}) + '\n');
