// Browser checks of issue 19's fixes, driven by crates/jsprof/tests/it/ui_fixes.rs. Usage:
//   node ui-checks.mjs CASE URL EXPECTED.json SHOTS_DIR
// EXPECTED is what the CLI printed (never jsprof's page output pasted back):
//   stats      `jsprof heap stats`'s table rows [{name, bytes, text}]: the Statistics legend must
//              list the same slices with the same sizes (±half a unit of the CLI's rounding).
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
