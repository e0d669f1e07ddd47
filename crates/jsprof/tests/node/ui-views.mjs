// Browser checks of the views added for issue 19's "what users expect", driven by
// crates/jsprof/tests/it/ui_views.rs. Usage:
//   node ui-views.mjs CASE URL EXPECTED.json SHOTS_DIR
// EXPECTED is what the CLI printed (never the page's output pasted back):
//   sandwich {name, sandwich, other, other_top}: right-click NAME in Functions → Show in sandwich
//            (in a report, where there is no menu, the Sandwich tab opened on it):
//            the function's self/total and the first level of its callers and callees are
//            `jsprof tree --sandwich '^NAME$' --json`'s (SANDWICH); a right-click on a call in the
//            flame chart and on a frame in the flame graph opens the same menu; picking OTHER in
//            the sandwich's table shows its total (OTHER_TOP: its `jsprof top` row).
//   drop     {name, full, drop}: right-click NAME → Drop samples with this function: the
//            Functions table is `jsprof top --drop '^NAME$'`'s, the address keeps `drop=`,
//            Undo gives back FULL.
//   search   {pattern, functions, top_down}: typing PATTERN in Functions and in Call tree
//            counts the CLI's matching rows (`jsprof top`) and tree nodes (`jsprof tree
//            --min-percent 0.01`), highlights them, and Enter steps through them; the flame
//            graph counts the same tree's frames and Enter zooms to each.
//   polish   {}: with the system in dark mode the page and the chart's canvas are dark; at
//            1024 px the header holds every tab and nothing scrolls sideways; the handle between
//            the chart and its tables resizes them (mouse and keys) and is remembered; the
//            sidebar folds and stays folded after a reload; an engine event's tooltip uses the
//            Performance panel's title; the main track names its process (PROCESS, from
//            `jsprof threads --json`).
//   uncut    {locations: [{name, location, file}]}: at 1024 px no input's placeholder is cut
//            (measured in its own font), each function's Location keeps its file, line and
//            column whole (LOCATION and FILE from `jsprof top --json`) while the directory part
//            gives way, and mouse clicks leave no focus ring where keyboard focus shows one.
import { assertFunctionsAreTop, launch, newPage, openReady, readJson, shooter } from './browser.mjs';
import assert from 'node:assert/strict';

const [kind, url, expectedPath, shots] = process.argv.slice(2);
const expected = readJson(expectedPath);
const browser = await launch();
const context = await browser.newContext({ viewport: { width: 1400, height: 860 } });
const errors = [];
const page = await newPage(context, errors);
const shot = shooter(page, shots);
const TOL = 0.001;
const near = (a, b) => Math.abs(a - b) <= TOL;

await openReady(page, url);

async function tab(name) {
  await page.click(`#tabs button[data-tab=${name}]`);
  await page.waitForTimeout(300);
}

// The row of function NAME in the shown table (by its Function cell).
async function rowOf(name, scope = '[role=tabpanel]:not([hidden])') {
  const rows = await page.$$(`${scope} tbody tr`);
  for (const r of rows) if ((await r.$eval('td.fn', (td) => td.textContent.replace(/^[▸▾]/, ''))) === name) return r;
  return null;
}

// `jsprof tree --json` nodes of depth 1 (the first level under the one root) as name → total.
const level1 = (nodes) => new Map(nodes.filter((n) => n.depth === 1).map((n) => [`${n.name}\t${n.url}\t${n.line}`, n.total_ms]));

