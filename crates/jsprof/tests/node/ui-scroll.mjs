// Browser checks of the heap Summary's virtual scrolling, driven by crates/jsprof/tests/it/ui_scroll.rs.
// Usage: node ui-scroll.mjs CASE URL EXPECTED.json OUT.json SHOTS_DIR
//   scroll  EXPECTED {name, total}: the class NAME (of TOTAL objects, as `jsprof heap class`
//           counts them) is expanded in the Summary, then the scrollbar is dragged to the middle
//           and to the end, in the default order, by shallow size and by shallow size ascending
//           (a click on the column), and the keyboard walks on from the middle. OUT gets, for
//           each stop, the class offset of the first object drawn and the ids drawn from there,
//           which the test compares with `jsprof heap class --sort --offset` (the page's rows are
//           never the expected values); the most rows in the DOM; the requests each stop made;
//           the time from the scroll to the rows painted.
//   report  EXPECTED {name, ids}: in `jsprof report`'s Summary the class NAME expands to the
//           objects the report embeds, IDS (`jsprof heap class`'s first page), then a note that
//           says how many are not embedded.
import { launch, newPage, openReady, readJson, shooter } from './browser.mjs';
import { writeFileSync } from 'node:fs';
import assert from 'node:assert/strict';

const [kind, url, expectedPath, outPath, shots] = process.argv.slice(2);
const expected = readJson(expectedPath);
const browser = await launch();
const errors = [];
const page = await newPage(browser, errors);
const shot = shooter(page, shots);
// Requests for a class's objects, counted by the browser (not by the page's own code).
let classRequests = 0;
page.on('request', (r) => { if (r.url().includes('/heap/class')) classRequests++; });

await openReady(page, url, 120000);
await page.waitForFunction(() => window.jsprof.summary && window.jsprof.summary.table, null, { timeout: 120000 });
const panel = '[role=tabpanel]:not([hidden])';

// The Summary's rows drawn now: the first object's offset in the class, and the ids.
async function drawn(name) {
  return page.evaluate((name) => {
    const t = window.jsprof.summary.table;
    const cls = t.roots.find((r) => r.d.name === name);
    const start = t.positionOf(cls) + 1;
    const rows = t.visible.filter((r) => !r.hole && !r.d.note && !r.d.isClass && r.parent === cls);
    const offset = rows.length ? t.positionOf(rows[0]) - start : null;
    const dom = [...document.querySelectorAll('[role=tabpanel]:not([hidden]) .top tbody tr')];
    // The ids as the DOM shows them (`Leaf @123`), so what is compared is what is painted.
    const ids = dom.map((tr) => (tr.children[0].textContent.match(/@(\d+)$/) || [])[1]).filter(Boolean).map(Number);
    return { offset, ids, domRows: dom.length, total: cls.level.total };
  }, name);
}

// Moves the scrollbar to FRACTION of its range as a drag does, and waits for the rows to be
// painted; returns the time that took and the requests it made.
async function dragTo(fraction) {
  const before = classRequests;
  const ms = await page.evaluate((fraction) => new Promise((resolve) => {
    const t = window.jsprof.summary.table, sc = t.scroller;
    const t0 = performance.now();
    sc.scrollTop = fraction * (sc.scrollHeight - sc.clientHeight);
    const wait = () => requestAnimationFrame(() => {
      if (t.settled && t.visible.length) requestAnimationFrame(() => resolve(performance.now() - t0));
      else wait();
    });
    wait();
  }), fraction);
  await page.waitForTimeout(200); // nothing more may be asked for after the rows are in
  return { ms, requests: classRequests - before };
}


async function stop(what, order, fraction) {
  const { ms, requests } = await dragTo(fraction);
  const d = await drawn(expected.name);
  assert.equal(d.total, expected.total, 'the class counts its objects as the CLI does');
  assert.ok(d.ids.length >= 10, `${what}: rows are drawn (${d.ids.length})`);
  out.stops.push({ what, ...order, offset: d.offset, ids: d.ids, ms, requests });
  out.domRowsMax = Math.max(out.domRowsMax, d.domRows);
  return d;
}

