// "Focus on subtree only" in the browser, driven by crates/jsprof/tests/it/ui_subtree.rs. Usage:
//   node ui-subtree.mjs CASE URL EXPECTED.json SHOTS_DIR
// EXPECTED is what the CLI printed (never the page's output pasted back); trees are
// `jsprof tree --json` answers, compared node by node by their path of folded labels (self and
// total ±0.001 ms; every CLI node over 0.05 % is on the page, every page node is the CLI's).
//   tree   {path, full, focused}: in Call tree, open PATH (labels from the root) and right-click
//          it → Focus on subtree only: the call tree is FOCUSED (`jsprof tree --focus-stack
//          PATH`); the address carries it and reopens it in a new page, the filter line naming
//          the node; the address with a path no stack has opens an empty view whose filter line
//          is the server's warning (not an error); Undo gives FULL back.
//   graph  {path, focused}: the same from the flame graph's frame at PATH.
//   bottom {path, focused}: in Bottom-up, PATH (leaf first) → Focus on subtree only: Bottom-up is
//          FOCUSED (`jsprof tree --bottom-up --focus-stack-inverted PATH --max-depth 2`, its
//          first two levels).
//   chart  {name, focused}: in the flame chart, the widest call of NAME (a function with one call
//          path in the profile) → Focus on subtree only: the chart is drawn again and still
//          draws NAME's calls; the call tree is FOCUSED.
import { launch, newPage, openReady, readJson } from './browser.mjs';
import assert from 'node:assert/strict';

const [kind, url, expectedPath, shots] = process.argv.slice(2);
const expected = readJson(expectedPath);
const browser = await launch();
const errors = [];
const page = await newPage(browser, errors);
const shot = (p, name) => p.screenshot({ path: `${shots}/${name}.png` });

async function open(p, address) {
  await openReady(p, address);
}

async function tab(p, name) {
  await p.click(`#tabs button[data-tab=${name}]`);
  await p.waitForTimeout(300);
}

// `export --folded`'s label of a CLI tree node, built from its JSON fields.
function label(n) {
  let s = n.name === '' ? '(anonymous)' : n.name;
  if (n.url) s += ' ' + n.url + (n.line != null ? ':' + n.line + (n.column != null ? ':' + n.column : '') : '');
  return s.replace(/;/g, ':').replace(/[\r\n]/g, ' ');
}

// A CLI tree answer as Map(path of labels → {self, total, percent}).
function cliTree(answer) {
  const byId = new Map(answer.nodes.map((n) => [n.id, n]));
  const pathOf = (n) => (n.parent == null ? label(n) : pathOf(byId.get(n.parent)) + ';' + label(n));
  return new Map(answer.nodes.map((n) => [pathOf(n), { self: n.self_ms, total: n.total_ms, percent: n.total_percent }]));
}

// The page's tree of one kind as the same map: its node objects, walked from the roots.
async function pageTree(p, which, levels = Infinity) {
  return new Map(await p.evaluate(({ which, levels }) => {
    const out = [];
    const label = (d) => {
      let s = d.name === '' ? '(anonymous)' : d.name;
      if (d.url) s += ' ' + d.url + (d.line != null ? ':' + d.line + (d.column != null ? ':' + d.column : '') : '');
      return s.replace(/;/g, ':').replace(/[\r\n]/g, ' ');
    };
    const walk = (d, prefix, depth) => {
      const key = prefix ? prefix + ';' + label(d) : label(d);
      out.push([key, { self: d.self, total: d.total }]);
      if (depth + 1 < levels) for (const k of d.kids) walk(k, key, depth + 1);
    };
    for (const r of window.jsprof.tables[which].roots) walk(r, '', 0);
    return out;
  }, { which, levels }));
}

async function sameTree(p, which, answer, what, levels) {
  await p.waitForFunction((w) => window.jsprof.tables[w], which);
  const want = cliTree(answer), got = await pageTree(p, which, levels);
  for (const [k, g] of got) {
    const w = want.get(k);
    assert.ok(w, `${what}: the page has ${k}, the CLI has not`);
    assert.ok(Math.abs(w.self - g.self) <= 0.001 && Math.abs(w.total - g.total) <= 0.001, `${what}: ${k}: the page ${g.self}/${g.total} ms, the CLI ${w.self}/${w.total} ms`);
  }
  for (const [k, w] of want) if (w.percent >= 0.05) assert.ok(got.has(k), `${what}: the CLI has ${k} (${w.percent} %), the page has not`);
  assert.ok(got.size > 0, `${what}: an empty tree`);
}

// Waits for the filters the last transform set to be drawn.
async function transformed(p, crumbs) {
  await p.waitForFunction((n) => document.querySelectorAll('#crumbs button:not(#undo)').length === n, crumbs);
  await p.waitForFunction(() => !document.getElementById('f-info').textContent.startsWith('Filtering'));
  await p.waitForTimeout(500);
}

// Opens the row at `path` (labels from the root) of a tree table and right-clicks it.
async function rightClickRow(p, which, path) {
  const found = await p.evaluate(async ({ which, path }) => {
    const t = window.jsprof.tables[which].table;
    const label = (d) => {
      let s = d.name === '' ? '(anonymous)' : d.name;
      if (d.url) s += ' ' + d.url + (d.line != null ? ':' + d.line + (d.column != null ? ':' + d.column : '') : '');
      return s.replace(/;/g, ':').replace(/[\r\n]/g, ' ');
    };
    let list = t.roots, row = null;
    for (const [i, want] of path.entries()) {
      row = list.find((r) => label(r.d) === want);
      if (!row) return `no row ${want} at level ${i}`;
      if (i < path.length - 1) { await t.expand(row, true); list = row.kids; }
    }
    t.render();
    t.select(row, true);
    row.tr.setAttribute('data-subtree-target', '1');
    return null;
  }, { which, path });
  assert.equal(found, null, found);
  await p.click('tr[data-subtree-target]', { button: 'right' });
  await p.click('#menu button[data-transform=subtree]');
}