if (kind === 'sandwich') {
  const want = expected.sandwich;
  await page.waitForFunction(() => window.jsprof.chart && window.jsprof.chart.stats.frames > 0);
  await tab('functions');
  await page.waitForFunction(() => window.jsprof.tables.functions);
  const offline = url.startsWith('file:');
  if (offline) {
    // The report has no menu (its filters were applied when it was written): the tab's own way.
    const f = want.function;
    await page.evaluate((f) => window.jsprof.showSandwich({ name: f.name, url: f.url, line: f.line, column: f.column }), f);
  } else {
    const row = await rowOf(expected.name);
    assert.ok(row, `no row ${expected.name} in Functions`);
    await row.click({ button: 'right' });
    await page.click('#menu button[data-action=sandwich]');
  }
  await page.waitForFunction((n) => window.jsprof.sandwich && window.jsprof.sandwich.doc && window.jsprof.sandwich.fn.name === n && window.jsprof.sandwich.callers, expected.name, { timeout: 60000 });
  const got = await page.evaluate(() => {
    const s = window.jsprof.sandwich;
    const kids = (v) => (v.roots[0] ? v.roots[0].kids.map((d) => ({ key: `${d.name}\t${d.url}\t${d.line}`, total: d.total })) : []);
    return { self: s.doc.function_self, total: s.doc.function_total, roots: [s.callers.roots.length, s.callees.roots.length], callers: kids(s.callers), callees: kids(s.callees), head: s.head.textContent, tab: document.querySelector('#tabs button[aria-selected=true]').dataset.tab };
  });
  assert.equal(got.tab, 'sandwich');
  assert.ok(near(got.self, want.function.self_ms) && near(got.total, want.function.total_ms), `the sandwich says self ${got.self}, total ${got.total}; the CLI ${want.function.self_ms}, ${want.function.total_ms}`);
  assert.deepEqual(got.roots, [1, 1], 'one root in each half: the function');
  for (const [what, rows, cli] of [['callers', got.callers, level1(want.callers)], ['callees', got.callees, level1(want.callees)]]) {
    // The page leaves out nodes under 0.01 % of the total (it says so); the CLI lists them all.
    const floor = want.duration_ms * 1e-4;
    const cliShown = [...cli].filter(([, t]) => t >= floor);
    assert.equal(rows.length, cliShown.length, `${what}: ${rows.length} rows, the CLI ${cliShown.length}: ${JSON.stringify(rows.slice(0, 5))}`);
    for (const r of rows) assert.ok(cli.has(r.key) && near(cli.get(r.key), r.total), `${what}: ${r.key} ${r.total} vs the CLI's ${cli.get(r.key)}`);
  }
  assert.ok(got.head.includes(expected.name), `the header names the function: ${got.head}`);
  await shot(offline ? 'sandwich-report' : 'sandwich');
  // Another function picked in the sandwich's own table.
  const other = await rowOf(expected.other, '.sandwich-pick');
  assert.ok(other, `no row ${expected.other} in the sandwich's table`);
  await other.click();
  await page.waitForFunction((n) => window.jsprof.sandwich.fn.name === n && window.jsprof.sandwich.doc, expected.other);
  await page.waitForTimeout(300);
  const total = await page.evaluate(() => window.jsprof.sandwich.doc.function_total);
  assert.ok(near(total, expected.other_top.total_ms), `${expected.other}: total ${total}, the CLI ${expected.other_top.total_ms}`);
  // The menu from the chart and from the flame graph (a live page's).
  if (offline) { assert.deepEqual(errors, [], 'page errors'); await browser.close(); process.exit(0); }
  await tab('chart');
  const at = await page.evaluate((n) => window.jsprof.chart.locate(n), expected.name);
  assert.ok(at, `no call ${expected.name} drawn`);
  await page.mouse.click(at.x, at.y, { button: 'right' });
  await page.waitForSelector('#menu:not([hidden]) button[data-transform=focus]');
  const menuFrom = await page.$eval('#menu', (m) => m.firstChild.textContent);
  assert.equal(menuFrom, expected.name, 'the chart\'s menu is for the call right-clicked');
  await page.keyboard.press('Escape');
  await tab('flamegraph');
  await page.waitForFunction(() => window.jsprof.flamegraph);
  const box = await page.evaluate((n) => {
    const g = window.jsprof.flamegraph;
    for (let i = 0; i < g.depth.length; i++) if (g.keyOf(i).name === n) { g.zoomTo(i); return g.frameBox(i); }
    return null;
  }, expected.name);
  assert.ok(box, `no frame ${expected.name} in the flame graph`);
  await page.mouse.click(box.x + Math.min(20, box.w / 2), box.y + box.h / 2, { button: 'right' });
  await page.waitForSelector('#menu:not([hidden]) button[data-transform=drop]');
  assert.equal(await page.$eval('#menu', (m) => m.firstChild.textContent), expected.name, 'the flame graph\'s menu is for the frame right-clicked');
} else if (kind === 'drop') {
  await tab('functions');
  await page.waitForFunction(() => window.jsprof.tables.functions);
  const same = (top, what) => assertFunctionsAreTop(page, top, what);

  await same(expected.full, 'before');
  const row = await rowOf(expected.name);
  assert.ok(row, `no row ${expected.name}`);
  await row.click({ button: 'right' });
  await page.click('#menu button[data-transform=drop]');
  await page.waitForFunction(() => document.querySelectorAll('#crumbs button').length >= 2);
  await page.waitForFunction(() => window.jsprof.tables.functions && !document.getElementById('f-info').textContent.startsWith('Filtering'));
  await page.waitForTimeout(300);
  await same(expected.drop, 'drop');
  assert.ok(/drop=/.test(page.url()), `the address keeps the drop: ${page.url()}`);
  assert.equal(await page.$eval('#f-drop', (i) => i.value), `^${expected.name}$`, 'the bar shows the pattern');
  const info = await page.$eval('#f-info', (e) => e.textContent);
  assert.ok(/^Showing /.test(info), `the bar says how much is left: ${info}`);
  await shot('drop');
  await page.click('#crumbs #undo');
  await page.waitForFunction(() => document.getElementById('crumbs').hidden);
  await page.waitForTimeout(500);
  await same(expected.full, 'undo');
} else if (kind === 'search') {
  // Functions: the count is the CLI's rows that match; Enter selects them in turn.
  for (const [name, count] of [['functions', expected.functions], ['top_down', expected.top_down]]) {
    await tab(name);
    await page.waitForFunction((n) => window.jsprof.tables[n], name);
    await page.fill('[role=tabpanel]:not([hidden]) input[type=search]', expected.pattern);
    await page.waitForFunction((n) => window.jsprof.tables[n].test, name);
    await page.waitForTimeout(300);
    const info = await page.$eval('[role=tabpanel]:not([hidden]) .toolbar .hint', (e) => e.textContent);
    assert.ok(info.startsWith(`${count} match`), `${name}: "${info}", the CLI has ${count}`);
    const marked = await page.$$eval('[role=tabpanel]:not([hidden]) tbody tr.match', (trs) => trs.map((tr) => tr.querySelector('td.fn').textContent.replace(/^[▸▾]/, '')));
    assert.ok(marked.length > 0 && marked.every((n) => new RegExp(expected.pattern, 'i').test(n)), `${name}: highlighted rows ${marked}`);
    for (let k = 1; k <= Math.min(3, count); k++) {
      await page.press('[role=tabpanel]:not([hidden]) input[type=search]', 'Enter');
      await page.waitForTimeout(200);
      const sel = await page.evaluate((n) => { const t = window.jsprof.tables[n].table; return t.selected && { name: t.selected.d.name, shown: !!(t.selected.tr && t.selected.tr.isConnected) }; }, name);
      assert.ok(sel && new RegExp(expected.pattern, 'i').test(sel.name) && sel.shown, `${name}: Enter #${k} selected ${JSON.stringify(sel)}`);
      const at = await page.$eval('[role=tabpanel]:not([hidden]) .toolbar .hint', (e) => e.textContent);
      assert.ok(at.startsWith(`${k} / ${count}`), `${name}: after Enter #${k}: "${at}"`);
    }
  }
  await shot('search-tree');
  // The flame graph: its frames are the Call tree's nodes; Enter zooms to each match in turn.
  await tab('flamegraph');
  await page.waitForFunction(() => window.jsprof.flamegraph);
  await page.fill('[role=tabpanel]:not([hidden]) input[type=search]', expected.pattern);
  await page.waitForTimeout(300);
  const fg = await page.$eval('[role=tabpanel]:not([hidden]) .toolbar .hint', (e) => e.textContent);
  assert.ok(fg.startsWith(`${expected.top_down} frame`), `flame graph: "${fg}", the CLI's tree has ${expected.top_down}`);
  const seen = new Set();
  for (let k = 1; k <= Math.min(3, expected.top_down); k++) {
    await page.press('[role=tabpanel]:not([hidden]) input[type=search]', 'Enter');
    await page.waitForTimeout(150);
    const z = await page.evaluate(() => { const g = window.jsprof.flamegraph; return { i: g.zoomNode, name: g.keyOf(g.zoomNode).name }; });
    assert.ok(new RegExp(expected.pattern, 'i').test(z.name) && !seen.has(z.i), `flame graph Enter #${k}: zoomed to ${JSON.stringify(z)}`);
    seen.add(z.i);
  }
} else if (kind === 'polish') {
  // Dark, as the system says.
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.waitForFunction(() => window.jsprof.chart && window.jsprof.chart.stats.frames > 0);
  // The chart redraws on its next animation frame after the switch; on a loaded machine that can
  // take longer than a fixed wait, so read its pixel until it turns dark (or 15 s pass, and the
  // assertion below says what it was).
  const chartPixel = () => page.evaluate(() => { const c = window.jsprof.chart.canvas; const p = c.getContext('2d').getImageData(Math.floor(c.width / 2) + 1, 1, 1, 1).data; return 0.2126 * p[0] + 0.7152 * p[1] + 0.0722 * p[2]; });
  const settle = async (ok) => { for (const end = Date.now() + 15000; Date.now() < end && !ok(await chartPixel());) await page.waitForTimeout(100); };
  await settle((l) => l < 40);
  const dark = await page.evaluate(() => {
    const lum = (css) => { const m = css.match(/\d+(\.\d+)?/g).map(Number); return 0.2126 * m[0] + 0.7152 * m[1] + 0.0722 * m[2]; };
    const c = window.jsprof.chart.canvas, ctx = c.getContext('2d');
    // The chart's time axis, above its labels.
    const px = ctx.getImageData(Math.floor(c.width / 2) + 1, 1, 1, 1).data;
    return { body: lum(getComputedStyle(document.body).backgroundColor), text: lum(getComputedStyle(document.body).color), canvas: 0.2126 * px[0] + 0.7152 * px[1] + 0.0722 * px[2] };
  });
  assert.ok(dark.body < 40 && dark.text > 180, `dark page: background ${dark.body}, text ${dark.text}`);
  assert.ok(dark.canvas < 40, `dark chart background: ${dark.canvas}`);
  await shot('dark');
  // Light again: the chart follows without a reload.
  await page.emulateMedia({ colorScheme: 'light' });
  await settle((l) => l > 700 / 3);
  const light = await page.evaluate(() => { const c = window.jsprof.chart.canvas; const p = c.getContext('2d').getImageData(Math.floor(c.width / 2) + 1, 1, 1, 1).data; return p[0] + p[1] + p[2]; });
  assert.ok(light > 700, `the chart went back to light: ${light}`);
  // The main track is headed by its process's name, as `jsprof threads` names it.
  if (expected.process) {
    const head = await page.evaluate(() => window.jsprof.chart.tracks[0].process);
    assert.equal(head, expected.process, 'the main track names its process');
  }
  // An engine event's tooltip: the Performance panel's title, the trace name beneath.
  if (expected.event) {
    const at = await page.evaluate((n) => window.jsprof.chart.locate(n), expected.event.name);
    assert.ok(at, `no event ${expected.event.name} drawn`);
    await page.mouse.move(at.x, at.y);
    await page.waitForSelector('#tooltip:not([hidden])');
    const tip = await page.$eval('#tooltip .tt-name', (e) => e.textContent);
    assert.equal(tip, expected.event.title, 'the tooltip names the event as DevTools does');
  }
  // The split: drag the handle up, the chart gets smaller and the tables taller; keys move it.
  const split = async () => page.evaluate(() => { const s = document.querySelector('.split'); return { top: s.querySelector('.top').getBoundingClientRect().height, bottom: s.querySelector('.bottom').getBoundingClientRect().height }; });
  const before = await split();
  const h = await page.$('.splitter');
  const hb = await h.boundingBox();
  await page.mouse.move(hb.x + hb.width / 2, hb.y + hb.height / 2);
  await page.mouse.down();
  await page.mouse.move(hb.x + hb.width / 2, hb.y - 150, { steps: 5 });
  await page.mouse.up();
  const after = await split();
  assert.ok(after.top < before.top - 100 && after.bottom > before.bottom + 100, `dragging the handle: ${JSON.stringify(before)} → ${JSON.stringify(after)}`);
  await h.focus();
  await page.keyboard.press('ArrowDown');
  const keyed = await split();
  assert.ok(keyed.top > after.top + 20, `ArrowDown on the handle: ${JSON.stringify(after)} → ${JSON.stringify(keyed)}`);
  // The sidebar folds, and stays folded on the next page.
  await page.click('#sessions .fold');
  const folded = await page.$eval('#sessions', (s) => [s.classList.contains('folded'), s.getBoundingClientRect().width]);
  assert.ok(folded[0] && folded[1] < 40, `the sidebar folds: ${folded}`);
  // 1024 px: every tab visible in the header, nothing scrolls sideways.
  await page.setViewportSize({ width: 1024, height: 700 });
  await page.reload();
  await page.waitForFunction(() => window.jsprof && window.jsprof.ready, null, { timeout: 60000 });
  await page.waitForTimeout(300);
  const narrow = await page.evaluate(() => ({
    page: document.documentElement.scrollWidth,
    tabs: [...document.querySelectorAll('#tabs button')].map((b) => { const r = b.getBoundingClientRect(); return [b.textContent, Math.round(r.left), Math.round(r.right)]; }),
    folded: document.getElementById('sessions').classList.contains('folded'),
    split: document.querySelector('.split .top') && document.querySelector('.split .top').style.flex,
  }));
  assert.ok(narrow.page <= 1024, `at 1024 px the page is ${narrow.page} px wide`);
  for (const [name, l, r] of narrow.tabs) assert.ok(l >= 0 && r <= 1024, `tab ${name} at ${l}..${r} is cut off at 1024 px`);
  assert.ok(narrow.folded, 'the sidebar stayed folded');
  assert.ok(narrow.split && !narrow.split.startsWith('0.6 '), `the split was remembered: ${narrow.split}`);
  await shot('narrow-1024');
} else if (kind === 'uncut') {
  // A Location is never cut where it matters: the file, line and column stay whole and the
  // directory part gives way; a placeholder is never cut; a mouse click leaves no focus ring.
  await page.setViewportSize({ width: 1024, height: 760 });
  await page.waitForTimeout(300);
  const fits = async () => page.evaluate(() => {
    const ctx = document.createElement('canvas').getContext('2d');
    const out = [];
    for (const i of document.querySelectorAll('input[placeholder]')) {
      const r = i.getBoundingClientRect();
      if (!r.width || !i.offsetParent) continue;
      const cs = getComputedStyle(i);
      ctx.font = `${cs.fontStyle} ${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
      const room = i.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
      // Chromium leaves a search field's clear button room only once text is typed.
      out.push({ label: i.getAttribute('aria-label'), text: i.placeholder, need: Math.ceil(ctx.measureText(i.placeholder).width), room: Math.floor(room) });
    }
    return out;
  });
  const cut = (list) => list.filter((p) => p.need > p.room);
  for (const t of ['functions', 'top_down', 'bottom_up', 'chart', 'flamegraph', 'sandwich']) {
    await tab(t);
    const list = await fits();
    assert.ok(list.length > 0 , `no input with a placeholder on ${t}`);
    assert.deepEqual(cut(list), [], `placeholders cut on ${t}`);
  }
  await tab('functions');
  await page.waitForFunction(() => window.jsprof.tables.functions);
  for (const want of expected.locations) {
    const row = await rowOf(want.name);
    assert.ok(row, `no row ${want.name} in Functions`);
    const loc = await row.$eval('td.loc', (td) => {
      const q = (c) => td.querySelector(c);
      // The cell as far as it is on screen: inside its scrolling pane.
      const box = td.getBoundingClientRect(), pane = td.closest('.scroll, [role=tabpanel]').getBoundingClientRect();
      const tr = { left: Math.max(box.left, pane.left), right: Math.min(box.right, pane.right) };
      const whole = (e) => { const r = e.getBoundingClientRect(); return e.scrollWidth <= e.clientWidth + 1 && r.right <= tr.right + 1 && r.left >= tr.left - 1; };
      return { file: q('.file').textContent + q('.pos').textContent, all: [...q('.locwrap').children].map((e) => e.textContent).join(''), title: q('.locwrap').title, fileWhole: whole(q('.file')) && whole(q('.pos')), dirCut: q('.dir').scrollWidth > q('.dir').clientWidth };
    });
    assert.equal(loc.file, want.file, `${want.name}: the file part`);
    assert.equal(loc.all, want.location, `${want.name}: the whole location`);
    assert.equal(loc.title, want.location, `${want.name}: the tooltip`);
    assert.ok(loc.fileWhole, `${want.name}: ${want.file} is cut off`);
    if (want.location.length > 120) assert.ok(loc.dirCut, `${want.name}: a ${want.location.length}-character location fits at 1024 px?`);
  }
  const page1 = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(page1 <= 1024, `long locations widen the page to ${page1} px`);
  // Mouse clicks on a row and on the chart: no focus ring (keyboard focus still shows one).
  const ring = async () => page.evaluate(() => { const a = document.activeElement; const cs = getComputedStyle(a); return `${a.tagName}:${cs.outlineStyle}:${cs.outlineWidth}`; });
  await (await rowOf(expected.locations[0].name)).click();
  assert.match(await ring(), /:none:|:0px$/, 'a clicked table shows a focus ring');
  await tab('chart');
  const c = await page.$('[role=tabpanel]:not([hidden]) canvas');
  if (c) {
    const b = await c.boundingBox();
    await page.mouse.click(b.x + b.width / 2, b.y + 40);
    assert.match(await ring(), /:none:|:0px$/, 'a clicked chart shows a focus ring');
  }
  await page.keyboard.press('Tab');
  const keyed = await page.evaluate(() => { const a = document.activeElement; return a === document.body ? 'body' : getComputedStyle(a).outlineStyle; });
  assert.ok(keyed === 'body' || keyed !== 'none', `keyboard focus shows no ring (${keyed})`);
  await tab('functions');
  await shot('uncut-1024');
} else {
  throw new Error(`unknown case ${kind}`);
}
assert.deepEqual(errors, [], 'page errors');
await browser.close();