const out = { stops: [], domRowsMax: 0 };
if (kind === 'scroll') {
  await page.fill(`${panel} input[type=search]`, `^${expected.name}$`);
  await page.waitForFunction((n) => window.jsprof.summary.table.roots.length === 1 && window.jsprof.summary.table.roots[0].d.name === n, expected.name, { timeout: 30000 });
  const clicked = Date.now();
  await page.click(`${panel} .top tbody tr .tw`);
  await page.waitForFunction(() => { const r = window.jsprof.summary.table.roots[0]; return r.expanded && window.jsprof.summary.table.settled; }, null, { timeout: 120000 });
  // The first expansion pays for every class's members and this one's sort (once per snapshot).
  out.expandMs = Date.now() - clicked;
  // The scrollbar spans every object: the scrolled height is the class's, not a page's.
  const space = await page.evaluate(() => window.jsprof.summary.table.scroller.scrollHeight);
  assert.ok(space > 1000000, `the scrollbar spans a million rows: ${space} px`);
  await stop('top', { sort: 'retained', ascending: false }, 0);
  // The wheel over a million rows (a pixel of scrollbar is several rows) moves rows by pixels:
  // ten rows' height, ten rows.
  const wheel = await page.evaluate(() => ({ first: window.jsprof.summary.table.first, rowH: window.jsprof.summary.table.rowH }));
  await page.mouse.move(700, 300);
  await page.mouse.wheel(0, wheel.rowH * 10);
  await page.waitForFunction((f) => window.jsprof.summary.table.first !== f, wheel.first, { timeout: 10000 });
  await page.waitForTimeout(100);
  assert.equal(await page.evaluate(() => window.jsprof.summary.table.first), wheel.first + 10, 'the wheel moved ten rows');
  await stop('middle', { sort: 'retained', ascending: false }, 0.5);
  await shot('heap-scroll-middle');
  await stop('end', { sort: 'retained', ascending: false }, 1);
  // Sorted by a column: the server's order, from the top again where the scrollbar is.
  await page.click(`${panel} .top thead th:nth-child(3)`);
  await stop('self middle', { sort: 'self', ascending: false }, 0.5);
  await page.click(`${panel} .top thead th:nth-child(3)`);
  await stop('self ascending end', { sort: 'self', ascending: true }, 1);
  await stop('self ascending middle', { sort: 'self', ascending: true }, 0.37);
  // The keyboard: a row selected in the middle, then ↓ across pages and PageDown.
  const mid = out.stops[out.stops.length - 1];
  await page.click(`${panel} .top tbody tr:nth-child(3)`);
  await page.focus(`${panel} .top table.grid`);
  for (let i = 0; i < 130; i++) await page.keyboard.press('ArrowDown');
  await page.keyboard.press('PageDown');
  await page.waitForFunction(() => window.jsprof.summary.table.settled, null, { timeout: 30000 });
  const sel = await page.evaluate(() => {
    const t = window.jsprof.summary.table, r = t.selected;
    const cls = t.roots[0];
    return { offset: t.positionOf(r) - t.positionOf(cls) - 1, id: r.d.id, inView: t.visible.includes(r), dom: document.querySelector("[role=tabpanel]:not([hidden]) .top tbody tr[aria-selected=true]")?.children[0].textContent };
  });
  assert.ok(sel.inView && sel.dom && sel.dom.endsWith(`@${sel.id}`), `the selected row is in view and drawn selected: ${JSON.stringify(sel)}`);
  const rowsInView = await page.evaluate(() => window.jsprof.summary.table.geometry().inView);
  assert.equal(sel.offset, mid.offset + 2 + 130 + rowsInView, 'the selection moved 130 rows and a screen down');
  out.keyboard = { sort: 'self', ascending: true, offset: sel.offset, ids: [sel.id] };
  await shot('heap-scroll-keyboard');
  // ← goes up to the class a million rows above, ← again closes it: the class is drawn, selected.
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  await page.waitForFunction(() => !window.jsprof.summary.table.roots[0].expanded, null, { timeout: 30000 });
  const closed = await page.evaluate(() => {
    const t = window.jsprof.summary.table;
    return { count: t.count, selected: t.selected === t.roots[0], drawn: document.querySelector('[role=tabpanel]:not([hidden]) .top tbody tr[aria-selected=true]')?.children[0].textContent };
  });
  assert.equal(closed.count, 1, 'the class closed: one row left');
  assert.ok(closed.selected && closed.drawn && closed.drawn.includes(expected.name), `the closed class is selected and drawn: ${JSON.stringify(closed)}`);
} else if (kind === 'report') {
  await page.fill(`${panel} input[type=search]`, `^${expected.name}$`);
  await page.waitForFunction((n) => window.jsprof.summary.table.roots.length === 1 && window.jsprof.summary.table.roots[0].d.name === n, expected.name, { timeout: 30000 });
  await page.click(`${panel} .top tbody tr .tw`);
  await page.waitForFunction(() => window.jsprof.summary.table.roots[0].expanded, null, { timeout: 30000 });
  const got = await page.evaluate(() => {
    const t = window.jsprof.summary.table;
    return { ids: t.roots[0].kids.filter((r) => !r.d.note).map((r) => r.d.id), notes: t.roots[0].kids.filter((r) => r.d.note).map((r) => r.d.note) };
  });
  assert.deepEqual(got.ids, expected.ids, 'the report embeds the class\'s first objects, as `jsprof heap class` lists them');
  // Scrolled to the end, where the note is.
  await page.evaluate(() => { const sc = window.jsprof.summary.table.scroller; sc.scrollTop = sc.scrollHeight; });
  await page.waitForTimeout(200);
  const text = await page.textContent(`${panel} .top tbody`);
  const left = (expected.total - expected.ids.length).toLocaleString('en-US');
  assert.ok(text.includes(`${left} more not embedded in this report`), `the report says what it does not embed: ${text.slice(-300)}`);
  assert.equal(got.notes.length, 1);
  await shot('heap-scroll-report');
} else throw new Error('unknown case ' + kind);

assert.deepEqual(errors, [], 'page errors');
writeFileSync(outPath, JSON.stringify(out));
await browser.close();
