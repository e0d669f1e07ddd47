// The trace's bottom panel in the browser, driven by crates/jsprof/tests/it/ui_summary.rs.
// Usage: node ui-summary.mjs CASE URL EXPECTED.json SHOTS_DIR. EXPECTED is the CLI's (never the
// page's output pasted back):
//   ranges   [{range: [a, b], doc: `jsprof summary --range a..b --json`, texts: {category: fmt_ms}}]
//   request  {index, fields: {field: text}}: a request of `jsprof network --json`, its values
//            as the CLI's formatters write them
//   event    {start_ms, dur_ms, depth, name, fields: {field: text}}: an event of `jsprof events
//            --json` of the main thread
// Checks: the Summary subtab shows, for a selected range, the service's document (equal to the
// CLI's) with each category's ms as the CLI writes it; a click on a request and on an event
// opens the drawer with the CLI's values; the Network lane's handle sizes it (the main thread
// moves up by as much) and a chart drawn again (new filters) keeps the size and a folded lane;
// the source panel's lines of a function sum to its self time in the Functions table (named
// functions: the page leaves an empty `name` out of its query, which the server refuses).
import { startCheck } from './browser.mjs';
import assert from 'node:assert/strict';

const { expected, shots, browser, errors, page } = await startCheck();
await page.setViewportSize({ width: 1400, height: 1000 });
await page.waitForFunction(() => window.jsprof.chart && window.jsprof.chart.stats.frames > 0, null, { timeout: 60000 });

// 1. The Summary of a selection.
await page.click('[data-subtab=summary]');
for (const { range, doc, texts } of expected.ranges) {
  await page.evaluate((r) => window.jsprof.chart.setRange(r), range);
  await page.waitForFunction((r) => { const s = window.jsprof.selectionSummary; return s && s.start_ms === r[0] && s.end_ms === r[1]; }, range, { timeout: 30000 });
  const got = await page.evaluate(() => window.jsprof.selectionSummary);
  assert.deepEqual(got, doc, `${range}: the service's Summary is the CLI's`);
  const shown = await page.$$eval('.summary-table tbody tr', (trs) => trs.map((tr) => [tr.dataset.category, tr.querySelector('[data-ms]').textContent]));
  assert.deepEqual(Object.fromEntries(shown), texts, `${range}: the panel's ms`);
  assert.deepEqual(shown.map((s) => s[0]), doc.categories.map((c) => c.category), `${range}: the panel's order`);
}
await page.screenshot({ path: `${shots}/ui-summary.png` });

// 2. The drawer: a request of the Network lane.
await page.evaluate(() => { const c = window.jsprof.chart; c.setRange(null); c.setView(c.start, c.end); c.scrollY = 0; c.draw(); });
const req = expected.request;
const at = await page.evaluate((r) => {
  const c = window.jsprof.chart, b = c.laneBox('Network'), lane = c.lanes.find((l) => l.name === 'Network'), q = lane.requests[r.index];
  return { x: c.xOf((q.start_ms + q.end_ms) / 2), y: b.y + r.index * 14 + 7 };
}, req);
await page.mouse.click(at.x, at.y);
await page.waitForFunction(() => document.querySelector('.drawer').dataset.kind === 'request', null, { polling: 100 });
const fieldsOf = () => page.$$eval('.drawer [data-field]', (trs) => Object.fromEntries(trs.map((tr) => [tr.dataset.field, tr.querySelector('td').textContent])));
let fields = await fieldsOf();
for (const [k, v] of Object.entries(req.fields)) assert.equal(fields[k], v, `the request's ${k}`);
assert.equal(await page.textContent('.drawer .name'), req.url, 'the request\'s URL');

// An event of the main thread, zoomed to and clicked.
const ev = expected.event;
const point = await page.evaluate((e) => {
  const c = window.jsprof.chart, pad = e.dur_ms * 0.1;
  c.setView(e.start_ms - pad, e.start_ms + e.dur_ms + pad, false);
  c.revealRow(0, e.depth);
  c.draw();
  const r = c.canvas.getBoundingClientRect(), box = c.layout()[0];
  return { x: c.xOf(e.start_ms + e.dur_ms / 2), y: r.top + 22 + box.rowsY + e.depth * 18 + 9 - c.scrollY };
}, ev);
await page.mouse.click(point.x, point.y);
await page.waitForFunction(() => document.querySelector('.drawer').dataset.kind === 'event', null, { polling: 100 });
fields = await fieldsOf();
for (const [k, v] of Object.entries(ev.fields)) assert.equal(fields[k], v, `the event's ${k}`);
await page.screenshot({ path: `${shots}/ui-drawer.png` });

