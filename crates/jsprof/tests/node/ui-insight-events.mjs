// An insight's related events in the browser, driven by crates/jsprof/tests/it/ui_page.rs.
// Usage:
//   node ui-insight-events.mjs URL EXPECTED.json SHOTS_DIR [--offline]
// EXPECTED is what `jsprof insights --json` printed (never the page's output pasted back):
//   insight  the sidebar key of the insight to click (e.g. forced_reflow)
//   events   its related events and top-level calls ({name, timeline_id, depth, start_ms, dur_ms})
//   lanes    insights whose related events the page's lanes draw: [{insight, lane, outlined,
//            requests (ids, for the Network lane)}]
// A click outlines exactly those events on the threads' tracks, each where the chart draws an
// event of that name and time (or a block of merged ones holding it) at that depth; the other
// calls are dimmed; hovering an outlined box names its event; Escape and a second click clear it;
// under a filter that changes the nesting (view only), each box still lies on what is drawn.
// A click on each of `lanes` outlines that many items in that lane (in red) and dims every other
// one it draws; Escape clears both.
import { launch, newPage, readJson } from './browser.mjs';
import assert from 'node:assert/strict';

const [url, expectedPath, shots, flag] = process.argv.slice(2);
const offline = flag === '--offline';
const expected = readJson(expectedPath);
const browser = await launch();
const errors = [];
const page = await newPage(browser, errors, { width: 1400, height: 900 });
const mode = offline ? 'report' : 'view';
const sel = `[data-insight=${expected.insight}]`;

// What the chart outlines now, each box checked against what the chart draws at its depth.
const outlined = () => page.evaluate(() => {
  const c = window.jsprof.chart;
  c.draw();
  const boxes = c.outlinedBoxes().map((b) => {
    const t = c.tracks.find((x) => x.id === b.timeline), ix = c.current(t), ev = ix.ev, strings = ix.doc.strings;
    let drawn = null;
    const list = ix.byDepth[b.depth];
    for (let q = 0; list && q < list.n && !drawn; q++) {
      const i = list.idx[q];
      if (Math.abs(ev.s[i] - b.start) <= 0.0015 && Math.abs(ev.d[i] - b.dur) <= 0.0015 && strings[ev.n[i]] === b.name) drawn = 'event';
    }
    const m = ix.doc.merged;
    for (const i of ix.mByDepth[b.depth] || []) {
      if (drawn) break;
      if (m.s[i] <= b.start + 0.0015 && m.s[i] + m.d[i] >= b.start + b.dur - 0.0015) drawn = 'merged';
    }
    return { ...b, drawn };
  });
  return { boxes, stats: { ...c.stats }, range: window.jsprof.current.range };
});
// `outlined()` once `ok` holds of it, or after 15 s as it then is (the assertions after it say
// what was wrong): a click's window is fetched and drawn again, which a loaded machine may take
// longer than any fixed wait to do.
const settled = async (ok) => {
  let o = await outlined();
  for (const end = Date.now() + 15000; !ok(o) && Date.now() < end; o = await outlined()) await page.waitForTimeout(100);
  return o;
};
const allDrawn = (o) => o.boxes.length === expected.events.length && o.boxes.every((b) => b.drawn);

