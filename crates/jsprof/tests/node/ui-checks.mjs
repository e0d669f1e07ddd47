// Browser checks of issue 19's fixes, driven by crates/jsprof/tests/it/ui_fixes.rs. Usage:
//   node ui-checks.mjs CASE URL EXPECTED.json SHOTS_DIR
// EXPECTED is what the CLI printed (never jsprof's page output pasted back):
//   stats      `jsprof heap stats`'s table rows [{name, bytes, text}]: the Statistics legend must
//              list the same slices with the same sizes (±half a unit of the CLI's rounding).
//   dominators {root, children}: `jsprof heap dominators --id ROOT --depth 1 --json`: in a report
//              the Dominators view's first row is ROOT and opening it lists those children;
//              selecting it, Retainers say it is held by the root directly (a GC root).
//   tabs       {absent, present}: tab names that must (not) be in the tab bar.
//   drop       {file, name, functions}: FILE dropped on the page (then picked with the file
//              input) opens as a session whose Functions table has `jsprof top`'s rows.
//   address    {range, top}: with RANGE selected on the Functions tab, the page's address
//              reopens (in a new page) the same tab and range, its table `jsprof top --range`'s.
//   deep       {depth}: the deepest stack of the profile (`jsprof tree --json`): the flame graph
//              scrolls to show it, and zooming into the deepest frame brings it into view.
import { chromium } from 'playwright-core';
import { readFileSync } from 'node:fs';
import assert from 'node:assert/strict';

const [kind, url, expectedPath, shots] = process.argv.slice(2);
const expected = JSON.parse(readFileSync(expectedPath, 'utf8'));
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox'] });
const page = await browser.newPage({ viewport: { width: 1400, height: 860 } });
const errors = [];
page.on('pageerror', (e) => errors.push(e.message));
const shot = (name) => page.screenshot({ path: `${shots}/${name}.png` });

await page.goto(url);
await page.waitForFunction(() => window.jsprof && window.jsprof.ready, null, { timeout: 60000 });

async function tab(name) {
  await page.click(`#tabs button[data-tab=${name}]`);
  await page.waitForTimeout(300);
}