// 3. Lanes that size: the Network lane's handle dragged up; the main thread follows.
await page.evaluate(() => { const c = window.jsprof.chart; c.setView(c.start, c.end, false); c.scrollY = 0; c.draw(); });
const before = await page.evaluate(() => { const c = window.jsprof.chart, b = c.laneBox('Network'); return { b, thread: c.layout()[0].y }; });
const handleY = before.b.y + before.b.scroll + before.b.shown + 2;
await page.mouse.move(before.b.x + 300, handleY);
await page.mouse.down();
await page.mouse.move(before.b.x + 300, handleY - 40, { steps: 4 });
await page.mouse.up();
const after = await page.evaluate(() => { const c = window.jsprof.chart, b = c.laneBox('Network'); return { b, thread: c.layout()[0].y }; });
assert.equal(after.b.shown, before.b.shown - 40, `the Network lane sized by the drag (${before.b.shown} → ${after.b.shown} px)`);
assert.equal(after.thread, before.thread - 40, 'the main thread moved up by as much');
// Its rows scroll on their own (shift+wheel over the lane).
await page.mouse.move(before.b.x + 300, after.b.y + 10);
await page.keyboard.down('Shift');
await page.mouse.wheel(0, 30);
await page.keyboard.up('Shift');
await page.waitForFunction(() => window.jsprof.chart.laneBox('Network').scroll > 0);
// Frames folded (a click on its header), then the chart drawn again for a filter: both kept.
const frames = await page.evaluate(() => { const c = window.jsprof.chart; c.draw(); const b = c.laneBoxes.find((x) => x.lane.name === 'Frames'); return { x: c.xOf((c.t0 + c.t1) / 2), y: c.canvas.getBoundingClientRect().top + 22 + b.y - c.scrollY + 10 }; });
await page.mouse.click(frames.x, frames.y);
assert.ok(await page.evaluate(() => window.jsprof.chart.lanes.find((l) => l.name === 'Frames').collapsed), 'Frames folded');
await page.evaluate(() => { window.__oldChart = window.jsprof.chart; });
await page.check('#f-idle');
await page.waitForFunction(() => { const c = window.jsprof.chart; return c && c !== window.__oldChart && c.stats.frames > 0; }, null, { timeout: 60000 });
const kept = await page.evaluate(() => { const c = window.jsprof.chart; return { shown: c.laneBox('Network').shown, frames: c.lanes.find((l) => l.name === 'Frames').collapsed }; });
assert.equal(kept.shown, after.b.shown, 'the Network lane keeps its size in the chart drawn again');
assert.ok(kept.frames, 'Frames stays folded in the chart drawn again');
await page.uncheck('#f-idle');

// 4. The source panel weighs what the Functions table weighs: a JS function's lines sum to its
// self time in the table.
const sums = await page.evaluate(async () => {
  const app = window.jsprof, art = app.current.art;
  // The Functions table's rows: the profile document's Bottom-up roots, as the table reads them.
  const { treeNodes } = await import('jsprof/calltree.js');
  const p = await art.profile(null, app.current.timeline);
  const rows = treeNodes(p, p.bottom_up).filter((d) => d.name && d.url && d.self > 0).sort((a, b) => b.self - a.self).slice(0, 3);
  const out = [];
  for (const d of rows) {
    const doc = await art.lines(d, app.current.timeline);
    const f = doc.functions[0];
    out.push({ name: d.name, table: d.self, lines: f.lines.reduce((a, l) => a + l.self_ms, 0), weights: doc.weights, ticks: f.ticks });
  }
  return out;
});
assert.ok(sums.length > 0, 'functions with a script in the table');
for (const s of sums) {
  if (!s.ticks) continue;
  assert.equal(s.weights, 'table', `${s.name}: lines in the table's weights`);
  assert.ok(Math.abs(s.lines - s.table) <= 1e-9 * Math.max(1, s.table), `${s.name}: lines sum to ${s.lines}, the table's self ${s.table}`);
}
assert.deepEqual(errors, [], 'page errors');
await browser.close();
console.log('ui-summary: ok');