try {
  await page.goto(url);
  await page.waitForFunction(() => window.jsprof && window.jsprof.ready && window.jsprof.chart, null, { timeout: 60000 });
  await page.waitForTimeout(400);
  const before = await outlined();
  assert.equal(before.boxes.length, 0, `${mode}: nothing is outlined before a click`);
  assert.equal(before.stats.dimmed, 0, `${mode}: nothing is dimmed before a click`);

  await page.click(sel);
  const on = await settled((o) => allDrawn(o) && o.stats.outlined === o.boxes.length && o.stats.dimmed > 0); // the zoomed window is fetched again (view)
  const want = expected.events;
  assert.equal(on.boxes.length, want.length, `${mode}: ${on.boxes.length} boxes outlined, the document lists ${want.length} events`);
  const key = (e) => [e.timeline, e.depth, e.name, e.start];
  const got = on.boxes.slice().sort((a, b) => a.start - b.start || a.depth - b.depth);
  const exp = want.map((e) => ({ timeline: e.timeline_id, depth: e.depth, name: e.name, start: e.start_ms, dur: e.dur_ms }))
    .sort((a, b) => a.start - b.start || a.depth - b.depth);
  got.forEach((g, i) => {
    const e = exp[i];
    assert.deepEqual(key(g).slice(0, 3), key(e).slice(0, 3), `${mode}: box ${i}`);
    assert.ok(Math.abs(g.start - e.start) < 0.001 && Math.abs(g.dur - e.dur) < 0.001, `${mode}: box ${i} at ${g.start} for ${g.dur}, the document says ${e.start} for ${e.dur}`);
    assert.ok(g.drawn, `${mode}: box ${i} (${g.name} at ${g.start}, depth ${g.depth}) outlines nothing the chart draws there`);
  });
  assert.equal(on.stats.outlined, want.length, `${mode}: outlines drawn`);
  assert.ok(on.stats.dimmed > 0 && on.stats.drawn > on.stats.dimmed, `${mode}: other calls dimmed (${on.stats.dimmed} of ${on.stats.drawn})`);
  // The outline's red is on the canvas (nothing else the chart draws is that red).
  const red = await page.evaluate(() => {
    const c = window.jsprof.chart, img = c.ctx.getImageData(0, 0, c.canvas.width, c.canvas.height).data;
    let n = 0;
    for (let i = 0; i < img.length; i += 4) if (img[i] > 180 && img[i + 1] < 90 && img[i + 2] < 100) n++; // #cf222e, antialiased
    return n;
  });
  assert.ok(red > 50, `${mode}: outlines drawn in red (${red} px)`);
  await page.screenshot({ path: `${shots}/insight-events-${mode}.png` });

  // Hovering the longest outlined event names it.
  const longest = exp.filter((e) => e.name !== 'FunctionCall').reduce((a, b) => (b.dur > a.dur ? b : a));
  const at = await page.evaluate((e) => {
    const c = window.jsprof.chart, L = c.layout(), box = L.find((b) => b.t.id === e.timeline);
    const r = c.canvas.getBoundingClientRect();
    return { x: c.xOf(e.start + e.dur / 2), y: r.top + 22 + box.rowsY + e.depth * 18 + 9 - c.scrollY };
  }, longest);
  await page.mouse.move(at.x, at.y);
  await page.waitForSelector('#tooltip:not([hidden])', { timeout: 5000 });
  const tip = await page.textContent('#tooltip');
  assert.ok(tip.includes(longest.name), `${mode}: hovering ${longest.name} shows ${tip}`);
  await page.mouse.move(5, 5);

  // Escape clears it: no outline, nothing dimmed, no range.
  await page.keyboard.press('Escape');
  const off = await settled((o) => o.boxes.length === 0 && o.stats.dimmed === 0 && o.range === null);
  assert.equal(off.boxes.length, 0, `${mode}: Escape clears the outline`);
  assert.equal(off.stats.dimmed, 0, `${mode}: Escape clears the dimming`);
  assert.equal(off.range, null, `${mode}: Escape clears the range`);
  assert.equal(await page.getAttribute(sel, 'aria-pressed'), 'false', `${mode}: the insight is no longer pressed`);

  // A click and a second click: on, then off.
  await page.click(sel);
  assert.equal((await settled(allDrawn)).boxes.length, want.length, `${mode}: a click outlines again`);
  await page.click(sel);
  const again = await settled((o) => o.boxes.length + o.stats.dimmed === 0);
  assert.equal(again.boxes.length + again.stats.dimmed, 0, `${mode}: a second click clears it`);

  // Insights whose events the page's lanes draw: requests, the interaction, shifts, the LCP.
  const laneState = (name) => page.evaluate((name) => {
    const j = window.jsprof, c = j.chart, lane = j.lanes.find((l) => l.name === name);
    // The lane scrolled to the top of the chart (the view's chart is short), then drawn.
    c.layout();
    let box = c.laneBoxes.find((b) => b.lane === lane);
    if (!box) return null;
    c.scrollY = box.y;
    c.draw();
    box = c.laneBoxes.find((b) => b.lane === lane);
    // Red pixels inside the lane's rows (compared with the lane after Escape: a render-blocking
    // request's corner is that red too).
    const dpr = c.dpr, y0 = Math.round((22 + box.rowsY - c.scrollY) * dpr);
    const h = Math.min(Math.round((box.y + box.h - box.rowsY) * dpr), c.canvas.height - y0);
    const img = c.ctx.getImageData(0, y0, c.canvas.width, Math.max(1, h)).data;
    let red = 0;
    for (let i = 0; i < img.length; i += 4) if (img[i] > 180 && img[i + 1] < 90 && img[i + 2] < 100) red++;
    const hl = j.insights.hl;
    return { ...lane.stats, red, requests: hl.lanes ? [...hl.lanes.requests] : [], outline: hl.outline ? hl.outline.length : 0 };
  }, name);
  for (const want of expected.lanes) {
    const at = `${mode} ${want.insight} in ${want.lane}`;
    // Selecting and clearing are synchronous, and laneState draws: no wait for a fetch (the
    // lanes draw the page's documents, which are all loaded). A folded lane holding the
    // insight's requests opens (as Network opens folded on a page of over 200 requests).
    if (want.requests) await page.evaluate(() => { window.jsprof.lanes.find((l) => l.name === 'Network').collapsed = true; });
    await page.click(`[data-insight=${want.insight}]`);
    const on = await laneState(want.lane);
    assert.ok(on, `${at}: the lane is shown`);
    assert.equal(on.outlined, want.outlined, `${at}: ${on.outlined} outlined, the document lists ${want.outlined}`);
    if (want.requests) assert.deepEqual(on.requests.sort(), want.requests.slice().sort(), `${at}: the requests outlined`);
    // Every other item the lane draws is dimmed (a cluster is outlined, not drawn as an item).
    const items = want.lane === 'Insight' ? 0 : on.drawn - want.outlined + (want.clusters || 0);
    assert.equal(on.dimmed, items, `${at}: ${on.dimmed} of ${on.drawn} dimmed`);
    assert.equal(on.outline, 0, `${at}: nothing outlined on the threads`);
    await page.keyboard.press('Escape');
    const off = await laneState(want.lane);
    assert.ok(!off || (off.outlined === 0 && off.dimmed === 0), `${at}: Escape clears the lane (${JSON.stringify(off)})`);
    assert.ok(on.red > (off ? off.red : 0) + 20, `${at}: the outline is drawn in red (${on.red} px, ${off ? off.red : 0} after Escape)`);
  }

  // Under a filter that reshapes the nesting (`--focus buildList` drops the calls above it),
  // each box still lies on what the chart draws, in whatever row that now is.
  if (!offline) {
    await page.evaluate(() => { window.unfilteredChart = window.jsprof.chart; });
    await page.fill('#f-focus', 'buildList');
    await page.press('#f-focus', 'Enter');
    // The chart and the sidebar are built again for the filtered load.
    await page.waitForFunction(() => { const j = window.jsprof; return j.chart && j.chart !== window.unfilteredChart && j.insights && j.insights.chart === j.chart && j.insights.root.isConnected; }, null, { timeout: 30000 });
    await page.waitForTimeout(500);
    await page.click(sel);
    const focused = await settled(allDrawn);
    assert.equal(focused.boxes.length, want.length, `${mode} focused: boxes outlined`);
    const moved = focused.boxes.filter((b) => { const e = exp.find((x) => Math.abs(x.start - b.start) < 0.001 && x.name === b.name); return e && e.depth !== b.depth; }).length;
    for (const b of focused.boxes) assert.ok(b.drawn, `${mode} focused: ${b.name} at ${b.start} (row ${b.depth}) outlines nothing the chart draws there`);
    console.log(`${mode} focused on buildList: ${moved} of ${focused.boxes.length} boxes drawn in another row than the unfiltered one`);
  }

  assert.deepEqual(errors, [], `${mode}: page errors`);
  console.log(`${mode}: ${want.length} related events outlined (${on.boxes.filter((b) => b.drawn === 'merged').length} inside merged blocks), ${on.stats.dimmed} calls dimmed; lanes: ${expected.lanes.map((l) => `${l.insight} ${l.outlined} in ${l.lane}`).join(', ')}`);
} finally {
  await browser.close();
}