await open(page, url);
if (kind === 'tree') {
  await tab(page, 'top_down');
  await sameTree(page, 'top_down', expected.full, 'before');
  await rightClickRow(page, 'top_down', expected.path);
  await transformed(page, 2);
  await sameTree(page, 'top_down', expected.focused, 'focused');
  const crumbs = await page.$$eval('#crumbs button:not(#undo)', (bs) => bs.map((b) => b.textContent));
  assert.deepEqual(crumbs, ['Full profile', `Subtree ${expected.path[expected.path.length - 1].split(' ')[0]}`], `breadcrumbs ${crumbs}`);
  const address = page.url();
  const q = new URLSearchParams(address.split('#')[1]);
  assert.deepEqual(q.getAll('focus_stack'), [expected.path.join(';')], `the address: ${address}`);
  await shot(page, 'subtree');
  // The address reopens the focus, in a page of its own.
  const again = await newPage(browser, errors);
  await open(again, address);
  await again.waitForFunction(() => window.jsprof.tables.top_down);
  await again.waitForTimeout(500);
  await sameTree(again, 'top_down', expected.focused, 'reopened from the address');
  const info = await again.textContent('#f-info');
  assert.ok(info.includes(`subtree of ${expected.path[expected.path.length - 1].slice(0, 40)}`), `the filter line: ${info}`);
  // A path no stack has: an empty tree and the server's warning, no error.
  q.set('focus_stack', `${expected.path[0]};nowhere`);
  await again.goto('about:blank'); // a new hash alone would not load the page again
  await open(again, address.split('#')[0] + '#' + q.toString());
  await again.waitForFunction(() => document.getElementById('f-info').textContent.startsWith('Nothing passes'));
  const bad = await again.textContent('#f-info');
  assert.ok(bad.includes('then no stack has `nowhere`'), `the filter line: ${bad}`);
  assert.ok(!(await again.$('#f-info.error')), 'a path that matches nothing is not an error');
  await shot(again, 'subtree-nothing');
  await again.close();
  // Undo: the whole tree, the address without the focus.
  await page.click('#crumbs #undo');
  await page.waitForFunction(() => document.getElementById('crumbs').hidden);
  await page.waitForTimeout(500);
  await sameTree(page, 'top_down', expected.full, 'undo');
  assert.ok(!/focus_stack=/.test(page.url()), `undo left the focus in the address: ${page.url()}`);
} else if (kind === 'graph') {
  await tab(page, 'flamegraph');
  await page.waitForFunction(() => window.jsprof.flamegraph && window.jsprof.flamegraph.maxDepth > 0);
  const at = await page.evaluate((path) => {
    const g = window.jsprof.flamegraph;
    for (let i = 0; i < g.depth.length; i++) if (g.stackOf(i).join(';') === path) { g.scrollTo((g.depth[i] + 3) * 18 - g.wrap.clientHeight / 2); return g.frameBox(i); }
    return null;
  }, expected.path.join(';'));
  assert.ok(at && at.w > 4, `no frame ${expected.path.join(';')} wide enough to click: ${JSON.stringify(at)}`);
  await page.mouse.click(at.x + at.w / 2, at.y + at.h / 2, { button: 'right' });
  await page.click('#menu button[data-transform=subtree]');
  await transformed(page, 2);
  await tab(page, 'top_down');
  await sameTree(page, 'top_down', expected.focused, 'focused from the flame graph');
  await tab(page, 'flamegraph');
  await shot(page, 'subtree-flamegraph');
} else if (kind === 'bottom') {
  await tab(page, 'bottom_up');
  await rightClickRow(page, 'bottom_up', expected.path);
  await transformed(page, 2);
  assert.deepEqual(new URLSearchParams(page.url().split('#')[1]).getAll('focus_stack_inverted'), [expected.path.join(';')], page.url());
  await sameTree(page, 'bottom_up', expected.focused, 'focused from Bottom-up', 2);
} else if (kind === 'chart') {
  await tab(page, 'chart');
  await page.waitForFunction(() => window.jsprof.chart && window.jsprof.chart.stats.frames > 0);
  const at = await page.evaluate((n) => window.jsprof.chart.locate(n), expected.name);
  assert.ok(at, `no call named ${expected.name} is drawn`);
  await page.evaluate(() => { window.chartBefore = window.jsprof.chart; });
  await page.mouse.click(at.x, at.y, { button: 'right' });
  await page.click('#menu button[data-transform=subtree]');
  await transformed(page, 2);
  // The chart is drawn again for the focus, and still draws the node's calls (on a trace, from
  // the CPU samples, which have no engine events on their stacks).
  await page.waitForFunction((n) => window.jsprof.chart && window.jsprof.chart !== window.chartBefore && window.jsprof.chart.stats.frames > 0 && window.jsprof.chart.locate(n), expected.name);
  await shot(page, `subtree-chart-${expected.name || 'anonymous'}`);
  await tab(page, 'top_down');
  await sameTree(page, 'top_down', expected.focused, 'focused from the flame chart');
} else {
  throw new Error(`unknown case ${kind}`);
}
assert.deepEqual(errors, [], 'page errors');
await browser.close();
