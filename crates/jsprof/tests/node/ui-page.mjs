// The page-load tracks and the Insights sidebar in the browser, driven by
// crates/jsprof/tests/it/ui_page.rs. Usage:
//   node ui-page.mjs URL EXPECTED.json SHOTS_DIR [--offline]
// EXPECTED is what the CLI printed and the trace holds (never the page's output pasted back):
//   requests        `jsprof network --json`'s request ids, in order
//   marks, measures `jsprof timings --json`: marks + console.timeStamps, measures + console.time
//   shifts          `jsprof insights --json`'s layout shifts
//   interactions    its interactions not nested in a longer one (DevTools' Interactions track)
//   lcp             [navigation start, LCP]: the LCP breakdown's first phase start, last phase end
//   lcp_rating      the LCP's classification
//   render_blocking the render-blocking insight's request ids
//   render_blocking_fcp_ms  its FCP savings (Lantern's)
//   screenshots     the `Screenshot` events' times in the trace (ms from DevTools' origin)
import { launch, newPage, readJson } from './browser.mjs';
import assert from 'node:assert/strict';

const [url, expectedPath, shots, flag] = process.argv.slice(2);
const offline = flag === '--offline';
const expected = readJson(expectedPath);
const browser = await launch();
const errors = [];
const requests = [];
const page = await newPage(browser, errors, { width: 1400, height: 900 });
page.on('request', (r) => requests.push(r.url()));
const mode = offline ? 'report' : 'view';

