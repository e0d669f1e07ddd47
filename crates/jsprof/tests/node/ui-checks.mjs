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
//   linked     {table, chart}: selecting TABLE ({name, url, line, column} of a `jsprof top` row) in Functions highlights
//              exactly it in the flame chart and the flame graph; clicking a call of CHART in
//              the chart selects it in the function tables.
//   search     {name, starts}: typing NAME in the chart's search counts the matches; Enter zooms
//              to the first, shift+Enter back to the last: each a call of NAME that the CLI
//              lists (`jsprof events`' start times STARTS).
//   transforms {name, full, focus, focus_rec}: right-click NAME in Functions → Focus on function,
//              then → Collapse recursion; each table is the CLI's (`jsprof top --focus '^NAME$'
//              [--collapse-recursion]`); the address carries the state; Undo and the first
//              breadcrumb go back (FULL: `jsprof top`).
//   deep       {depth}: the deepest stack of the profile (`jsprof tree --json`): the flame graph
//              scrolls to show it, and zooming into the deepest frame brings it into view.
import { assertFunctionsAreTop, newPage, startCheck } from './browser.mjs';
import { readFileSync } from 'node:fs';
import assert from 'node:assert/strict';

const { kind, url, expected, browser, errors, page, shot } = await startCheck();

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
  const again = await newPage(browser, errors);
  await again.goto(link);
  await again.waitForFunction(() => window.jsprof && window.jsprof.ready && window.jsprof.tables.functions, null, { timeout: 60000 });
  const got = await again.evaluate(() => ({ tab: window.jsprof.current.tab, range: window.jsprof.current.range, shown: window.jsprof.tables.functions.profile.range, chip: document.getElementById('range-text').textContent, roots: window.jsprof.tables.functions.roots.map((d) => [d.name, d.self]) }));
  assert.equal(got.tab, 'functions', `the tab from ${link}`);
  assert.ok(got.range && Math.abs(got.range[0] - expected.range[0]) < 1e-3 && Math.abs(got.range[1] - expected.range[1]) < 1e-3, `the range from ${link}: ${got.range}`);
  assert.ok(/Selection/.test(got.chip), 'no selection chip');
  const want = new Map(expected.top.functions.map((f) => [f.name, f.self_ms]));
  assert.equal(got.roots.length, want.size, 'rows of the reopened range');
  for (const [n, self] of got.roots) assert.ok(Math.abs(self - want.get(n)) <= 0.001, `${n}: ${self} vs the CLI's ${want.get(n)}`);
} else if (kind === 'linked') {
  await page.waitForFunction(() => window.jsprof.chart && window.jsprof.chart.stats.frames > 0);
  await tab('flamegraph');
  await page.waitForFunction(() => window.jsprof.flamegraph);
  await tab('functions');
  await page.waitForFunction(() => window.jsprof.tables.functions);
  const rows = await page.$$('[role=tabpanel]:not([hidden]) tbody tr');
  // The row of that very function (its name may be shared by others: the location decides).
  const want = expected.table, label = `${want.url}:${want.line}:${want.column}`;
  let clicked = false;
  for (const r of rows) {
    const [name, loc] = await r.$$eval('td', (tds) => [tds[4].textContent, tds[5].textContent]);
    if (name === want.name && loc === label) { await r.click(); clicked = true; break; }
  }
  assert.ok(clicked, `no row ${want.name} ${label} in Functions`);
  const hl = await page.evaluate((want) => {
    const c = window.jsprof.chart, g = window.jsprof.flamegraph;
    const same = (k) => k.name === want.name && k.url === want.url && k.line === want.line && k.column === want.column;
    // Every call of the main track: those of the function must be kept, every other dimmed.
    const t = c.tracks[0], ix = c.current(t), ev = ix.ev, doc = ix.doc;
    let kept = 0, wrong = [];
    for (let i = 0; i < ev.s.length; i++) {
      const f = ev.f[i] >= 0 ? doc.functions[ev.f[i]] : null;
      const k = f ? { name: doc.strings[f[0]], url: doc.strings[f[1]], line: f[2], column: f[3] } : { name: doc.strings[ev.n[i]], url: '', line: null, column: null };
      if (c.matches(ix, i) !== same(k)) wrong.push(k.name); else if (same(k)) kept++;
    }
    let frames = 0, wrongFrames = [];
    for (let i = 0; i < g.depth.length; i++) {
      const hit = !!(g.match && g.match(g.label(i)));
      if (hit !== same(g.keyOf(i))) wrongFrames.push(g.keyOf(i).name); else if (hit) frames++;
    }
    return { key: c.match && c.match.key && c.match.key.name, kept, wrong: wrong.slice(0, 5), frames, wrongFrames: wrongFrames.slice(0, 5) };
  }, want);
  assert.equal(hl.key, want.name, 'the chart highlights the selected function');
  assert.ok(hl.kept > 0 && !hl.wrong.length, `the chart keeps ${hl.kept} calls of the function; wrongly dimmed or kept: ${hl.wrong}`);
  assert.ok(hl.frames > 0 && !hl.wrongFrames.length, `the flame graph marks ${hl.frames} frames; wrong: ${hl.wrongFrames}`);
  // The reverse: a call clicked in the chart is selected in the tables.
  await tab('chart');
  const at = await page.evaluate((n) => window.jsprof.chart.locate(n), expected.chart);
  assert.ok(at, `no call ${expected.chart} drawn`);
  await page.mouse.click(at.x, at.y);
  await page.waitForTimeout(300);
  const sel = await page.evaluate(() => Object.entries(window.jsprof.tables).filter(([k]) => k.endsWith('functions')).map(([k, v]) => [k, v.table.selected && v.table.selected.d.name]));
  assert.ok(sel.length >= 2, `function tables: ${JSON.stringify(sel)}`);
  for (const [k, n] of sel) assert.equal(n, expected.chart, `${k} selects the call clicked in the chart`);
  await shot('linked-selection');
} else if (kind === 'search') {
  await page.waitForFunction(() => window.jsprof.chart && window.jsprof.chart.stats.frames > 0);
  const box = 'input[aria-label="Highlight calls"]';
  await page.fill(box, `^${expected.name}$`);
  await page.waitForTimeout(200);
  const info = await page.$eval(box, (i) => i.nextElementSibling.textContent);
  const n = Number((info.match(/^([\d,]+) match/) || [])[1]?.replace(/,/g, ''));
  assert.ok(n > 0 && n <= expected.starts.length, `the search says "${info}"; the CLI has ${expected.starts.length} calls`);
  const near = (s) => expected.starts.some((x) => Math.abs(x - s) <= 0.002);
  await page.press(box, 'Enter');
  await page.waitForTimeout(300);
  const first = await page.evaluate(() => ({ at: window.jsprof.searchAt, view: [window.jsprof.chart.t0, window.jsprof.chart.t1], info: document.querySelector('input[aria-label="Highlight calls"]').nextElementSibling.textContent }));
  assert.ok(near(first.at.s), `the first match starts at ${first.at.s}, not a call of ${expected.name}`);
  assert.ok(first.view[0] <= first.at.s && first.view[1] >= first.at.s + first.at.d, `the view ${first.view} does not hold the match`);
  assert.ok(/^1 \/ /.test(first.info), first.info);
  await page.keyboard.press('Shift+Enter');
  await page.waitForTimeout(300);
  const last = await page.evaluate(() => window.jsprof.searchAt);
  assert.ok(near(last.s) && last.s >= first.at.s, `shift+Enter went to ${last.s}`);
  await shot('chart-search');
} else if (kind === 'transforms') {
  await tab('functions');
  await page.waitForFunction(() => window.jsprof.tables.functions);
  const same = (top, what) => assertFunctionsAreTop(page, top, what);

  const transform = async (name, id) => {
    const rows = await page.$$('[role=tabpanel]:not([hidden]) tbody tr');
    let hit = null;
    for (const r of rows) if ((await r.$eval('td:nth-child(5)', (td) => td.textContent)) === name) { hit = r; break; }
    assert.ok(hit, `no row ${name}`);
    await hit.click({ button: 'right' });
    await page.click(`#menu button[data-transform=${id}]`);
    await page.waitForFunction((n) => document.querySelectorAll('#crumbs button').length >= n, 2);
    await page.waitForFunction(() => window.jsprof.tables.functions && !document.getElementById('f-info').textContent.startsWith('Filtering'));
    await page.waitForTimeout(300);
  };
  await same(expected.full, 'before');
  await transform(expected.name, 'focus');
  await same(expected.focus, 'focus');
  assert.ok(/focus=/.test(page.url()), `the address keeps the focus: ${page.url()}`);
  await transform(expected.name, 'recursion');
  await same(expected.focus_rec, 'focus + collapse recursion');
  const crumbs = await page.$$eval('#crumbs button', (bs) => bs.map((b) => b.textContent));
  assert.deepEqual(crumbs.slice(0, 3), ['Full profile', `Focus ${expected.name}`, 'Collapse recursion'], `breadcrumbs ${crumbs}`);
  await shot('transforms');
  await page.click('#crumbs #undo');
  await page.waitForFunction(() => document.querySelectorAll('#crumbs button').length === 3);
  await page.waitForTimeout(500);
  await same(expected.focus, 'undo');
  await page.click('#crumbs button:first-child');
  await page.waitForFunction(() => document.getElementById('crumbs').hidden);
  await page.waitForTimeout(500);
  await same(expected.full, 'back to the full profile');
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
