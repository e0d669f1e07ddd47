// The page-load story as DevTools tells it, driven by crates/jsprof/tests/it/ui_story.rs. Usage:
//   node ui-story.mjs EXPECTED.json SHOTS_DIR
// EXPECTED: {engine_insights: the trace engine's insights folder (its UIStrings), cases: [{name,
// url (a `jsprof view` of one recorded page load), insights (`jsprof insights --json`), markers
// ({FCP, LCP, DCL, Load}: the insights oracle's ts_ms), lcp_node (the LCP candidate event's
// `nodeName` in the trace)}]}. Nothing expected is the page's own output. Per page load, one
// page open:
//   - the FCP, LCP, DCL and Load markers are drawn at the oracle's times (±0.0015 ms: both
//     sides round to 0.001 ms);
//   - the LCP element is named; the renderers' tracks are headed by their pages (case's
//     `tracks`: `jsprof threads --json`'s `page` names);
//   - each insight expands to DevTools' description (the engine's UIStrings, links as their
//     text), its checklist (one item per boolean the document has, passing as it says) and its
//     tables, every cell the CLI's JSON value at the table's JSON pointer, every list of objects
//     of the insight having its table ("Layout shift culprits" lists its culprits);
//   - with the chart scrolled to its bottom first, clicking the insight brings at least one of
//     its events (an outlined call, a shift, an interaction, a request, the LCP mark) inside the
//     chart's visible rect;
//   - at a 50 µs view the axis labels are all different; a tooltip shown before a jump is gone
//     or names what is under the pointer after it; search's Enter scrolls to the match's row
//     (the deepest call of the main track);
//   - one fact one way: the vitals' values and ratings and the requests' starts and sizes are
//     the strings `jsprof insights` and `jsprof network` print (case's `doors`, which the Rust
//     test found the same in MCP's text), DevTools' rating words capitalised as labels; the
//     page's formatter gives `jsprof_document::units`' strings for EXPECTED's `units`.
import { launch, newPage, readJson } from './browser.mjs';
import assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';