if (kind === 'stats') {
  await tab('statistics');
  await page.waitForSelector('table.legend tr[data-bytes]');
  const rows = await page.$$eval('table.legend tr[data-bytes]', (trs) => trs.map((tr) => ({ name: tr.children[0].textContent.trim(), bytes: Number(tr.dataset.bytes) })));
  assert.deepEqual(rows.map((r) => r.name), expected.map((e) => e.name), 'the slices and their order');
  for (const [r, e] of rows.map((r, i) => [r, expected[i]])) {
    assert.ok(Math.abs(r.bytes - e.bytes) <= e.half_unit, `${r.name}: the page says ${r.bytes} B, the CLI ${e.text}`);
  }
  await shot('heap-statistics');
} else if (kind === 'dominators') {
  await tab('dominators');
  await page.waitForFunction(() => window.jsprof.dominators && window.jsprof.dominators.table.roots.length > 0);
  const got = await page.evaluate(async () => {
    const t = window.jsprof.dominators.table, first = t.roots[0];
    await t.expand(first);
    t.render();
    return { root: first.d.id, children: first.kids.map((r) => r.d.id).filter((id) => id != null) };
  });
  assert.equal(got.root, expected.root, 'the first dominator-tree row');
  assert.deepEqual(got.children, expected.children, `the children of @${expected.root}`);
  await page.click('[role=tabpanel]:not([hidden]) tbody tr');
  await page.waitForFunction(() => /Path 1/.test(document.querySelector('[role=tabpanel]:not([hidden]) .retainers').textContent));
  const text = await page.textContent('[role=tabpanel]:not([hidden]) .retainers');
  assert.ok(/held directly by the snapshot's root/.test(text) && !/0 steps/.test(text), `Retainers of a GC root: ${text}`);
  await shot('report-dominators');
} else if (kind === 'tabs') {
  const names = await page.$$eval('#tabs button', (bs) => bs.map((b) => b.dataset.tab));
  for (const n of expected.absent) assert.ok(!names.includes(n), `the ${n} tab is shown with nothing to compare: ${names}`);
  for (const n of expected.present) assert.ok(names.includes(n), `no ${n} tab: ${names}`);
} else if (kind === 'drop') {
  const bytes = readFileSync(expected.file).toString('base64');
  const functionsOf = async () => {
    await page.waitForFunction((n) => window.jsprof.current && window.jsprof.current.art.name === n && window.jsprof.ready, expected.name, { timeout: 60000 });
    await tab('functions');
    await page.waitForFunction(() => window.jsprof.tables.functions, null, { timeout: 60000 });
    return page.evaluate(() => window.jsprof.tables.functions.roots.map((d) => d.name));
  };
  await page.evaluate(([b64, name]) => {
    const bin = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const dt = new DataTransfer();
    dt.items.add(new File([bin], name));
    document.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
    document.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, [bytes, expected.name]);
  const dropped = await functionsOf();
  assert.deepEqual(dropped.slice().sort(), expected.functions.slice().sort(), 'the dropped file\'s functions');
  await shot('dropped');
  // The picker: the same file again, a second session.
  const before = await page.evaluate(() => document.querySelectorAll('#sessions .session').length);
  await page.setInputFiles('#open-files', expected.file);
  await page.waitForFunction((n) => document.querySelectorAll('#sessions .session').length > n, before, { timeout: 60000 });
  assert.deepEqual((await functionsOf()).slice().sort(), expected.functions.slice().sort(), 'the picked file\'s functions');
} else if (kind === 'address') {
  await tab('functions');
  await page.evaluate((r) => window.jsprof.setRange(r), expected.range);
  await page.waitForTimeout(300);
  const link = page.url();
  const again = await browser.newPage({ viewport: { width: 1400, height: 860 } });
  again.on('pageerror', (e) => errors.push(e.message));
  await again.goto(link);
  await again.waitForFunction(() => window.jsprof && window.jsprof.ready && window.jsprof.tables.functions, null, { timeout: 60000 });
  const got = await again.evaluate(() => ({ tab: window.jsprof.current.tab, range: window.jsprof.current.range, shown: window.jsprof.tables.functions.profile.range, chip: document.getElementById('range-text').textContent, roots: window.jsprof.tables.functions.roots.map((d) => [d.name, d.self]) }));
  assert.equal(got.tab, 'functions', `the tab from ${link}`);
  assert.ok(got.range && Math.abs(got.range[0] - expected.range[0]) < 1e-3 && Math.abs(got.range[1] - expected.range[1]) < 1e-3, `the range from ${link}: ${got.range}`);
  assert.ok(/Selection/.test(got.chip), 'no selection chip');
  const want = new Map(expected.top.functions.map((f) => [f.name, f.self_ms]));
  assert.equal(got.roots.length, want.size, 'rows of the reopened range');
  for (const [n, self] of got.roots) assert.ok(Math.abs(self - want.get(n)) <= 0.001, `${n}: ${self} vs the CLI's ${want.get(n)}`);
} else if (kind === 'deep') {
  await tab('flamegraph');
  await page.waitForFunction(() => window.jsprof.flamegraph && window.jsprof.flamegraph.maxDepth > 0);
  const fg = await page.evaluate(() => ({ depth: window.jsprof.flamegraph.maxDepth, rows: window.jsprof.flamegraph.visibleRows() }));
  assert.equal(fg.depth + 1, expected.depth, 'the flame graph holds every level of the deepest stack');
  assert.ok(fg.rows < expected.depth, `the canvas shows ${fg.rows} rows: too many for this test`);
  // Zoom into the deepest frame: it is drawn inside the canvas.
  const at = await page.evaluate(() => { const g = window.jsprof.flamegraph; g.zoomTo(g.deepest()); return g.frameBox(g.deepest()); });
  const box = await page.evaluate(() => { const r = window.jsprof.flamegraph.canvas.getBoundingClientRect(); return { top: r.top, bottom: r.bottom }; });
  assert.ok(at && at.y >= box.top && at.y + at.h <= box.bottom, `the deepest frame after zooming is at ${JSON.stringify(at)}, the canvas ${JSON.stringify(box)}`);
  await shot('flamegraph-deep');
  // The wheel scrolls the rows: after scrolling to the root the deepest frame is off screen, and
  // scrolling back brings it again.
  const scrolled = await page.evaluate(() => { const g = window.jsprof.flamegraph; g.scrollTo(0); return g.frameBox(g.deepest()); });
  assert.ok(!scrolled || scrolled.y + scrolled.h < box.top || scrolled.y > box.bottom || scrolled.y < 0, 'scrolling to the root moved the view');
} else {
  throw new Error(`unknown case ${kind}`);
}
assert.deepEqual(errors, [], 'page errors');
await browser.close();