try {
  await page.goto(url);
  await page.waitForFunction(() => window.jsprof && window.jsprof.ready && window.jsprof.chart, null, { timeout: 60000 });
  await page.waitForTimeout(400);

  // The lanes, above the threads, in the Performance panel's order, each with the documents'
  // items drawn (the whole recording is in view).
  const lanes = await page.evaluate(() => {
    const c = window.jsprof.chart, L = c.layout();
    // Each lane scrolled to the top of the chart, drawn, and what it drew counted.
    const boxes = c.laneBoxes.map((b) => {
      c.scrollY = b.y;
      c.draw();
      return { name: b.lane.name, y: b.y, h: b.h, count: b.lane.count, drawn: b.lane.stats.drawn, marks: b.lane.marks, measures: b.lane.measures };
    });
    c.scrollY = 0;
    c.draw();
    return { boxes, firstThreadY: L[0].y };
  });
  assert.deepEqual(lanes.boxes.map((b) => b.name), ['Network', 'Frames', 'Timings', 'Interactions', 'Layout shifts'], `${mode}: the lanes`);
  for (const b of lanes.boxes) assert.ok(b.y + b.h <= lanes.firstThreadY, `${mode}: ${b.name} lies above the main thread`);
  const lane = (n) => lanes.boxes.find((b) => b.name === n);
  assert.equal(lane('Network').drawn, expected.requests.length, `${mode}: requests drawn`);
  assert.equal(lane('Timings').marks, expected.marks, `${mode}: marks`);
  assert.equal(lane('Timings').measures, expected.measures, `${mode}: measures`);
  assert.equal(lane('Timings').drawn, expected.marks + expected.measures, `${mode}: timings drawn`);
  assert.equal(lane('Interactions').drawn, expected.interactions, `${mode}: interactions drawn`);
  assert.equal(lane('Layout shifts').drawn, expected.shifts, `${mode}: shifts drawn`);
  assert.equal(lane('Frames').count, expected.screenshots.length, `${mode}: screenshots`);
  // The lanes hold coloured pixels (not only white and the header grey).
  const coloured = await page.evaluate(() => {
    const c = window.jsprof.chart, b = c.laneBox('Network'), dpr = c.dpr, r = c.canvas.getBoundingClientRect();
    const img = c.ctx.getImageData(0, Math.round((b.y - r.top) * dpr), Math.round(b.width * dpr), Math.round(b.height * dpr)).data;
    let n = 0;
    for (let i = 0; i < img.length; i += 4) if (Math.max(img[i], img[i + 1], img[i + 2]) - Math.min(img[i], img[i + 1], img[i + 2]) > 40) n++;
    return n;
  });
  assert.ok(coloured > 200, `${mode}: the Network lane draws coloured bars (${coloured} px)`);

  // The vitals, rated as the CLI rates them.
  const lcpClass = await page.getAttribute('[data-insight=lcp]', 'class');
  assert.ok(lcpClass.split(' ').includes(expected.lcp_rating), `${mode}: LCP rated ${lcpClass}, the CLI says ${expected.lcp_rating}`);

  // The filmstrip: hovering the Frames lane (and the time axis) at a time shows the screenshot
  // taken at or before it.
  const ts = expected.screenshots;
  const want = (t) => { let best = null; for (const s of ts) if (s <= t + 1e-9) best = s; return best; };
  const times = [];
  for (let i = 0; i + 1 < ts.length; i++) times.push((ts[i] + ts[i + 1]) / 2);
  times.push(ts[ts.length - 1] + 5);
  const hover = async (t, where) => {
    const at = await page.evaluate(([t, where]) => {
      const c = window.jsprof.chart, b = c.laneBox('Frames');
      return { x: c.xOf(t), y: where === 'axis' ? c.canvas.getBoundingClientRect().top + 8 : b.y + b.height / 2 };
    }, [t, where]);
    await page.mouse.move(at.x, at.y);
    await page.waitForFunction(() => { const i = document.querySelector('#tooltip:not([hidden]) img[data-shot-index]'); return i && i.complete && i.naturalWidth > 0; }, null, { timeout: 10000 });
    return page.evaluate(() => {
      const i = document.querySelector('#tooltip img[data-shot-index]');
      const f = window.jsprof.lanes.find((l) => l.name === 'Frames');
      return { ts: Number(i.dataset.shotTs), hovered: f.shown.hovered_ms, width: i.naturalWidth };
    });
  };
  for (const t of times) {
    const got = await hover(t, 'lane');
    const w = want(got.hovered);
    assert.ok(w != null && Math.abs(got.ts - w) < 0.001, `${mode}: hovering ${got.hovered} ms shows the screenshot of ${got.ts} ms; the last one at or before is ${w}`);
  }
  const onAxis = await hover(times[2], 'axis');
  assert.ok(Math.abs(onAxis.ts - want(onAxis.hovered)) < 0.001, `${mode}: the time axis shows ${onAxis.ts} at ${onAxis.hovered}`);
  await page.mouse.move(5, 5);
  await page.screenshot({ path: `${shots}/page-tracks-${mode}.png` });

  // The LCP insight selects [navigation start, LCP] and the chart zooms to it; its phases show.
  await page.click('[data-insight=lcp_breakdown]');
  await page.waitForTimeout(400);
  const lcp = await page.evaluate(() => {
    const j = window.jsprof, c = j.chart;
    c.draw();
    return { range: j.current.range, t0: c.t0, t1: c.t1, phases: j.insights.hl.windows.map((w) => w.label), chip: !document.getElementById('range-chip').hidden, insightLane: c.laneBoxes.some((b) => b.lane.name === 'Insight') };
  });
  assert.ok(lcp.range && Math.abs(lcp.range[0] - expected.lcp[0]) < 0.001 && Math.abs(lcp.range[1] - expected.lcp[1]) < 0.001, `${mode}: the LCP insight selects ${lcp.range}, expected ${expected.lcp}`);
  assert.ok(lcp.t0 <= expected.lcp[0] && lcp.t1 >= expected.lcp[1] && lcp.t1 - lcp.t0 <= 1.2 * (expected.lcp[1] - expected.lcp[0]), `${mode}: the chart shows ${lcp.t0}..${lcp.t1}`);
  assert.deepEqual(lcp.phases, ['TTFB', 'Load delay', 'Load duration', 'Render delay'], `${mode}: the LCP phases`);
  assert.ok(lcp.chip && lcp.insightLane, `${mode}: the selection chip and the Insight lane show`);
  await page.screenshot({ path: `${shots}/page-lcp-${mode}.png` });

  // Render-blocking shows Lantern's savings on its button, and no button of their own.
  const rb = await page.evaluate(async (fcp) => ({
    text: document.querySelector('[data-insight=render_blocking]').textContent,
    want: `FCP −${(await import('jsprof/format.js')).fmtMs(fcp)}`,
    own: !!document.querySelector('[data-insight=render_blocking_savings]'),
  }), expected.render_blocking_fcp_ms);
  assert.ok(rb.text.includes(rb.want) && !rb.own, `${mode}: the render-blocking insight reads ${rb.text}, expected ${rb.want}`);
  // Render-blocking highlights exactly its requests.
  await page.click('[data-insight=render_blocking]');
  await page.waitForTimeout(300);
  const blocking = await page.evaluate(() => [...(window.jsprof.insights.hl.requests || [])]);
  assert.deepEqual(blocking.sort(), [...expected.render_blocking].sort(), `${mode}: render-blocking highlights`);
  // A second click clears it.
  await page.click('[data-insight=render_blocking]');
  await page.waitForTimeout(300);
  assert.equal(await page.evaluate(() => window.jsprof.current.range), null, `${mode}: a second click clears the selection`);

  // An insight the page has never heard of (as the engine's next ones will come: a title, a
  // state, metric savings, evidence with times and requests) is listed and selects its range.
  const generic = await page.evaluate(async (rid) => {
    const { InsightsSidebar } = await import('jsprof/insights.js');
    const j = window.jsprof, nav = structuredClone(j.insights.doc.navigations[0]);
    nav.insights = { some_new_insight: { title: 'Some new insight', state: 'fail', metric_savings: { LCP: 120 }, items: [{ start_ms: 100, dur_ms: 20, request_id: rid }, { ts_ms: 150 }] } };
    const box = document.createElement('div');
    document.body.append(box);
    const sb = new InsightsSidebar(box, { navigations: [nav] }, j.chart, { key: null, requests: null, windows: [] });
    const b = box.querySelector('[data-insight=some_new_insight]');
    const text = b.textContent;
    b.click();
    const out = { text, range: j.current.range, requests: [...sb.hl.requests] };
    sb.select(null);
    box.remove();
    return out;
  }, expected.requests[0]);
  assert.ok(/Some new insight/.test(generic.text) && /fail/.test(generic.text) && /LCP −120/.test(generic.text), `${mode}: a new insight reads ${generic.text}`);
  assert.deepEqual(generic.range, [100, 150], `${mode}: a new insight's range`);
  assert.deepEqual(generic.requests, [expected.requests[0]], `${mode}: a new insight's requests`);

  // The page checks (and CSS selector costs) carry DevTools' titles and the document's states (the recorded page passes
  // them); savings written as `<metric>_savings_ms` show as the engine's metric savings.
  const checks = await page.evaluate(() => Object.fromEntries(['viewport', 'character_set', 'cache', 'modern_http', 'image_delivery', 'font_display', 'slow_css_selector', 'legacy_javascript', 'duplicated_javascript']
    .map((k) => { const b = document.querySelector(`[data-insight=${k}]`); return [k, b && [b.querySelector('.i-title').textContent, b.dataset.state]]; })));
  assert.deepEqual(checks, { viewport: ['Optimize viewport for mobile', 'pass'], character_set: ['Declare a character encoding', 'pass'],
    cache: ['Use efficient cache lifetimes', 'pass'], modern_http: ['Modern HTTP', 'pass'], image_delivery: ['Improve image delivery', 'fail'], font_display: ['Font display', 'pass'],
    slow_css_selector: ['CSS Selector costs', 'pass'], legacy_javascript: ['Legacy JavaScript', 'pass'],
    duplicated_javascript: ['Duplicated JavaScript', 'pass'] }, `${mode}: the page checks`);
  const tap = await page.evaluate(async () => {
    const { InsightsSidebar } = await import('jsprof/insights.js');
    const j = window.jsprof, nav = structuredClone(j.insights.doc.navigations[0]);
    nav.insights = { viewport: { state: 'fail', mobile_optimized: false, viewport_meta_ms: 10, long_pointer_interactions: 1, inp_savings_ms: 60 },
      cache: { state: 'fail', requests: [], wasted_bytes: 5e6, metric_savings: { fcp_ms: 0, lcp_ms: 400 } } };
    const box = document.createElement('div');
    document.body.append(box);
    new InsightsSidebar(box, { navigations: [nav] }, j.chart, { key: null, requests: null, windows: [] });
    const text = box.querySelector('[data-insight=viewport]').textContent;
    const cache = box.querySelector('[data-insight=cache]').textContent;
    box.remove();
    return [text, cache];
  });
  assert.ok(/INP −60/.test(tap[0]), `${mode}: a failing viewport reads ${tap[0]}`);
  // Lantern's savings (`metric_savings`: `fcp_ms`, `lcp_ms`) read as the engine's metrics; none saved, none shown.
  assert.ok(/LCP −400/.test(tap[1]) && !/FCP/.test(tap[1]), `${mode}: a failing cache reads ${tap[1]}`);

  assert.deepEqual(errors, [], `${mode}: page errors`);
  if (offline) {
    const bad = requests.filter((u) => !u.startsWith('file:') && !u.startsWith('data:'));
    assert.deepEqual(bad, [], 'the report made requests');
  }
  console.log(`ui-page ${mode}: ok`);
} finally {
  await browser.close();
}
