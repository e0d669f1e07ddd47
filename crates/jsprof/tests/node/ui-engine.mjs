// The report's range engine (`profileFromChart` in crates/jsprof_server/ui/source.js), run under
// Node on the very module the page loads; tests/it/ui_engine.rs compares its answers with
// `jsprof tree --json --range`.
//
//   node ui-engine.mjs trees REPORT.html A..B [A..B ...]
//     prints {"min_ms", "merged", "ranges": [{"range", "top_down", "bottom_up"}]}, each tree as
//     its nodes in pre-order: {"parent" (index or null), "name", "url", "line", "column",
//     "self_ms", "total_ms"}, from the report's embedded chart (`data.chart`).
//   node ui-engine.mjs keys
//     a synthetic chart with more than 2^20 functions, where a packed (parent, function) key
//     once made two nodes one; exits non-zero when the tree is wrong.

import { readFileSync } from 'node:fs';
import { register } from 'node:module';
import assert from 'node:assert/strict';

// The page's import map, for Node: `jsprof/NAME.js` is ui/NAME.js (should source.js import
// another module of the UI).
const ui = new URL('../../../jsprof_server/ui/', import.meta.url).href;
register('data:text/javascript,' + encodeURIComponent(`
  export async function resolve(specifier, context, next) {
    if (specifier.startsWith('jsprof/')) return { url: new URL(specifier.slice(7), ${JSON.stringify(ui)}).href, shortCircuit: true };
    return next(specifier, context);
  }`));
const { profileFromChart } = await import('jsprof/source.js');

// The JSON `jsprof report` embeds in `<script id="jsprof-data" type="application/json">`.
function embedded(html) {
  const open = '<script id="jsprof-data" type="application/json">';
  const at = html.indexOf(open);
  if (at < 0) throw new Error('no embedded data in the report');
  const end = html.indexOf('</script>', at);
  return JSON.parse(html.slice(at + open.length, end));
}

function nodes(profile, tree) {
  const n = profile[tree].nodes;
  const str = (i) => profile.strings[i];
  return n.p.map((p, i) => {
    const [name, url, line, column] = profile.functions[n.f[i]];
    return { parent: p < 0 ? null : p, name: str(name), url: str(url), line, column, self_ms: n.s[i], total_ms: n.t[i] };
  });
}

function trees(file, ranges) {
  const data = embedded(readFileSync(file, 'utf8'));
  const chart = data.chart;
  const out = { min_ms: chart.min_ms, merged: chart.merged.s.length, ranges: [] };
  for (const r of ranges) {
    const [a, b] = r.split('..').map(Number);
    const p = profileFromChart(chart, [a, b]);
    out.ranges.push({ range: [a, b], top_down: nodes(p, 'top_down'), bottom_up: nodes(p, 'bottom_up') });
  }
  return out;
}

// Calls: A (function 0) [0, 10] > B (function 2^20) [1, 9] > A [2, 8]. With the key
// parent * 2^20 + fn + 1, the node (A under B) took the key of (B under A), so the innermost A
// was counted as B again and the top-down tree had two nodes instead of three.
function keys() {
  const nFunctions = 1048576 + 1;
  const functions = Array.from({ length: nFunctions }, () => [0, 0, null, null]);
  functions[1048576] = [1, 0, null, null];
  const chart = {
    strings: ['A', 'B'],
    functions,
    events: { s: [0, 1, 2], d: [10, 8, 6], p: [-1, 0, 1], f: [0, 1048576, 0] },
  };
  const p = profileFromChart(chart, [0, 10]);
  const td = nodes(p, 'top_down');
  assert.deepEqual(td.map((n) => [n.parent, n.name, n.self_ms, n.total_ms]), [
    [null, 'A', 2, 10],
    [0, 'B', 2, 8],
    [1, 'A', 6, 6],
  ]);
  // Bottom-up: A's total counts the outer call once (10), its self is 2 + 6.
  const bu = nodes(p, 'bottom_up');
  const roots = bu.filter((n) => n.parent === null).map((n) => [n.name, n.self_ms, n.total_ms]);
  assert.deepEqual(roots, [['A', 8, 10], ['B', 2, 8]]);
  return { ok: true };
}

const [cmd, ...args] = process.argv.slice(2);
if (cmd === 'trees') console.log(JSON.stringify(trees(args[0], args.slice(1))));
else if (cmd === 'keys') console.log(JSON.stringify(keys()));
else { console.error('usage: node ui-engine.mjs trees REPORT.html A..B... | keys'); process.exit(2); }