const [expectedPath, shots] = process.argv.slice(2);
const expected = readJson(expectedPath);
const ENGINE = {
  lcp_breakdown: 'LCPBreakdown', inp_breakdown: 'INPBreakdown', cls_culprits: 'CLSCulprits', render_blocking: 'RenderBlocking',
  document_latency: 'DocumentLatency', lcp_discovery: 'LCPDiscovery', dom_size: 'DOMSize', forced_reflow: 'ForcedReflow',
  third_parties: 'ThirdParties', network_dependency_tree: 'NetworkDependencyTree', viewport: 'Viewport', character_set: 'CharacterSet',
  cache: 'Cache', modern_http: 'ModernHTTP', image_delivery: 'ImageDelivery', font_display: 'FontDisplay',
  slow_css_selector: 'SlowCSSSelector', legacy_javascript: 'LegacyJavaScript', duplicated_javascript: 'DuplicatedJavaScript',
};
// The engine's description as the page shows it: links and code as their text.
const shown = (s) => s.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/`([^`]*)`/g, '$1');
const descriptions = {};
for (const [k, f] of Object.entries(ENGINE)) {
  const m = await import(pathToFileURL(`${expected.engine_insights}/${f}.js`).href);
  descriptions[k] = shown(m.UIStrings.description);
}

// A JSON pointer into `doc`.
const at = (doc, pointer) => pointer.split('/').slice(1).reduce((v, k) => (v == null ? undefined : v[k]), doc);
const plain = (x) => x && typeof x === 'object' && !Array.isArray(x);
// A row's value for a column: `a.b` is field b of object field a; an object field is no cell
// of its own (its fields are), nor a list of objects (its own table), so that column is empty
// in that row.
// As a JSON text carries it (the document's `-0.0` is `0` once in a page's attribute).
const cell = (row, key) => {
  const v = key.includes('.') ? row[key.split('.')[0]]?.[key.split('.')[1]] : row[key];
  return plain(v) || (Array.isArray(v) && v.length && v.every(plain)) || v === undefined ? null : JSON.parse(JSON.stringify(v));
};
// The pointers of every non-empty list of objects in `v` (and in its objects' fields, and in
// the first 50 rows of each list), as the page must table them.
function lists(v, path, out = []) {
  if (Array.isArray(v)) {
    if (v.length && v.every(plain)) {
      out.push(path);
      v.slice(0, 50).forEach((row, i) => { for (const [k, x] of Object.entries(row)) if (Array.isArray(x) && x.length && x.every(plain)) lists(x, `${path}/${i}/${k}`, out); });
    }
  } else if (plain(v)) {
    for (const [k, x] of Object.entries(v)) {
      if (Array.isArray(x)) lists(x, `${path}/${k}`, out);
      else if (plain(x)) for (const [k2, y] of Object.entries(x)) if (Array.isArray(y)) lists(y, `${path}/${k}/${k2}`, out);
    }
  }
  return out;
}

const browser = await launch();
const errors = [];
let checked = 0, tables = 0, cells = 0, revealed = 0;
try {
  for (const c of expected.cases) {
    // A short window: the page's lanes fill the chart's height, so that the reveal is needed.
    const page = await newPage(browser, errors, { width: 1400, height: 720 });
    await page.goto(c.url);
    await page.waitForFunction(() => window.jsprof && window.jsprof.ready && window.jsprof.chart && window.jsprof.insights, null, { timeout: 60000 });
    await page.waitForTimeout(300);
    const what = c.name;

    // The markers at the oracle's times, all in the whole recording's view.
    const markers = await page.evaluate(() => window.jsprof.chart.markerBoxes());
    for (const [label, ts] of Object.entries(c.markers)) {
      const m = markers.filter((x) => x.label === label);
      assert.equal(m.length, 1, `${what}: one ${label} marker (${JSON.stringify(markers)})`);
      assert.ok(Math.abs(m[0].ts_ms - ts) <= 0.0015, `${what}: ${label} at ${m[0].ts_ms} ms, the oracle ${ts} ms`);
      assert.ok(m[0].inView, `${what}: ${label} is drawn in the view`);
    }
    assert.equal(markers.length, Object.keys(c.markers).length, `${what}: the markers ${JSON.stringify(markers)}`);

    // The tracks are headed by the page each renderer draws, as `jsprof threads` names it.
    const heads = await page.evaluate(() => window.jsprof.chart.tracks.map((t) => t.name));
    for (const name of c.tracks) assert.ok(heads.includes(name), `${what}: no track "${name}" in ${JSON.stringify(heads)}`);

    // One fact one way: the CLI's strings on the page.
    const ui = await page.evaluate(() => {
      const q = (k, s) => { const e = document.querySelector(`[data-insight=${k}] ${s}`); return e ? e.textContent : null; };
      const net = window.jsprof.chart.lanes.find((l) => l.name === 'Network');
      const requests = net.requests.map((r) => {
        const tip = document.createElement('div');
        tip.innerHTML = net.tooltip({ r });
        const rows = Object.fromEntries([...tip.querySelectorAll('tr')].map((tr) => [...tr.children].map((td) => td.textContent)));
        return { url: r.url, start: rows.Start, size: rows['Transfer size'] };
      });
      return {
        vitals: Object.fromEntries(['lcp', 'inp', 'cls'].map((k) => [k.toUpperCase(), { value: q(k, '.v-value'), rating: q(k, '.v-rating') }])),
        times: document.querySelector('.vital-times').textContent, requests,
      };
    });
    const label = (w) => w.charAt(0).toUpperCase() + w.slice(1);
    for (const k of ['LCP', 'INP', 'CLS']) {
      const want = c.doors.vitals[k];
      assert.deepEqual(ui.vitals[k], { value: want.value, rating: label(want.rating) }, `${what}: ${k} on the page, the CLI's ${JSON.stringify(want)}`);
    }
    for (const k of ['FCP', 'DCL', 'Load']) assert.ok(ui.times.split(' · ').includes(`${k} ${c.doors.vitals[k].value}`), `${what}: "${ui.times}" lacks the CLI's ${k} ${c.doors.vitals[k].value}`);
    assert.equal(ui.requests.length, c.doors.requests.length, `${what}: requests`);
    for (const r of c.doors.requests) {
      const got = ui.requests.find((x) => x.url === r.url);
      assert.deepEqual(got && { start: got.start, size: got.size }, { start: r.start, size: r.size }, `${what}: ${r.url} in the Network lane's tooltip`);
    }
    if (c === expected.cases[0]) {
      const got = await page.evaluate(async (u) => {
        const f = await import('jsprof/format.js');
        return { ms: u.ms.map(([v]) => f.fmtMs(v)), bytes: u.bytes.map(([v]) => f.fmtBytes(v)) };
      }, expected.units);
      assert.deepEqual(got.ms, expected.units.ms.map((x) => x[1]), 'durations: the page against jsprof_document::units::fmt_ms');
      assert.deepEqual(got.bytes, expected.units.bytes.map((x) => x[1]), 'sizes: the page against jsprof_document::units::fmt_bytes');
    }

    // The LCP element, named as the trace names it.
    const lcpLine = await page.textContent('.lcp-element');
    assert.ok(lcpLine.startsWith(`LCP element: ${c.lcp_node}`), `${what}: ${lcpLine}, the trace ${c.lcp_node}`);

    const keys = await page.$$eval('[data-details]', (ds) => ds.map((d) => d.dataset.details));
    const nav = c.insights.navigations[0];
    for (const key of keys) {
      const v = nav.insights[key];
      // Scrolled away first: the click must bring the insight's events back.
      await page.evaluate(() => { const ch = window.jsprof.chart; ch.scrollY = 1e6; ch.draw(); });
      await page.click(`[data-insight=${key}]`);
      const d = `[data-details=${key}]`;
      assert.ok(await page.isVisible(d), `${what}: ${key} expands`);
      if (descriptions[key]) assert.equal(await page.textContent(`${d} .i-description`), descriptions[key], `${what}: ${key}'s description`);
      // The checklist: one item per boolean of the document's checklist fields.
      const checks = await page.$$eval(`${d} [data-check]`, (lis) => lis.map((li) => [li.dataset.check, li.className]));
      for (const [field, cls] of checks) assert.equal(cls, v[field] ? 'pass' : 'fail', `${what}: ${key} ${field}`);
      if (key === 'lcp_discovery' || key === 'document_latency') assert.equal(checks.length, 3, `${what}: ${key}'s checklist`);
      // Every table's cells are the document's values at its pointer.
      const drawn = await page.$$eval(`${d} table.i-table`, (ts) => ts.map((t) => ({
        path: t.dataset.path, facts: t.classList.contains('i-facts'),
        rows: [...t.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('td')].map((td) => [td.dataset.key, JSON.parse(td.dataset.json)])),
      })));
      for (const t of drawn) {
        const src = at(c.insights, t.path);
        assert.notEqual(src, undefined, `${what}: ${key}: a table of ${t.path}, which the document does not have`);
        if (t.facts) {
          for (const [[k, x]] of t.rows) assert.deepEqual(x, cell(src, k), `${what}: ${t.path} ${k}`);
          cells += t.rows.length;
        } else {
          assert.equal(t.rows.length, Math.min(src.length, 50), `${what}: ${t.path}: rows`);
          t.rows.forEach((row, i) => {
            for (const [k, x] of row) assert.deepEqual(x, k === '' ? JSON.parse(JSON.stringify(src[i])) : cell(src[i], k), `${what}: ${t.path}/${i} ${k}`);
            cells += row.length;
          });
        }
        tables++;
      }
      const paths = new Set(drawn.map((t) => t.path));
      for (const p of lists(v, `/navigations/0/insights/${key}`)) assert.ok(paths.has(p), `${what}: ${key}: no table of ${p}`);
      if (key === 'cls_culprits') {
        const culprits = v.clusters.flatMap((cl) => cl.culprits);
        assert.ok(culprits.length > 0 || c.name !== 'pageload-shifts', `${what}: the shifts fixture has culprits`);
        for (const [i, cl] of v.clusters.entries()) if (cl.culprits.length) assert.ok(paths.has(`/navigations/0/insights/cls_culprits/clusters/${i}/culprits`), `${what}: culprits of cluster ${i} shown`);
      }
      // At least one of its events inside the chart's visible rect.
      const seen = await page.evaluate((key) => {
        const app = window.jsprof, ch = app.chart, sel = app.insights.items.get(key).sel;
        const r = ch.canvas.getBoundingClientRect(), top = r.top + 22, bottom = r.bottom;
        const xIn = (s, e = s) => e >= ch.t0 && s <= ch.t1;
        const yIn = (y, h) => y >= top - 0.5 && y + h <= bottom + 0.5;
        const found = [];
        for (const b of ch.outlinedBoxes()) if (yIn(b.y, 18) && xIn(b.start, b.start + b.dur)) found.push(b.name);
        const l = sel.lanes;
        if (l) {
          const inLane = (n, off = 0) => { const b = ch.laneBox(n); return !!b && yIn(b.y + off, Math.min(14, b.height)); };
          if ([...l.shifts, ...l.clusters].some((t) => xIn(t)) && inLane('Layout shifts')) found.push('shift');
          if (l.interactions.some((t) => xIn(t)) && inLane('Interactions')) found.push('interaction');
          if (l.marks.some((m) => xIn(m.ts_ms)) && inLane('Insight')) found.push('mark');
          const net = ch.lanes.find((x) => x.name === 'Network');
          if (net) for (const id of l.requests) { const y = net.rowOf(id); if (y >= 0 && inLane('Network', y)) { found.push('request'); break; } }
        }
        return { found, points: !!((sel.outline && sel.outline.length) || l) };
      }, key);
      if (seen.points) {
        assert.ok(seen.found.length > 0, `${what}: ${key}: none of its events is in the chart's visible rect after the click`);
        revealed++;
      }
      if (key === 'cls_culprits' && c.name === 'pageload-shifts') await page.screenshot({ path: `${shots}/ui-story-cls.png` });
      if (key === 'lcp_discovery' && c.name === 'pageload') await page.screenshot({ path: `${shots}/ui-story-lcp.png` });
      checked++;
    }
    // The insights the CLI lists all expand.
    for (const [k, v] of Object.entries(nav.insights)) {
      if (k === 'render_blocking_savings' || v == null || (Array.isArray(v) && !v.length)) continue;
      assert.ok(keys.includes(k), `${what}: ${k} has no details`);
    }
    await page.keyboard.press('Escape');

    // Deep zoom: the axis says which tick is which.
    const ticks = await page.evaluate(() => {
      const ch = window.jsprof.chart, m = (ch.start + ch.end) / 2;
      ch.setView(m, m + 0.05);
      ch.draw();
      return ch.ticks;
    });
    assert.ok(ticks.length >= 3, `${what}: ticks ${ticks}`);
    assert.equal(new Set(ticks).size, ticks.length, `${what}: repeated tick labels ${ticks}`);
    // A tooltip shown, then a jump under the resting pointer: gone, or it names what is there now.
    const call = await page.evaluate(() => { const ch = window.jsprof.chart; ch.setView(ch.start, ch.end); ch.draw(); return ch.locate('Task') || ch.locate('Function call') || ch.locate('Layout'); });
    if (call) {
      await page.mouse.move(call.x, call.y);
      await page.waitForTimeout(50);
      const before = await page.evaluate(() => { const t = document.getElementById('tooltip'); return t && !t.hidden ? t.textContent : null; });
      assert.ok(before, `${what}: hovering a call shows its tooltip`);
      const after = await page.evaluate(async () => {
        const ch = window.jsprof.chart;
        ch.setView(ch.end - (ch.end - ch.start) / 1000, ch.end);
        await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
        const t = document.getElementById('tooltip'), m = ch.mouse, h = m && ch.hit(m.x, m.y);
        return { shown: !t.hidden, text: t.textContent, under: h && !h.header ? (h.lane ? h.lane.tooltip(h.item) : ch.tooltip(h)) : null };
      });
      if (after.shown) {
        assert.ok(after.under, `${what}: a tooltip stays with nothing under the pointer`);
        const div = await page.evaluate((html) => { const e = document.createElement('div'); e.innerHTML = html; return e.textContent; }, after.under);
        assert.equal(after.text, div, `${what}: the tooltip names what is under the pointer after a jump`);
      }
    }
    // Search: Enter jumps to a match of the deepest call of the main track and scrolls down
    // to its row, below the page's lanes.
    const deep = await page.evaluate(() => {
      const ch = window.jsprof.chart, ix = ch.tracks[0].ix;
      let best = 0;
      for (let i = 1; i < ix.ev.l.length; i++) if (ix.ev.l[i] > ix.ev.l[best]) best = i;
      ch.setView(ch.start, ch.end); ch.scrollY = 0; ch.draw();
      return { name: ix.doc.strings[ix.ev.n[best]], depth: ix.ev.l[best] };
    });
    await page.fill('input[aria-label="Highlight calls"]', `^${deep.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
    await page.press('input[aria-label="Highlight calls"]', 'Enter');
    const row = await page.evaluate(() => {
      const app = window.jsprof, ch = app.chart, r = ch.canvas.getBoundingClientRect(), L = ch.layout();
      const y = r.top + 22 + L[0].rowsY + app.searchAt.l * 18 - ch.scrollY;
      return { y, top: r.top + 22, bottom: r.bottom, depth: app.searchAt.l };
    });
    assert.ok(row.y >= row.top && row.y + 18 <= row.bottom, `${what}: search's match at depth ${row.depth} (${deep.name}) is drawn at y ${row.y}, outside ${row.top}..${row.bottom}`);
    await page.close();
  }
  assert.deepEqual(errors, [], 'page errors');
  assert.ok(revealed > 0 && tables > 0, 'something was checked');
  console.log(`ui-story: ${expected.cases.length} page loads, ${checked} insights expanded, ${tables} tables (${cells} cells) equal to insights --json, ${revealed} clicks revealed an event`);
} finally {
  await browser.close();
}
