// Browser checks of issue 19's heap views you can walk, driven by crates/jsprof/tests/it/ui_heap.rs.
// Usage: node ui-heap.mjs CASE URL EXPECTED.json SHOTS_DIR
// EXPECTED is what the CLI printed (never the page's own output pasted back):
//   retainers   {id, levels: [{total, rows: [[edge, id]]}], other}: `jsprof heap edges ID
//               --retainers` for the object and then for each first retainer DevTools opens
//               (`expandRetainersChain`); the Retainers tree must show exactly these rows at
//               these depths; OTHER {id, rows} is another retainer, opened by hand.
//   containment {root, parent, big, pages}: `jsprof heap edges root` is the Containment view's
//               first level; BIG (under PARENT, or the root) opens to the first page of its
//               edges and its "more" row adds the second.
//   strings     `jsprof heap strings --json`: the Strings tab's rows, in order.
//   advisors    `jsprof heap advisors --limit 500 --json`: the Advisors tab's rows, in order, and
//               a selected finding's retainers.
//   allocations {bottom_up, top_down}: `jsprof heap allocations [--bottom-up] --json`: the
//               Allocations tab's roots in both modes and the first root's children.
//   comparison  {key, row, new: [page1, page2], deleted}: `jsprof heap diff BASE THIS --json`'s
//               row KEY is in the Comparison; it expands to `heap diff --class KEY`'s new objects
//               (ids, largest first) and deleted ones, and its "more" row adds the next page;
//               TARGET names the snapshot whose Comparison it is (the page is moved to it).
//   between     {target, first, second, report}: `jsprof heap summary TARGET --between FIRST
//               SECOND --json`: the Summary's "Objects allocated between" filter has its rows.
//   process     `jsprof heap process SNAPSHOTS… --json`: the Process tab's isolates (this
//               snapshot and the others open) and each process's RSS line.
//   contexts    {contexts, report, class}: `jsprof heap contexts --json` is the Summary's
//               "JavaScript context" select (each context, shared, none); choosing REPORT's
//               context shows `jsprof heap summary --context ID --json`'s rows, and CLASS expands
//               to the first page of as many objects as that Summary counts.
//   original    `jsprof heap summary --json` of a bundled snapshot: each class row with a
//               `source_name` shows it and its `source_location` beside DevTools' name; with
//               `objects` (`jsprof heap class --json` of one class), its first object's row
//               shows its location and original.
//   tabs        {present, absent}: tab names that must (not) be in the tab bar.
import { startCheck } from './browser.mjs';
import assert from 'node:assert/strict';

const { kind, url, expected, browser, errors, page, shot } = await startCheck();

// The Summary's class `key` expanded: how many of its objects the first page lists.
async function summaryObjects(key) {
  return page.evaluate(async (key) => {
    const t = window.jsprof.summary.table;
    const r = t.roots.find((r) => r.d.key === key);
    await t.expand(r, true);
    t.render();
    return r.kids.filter((k) => !k.d.more).length;
  }, key);
}

async function tab(name) {
  await page.waitForSelector(`#tabs button[data-tab=${name}]`, { timeout: 30000 });
  await page.click(`#tabs button[data-tab=${name}]`);
  await page.waitForTimeout(300);
}

// Moves the page to the snapshot whose name contains NAME (`jsprof view` opens one of its files).
async function openOn(name) {
  if ((await page.evaluate(() => window.jsprof.current.art.name)).includes(name)) return;
  const r = await page.evaluate(() => window.jsprof.source.sessions());
  const list = Array.isArray(r) ? r : r.sessions;
  const s = list.find((s) => s.artifacts.some((a) => (a.name || s.target).includes(name)));
  const a = s.artifacts.find((a) => (a.name || s.target).includes(name)) || s.artifacts[0];
  await page.goto(url.split('#')[0] + `#session=${s.session_id}&artifact=${a.artifact_id}`);
  await page.reload();
  await page.waitForFunction((t) => window.jsprof && window.jsprof.ready && window.jsprof.current.art.name.includes(t), name, { timeout: 60000 });
}

// The rows an expanded chain of levels shows: each level's first row holds the next level.
function chainRows(levels, k = 0) {
  const here = levels[k].rows.map((r) => [k, ...r]);
  if (k + 1 >= levels.length || !here.length) return here;
  return [here[0], ...chainRows(levels, k + 1), ...here.slice(1)];
}

if (kind === 'retainers') {
  await page.waitForFunction(() => window.jsprof.summary && window.jsprof.summary.table, null, { timeout: 60000 });
  // The wiring: an object selected in the Summary shows its retainers.
  await page.fill('[role=tabpanel]:not([hidden]) input[type=search]', '^Session$');
  await page.waitForTimeout(400);
  await page.click('[role=tabpanel]:not([hidden]) tbody tr .tw');
  await page.waitForTimeout(500);
  await page.click('[role=tabpanel]:not([hidden]) .top tbody tr:nth-child(2)');
  await page.waitForFunction(() => window.jsprof.summary.retainers.tree.table.roots.length > 0, null, { timeout: 30000 });
  // The numbers: the leaked Session's tree, level by level.
  const got = await page.evaluate(async (id) => {
    const panel = window.jsprof.summary.retainers;
    await panel.show({ id, class: 'Session', name: 'Session' });
    return { rows: panel.tree.rows(), info: panel.info.textContent };
  }, expected.id);
  assert.deepEqual(got.rows, chainRows(expected.levels), 'the Retainers tree, opened along the closest retainers');
  assert.ok(got.info.includes(`${expected.levels[0].total.toLocaleString('en-US')} retainer`), `the panel counts the retainers: ${got.info}`);
  const text = await page.textContent('[role=tabpanel]:not([hidden]) .retainers');
  assert.ok(text.includes('sessionsLeak'), `the Retainers of a leaked Session name sessionsLeak: ${text.slice(0, 400)}`);
  await shot('heap-retainers');
  if (expected.other) {
    const kids = await page.evaluate(async (id) => {
      const t = window.jsprof.summary.retainers.tree.table;
      const row = t.roots.find((r) => !r.d.more && r.d.object.id === id);
      await t.expand(row, true);
      t.render();
      return row.kids.filter((r) => !r.d.more).map((r) => [r.d.edge, r.d.object.id]);
    }, expected.other.id);
    assert.deepEqual(kids, expected.other.rows, `the retainers of @${expected.other.id}, opened by hand`);
  }
} else if (kind === 'containment') {
  await tab('containment');
  await page.waitForFunction(() => window.jsprof.containment, null, { timeout: 60000 });
  await page.evaluate(() => window.jsprof.containment.ready);
  const root = await page.evaluate(() => window.jsprof.containment.tree.table.roots.filter((r) => !r.d.more).map((r) => [r.d.edge, r.d.object.id]));
  assert.deepEqual(root, expected.root.rows, 'the Containment view starts at the root with its edges');
  const info = await page.textContent('[role=tabpanel]:not([hidden]) .toolbar');
  assert.ok(info.includes(`${expected.root.total} edges`), `the root's edge count: ${info}`);
  // Open PARENT (when BIG is not the root's), then BIG: its first page, then "more".
  const first = await page.evaluate(async ([parent, big]) => {
    const t = window.jsprof.containment.tree.table;
    let list = t.roots;
    if (parent != null) {
      const p = list.find((r) => !r.d.more && r.d.object.id === parent);
      await t.expand(p, true);
      list = p.kids;
    }
    const b = list.find((r) => !r.d.more && r.d.object.id === big);
    await t.expand(b, true);
    t.render();
    window.__big = b;
    return b.kids.filter((r) => !r.d.more).map((r) => [r.d.edge, r.d.object.id]);
  }, [expected.parent, expected.big]);
  assert.deepEqual(first, expected.pages[0], `the first page of @${expected.big}'s edges`);
  await shot('heap-containment');
  // Its "more" row, clicked.
  await page.evaluate(() => window.__big.kids.find((r) => r.d.more).tr.click());
  await page.waitForFunction((n) => window.__big.kids.filter((r) => !r.d.more).length >= n, expected.pages[0].length + expected.pages[1].length, { timeout: 30000 });
  const both = await page.evaluate(() => window.__big.kids.filter((r) => !r.d.more).map((r) => [r.d.edge, r.d.object.id]));
  assert.deepEqual(both, [...expected.pages[0], ...expected.pages[1]], `"more" adds the second page of @${expected.big}'s edges`);
} else if (kind === 'strings') {
  await tab('strings');
  await page.waitForFunction(() => window.jsprof.strings, null, { timeout: 60000 });
  await page.evaluate(() => window.jsprof.strings.ready);
  const got = await page.evaluate(() => window.jsprof.strings.table.roots.map((r) => [r.d.value, r.d.count, r.d.total_size, r.d.wasted_size, r.d.sample_id]));
  const want = expected.strings.map((g) => [g.value, g.count, g.total_size, g.wasted_size, g.sample_id]);
  assert.deepEqual(got.slice(0, 200), want.slice(0, 200), 'the Strings tab is `jsprof heap strings`');
  const info = await page.textContent('[role=tabpanel]:not([hidden]) .toolbar');
  assert.ok(info.includes(`${expected.total.toLocaleString('en-US')} duplicated value`), `the count of duplicated values: ${info}`);
  await page.click('[role=tabpanel]:not([hidden]) .top tbody tr');
  await page.waitForFunction((id) => document.querySelector('[role=tabpanel]:not([hidden]) .bottom .hint').textContent.includes(`@${id}`), expected.strings[0].sample_id, { timeout: 30000 });
  await page.waitForFunction(() => document.querySelectorAll('[role=tabpanel]:not([hidden]) .retainers tbody tr').length > 0, null, { timeout: 30000 });
  await shot('heap-strings');
} else if (kind === 'advisors') {
  await tab('advisors');
  await page.waitForFunction(() => window.jsprof.advisors, null, { timeout: 60000 });
  await page.evaluate(() => window.jsprof.advisors.ready);
  const got = await page.evaluate(() => window.jsprof.advisors.table.roots.map((r) => [r.d.advisor, r.d.class, r.d.held_by, r.d.count, r.d.saving, r.d.sample_id]));
  const want = expected.advice.map((f) => [f.advisor, f.class, f.held_by, f.count, f.saving, f.sample_id]);
  assert.deepEqual(got, want, 'the Advisors tab is `jsprof heap advisors`');
  const info = await page.textContent('[role=tabpanel]:not([hidden]) .toolbar');
  assert.ok(info.includes(`${expected.total.toLocaleString('en-US')} finding`), `the count of findings: ${info}`);
  await page.click('[role=tabpanel]:not([hidden]) .top tbody tr');
  await page.waitForFunction((id) => document.querySelector('[role=tabpanel]:not([hidden]) .bottom .hint').textContent.includes(`@${id}`), expected.advice[0].sample_id, { timeout: 30000 });
  await shot('heap-advisors');
} else if (kind === 'process') {
  await tab('process');
  await page.waitForFunction(() => window.jsprof.process, null, { timeout: 60000 });
  await page.evaluate(() => window.jsprof.process.ready);
  const got = await page.evaluate(() => window.jsprof.process.tables.map((t) => t.roots.map((r) => [r.d.isolate, r.d.js_heap, r.d.external_buffers, r.d.snapshot, r.d.memory_usage])));
  const byIsolate = (rows) => [...rows].sort((a, b) => (a[0] < b[0] ? -1 : 1));
  const want = expected.processes.map((p) => p.isolates.map((i) => [i.isolate, i.js_heap, i.external_buffers, i.snapshot, i.memory_usage]));
  assert.deepEqual(got.map(byIsolate), want.map(byIsolate), 'the Process tab is `jsprof heap process`');
  const text = await page.textContent('[role=tabpanel]:not([hidden]) .process');
  for (const p of expected.processes) assert.ok(text.includes(`pid ${p.pid}`) && text.includes('RSS '), `the process's RSS line: ${text.slice(0, 300)}`);
  await shot('heap-process');
} else if (kind === 'original') {
  // The Summary's class rows show `heap summary`'s original names and positions.
  await page.waitForFunction(() => window.jsprof.summary && window.jsprof.summary.classes, null, { timeout: 60000 });
  const mapped = expected.classes.filter((c) => c.source_name);
  assert.ok(mapped.length > 0, 'the snapshot has mapped classes');
  for (const c of mapped) {
    const row = await page.evaluate((key) => {
      const t = window.jsprof.summary.table;
      const p = t.roots.findIndex((r) => r.d.key === key);
      if (p < 0) return null;
      t.scrollTo(p);
      t.render();
      return t.roots[p].tr ? t.roots[p].tr.textContent : null;
    }, c.key);
    assert.ok(row && row.includes(`← ${c.source_name} ${c.source_location}`), `${c.name}'s row shows ${c.source_name} ${c.source_location}: ${row}`);
  }
  // A class's objects (`heap class`, given as `objects`): each row shows where its constructor
  // is in the bundle and, from the map, its class's original.
  if (expected.objects) {
    const { key, objects } = expected.objects;
    await page.evaluate(async (key) => {
      const t = window.jsprof.summary.table;
      const p = t.roots.findIndex((r) => r.d.key === key);
      t.scrollTo(p);
      await t.expand(t.roots[p], true);
      t.render();
    }, key);
    const o = objects[0];
    const short = o.location.slice(o.location.lastIndexOf('/') + 1);
    const want = `@${o.id} ${short} ← ${o.source_name} ${o.source_location}`;
    await page.waitForFunction((want) => [...document.querySelectorAll('[role=tabpanel]:not([hidden]) tbody tr')].some((tr) => tr.textContent.includes(want)), want, { timeout: 30000 })
      .catch(() => assert.fail(`an object row shows ${want}`));
  }
  await shot('heap-original');
} else if (kind === 'allocations') {
  await tab('allocations');
  await page.waitForFunction(() => window.jsprof.allocations, null, { timeout: 60000 });
  await page.evaluate(() => window.jsprof.allocations.ready);
  const key = (s) => `${s.name}\u0000${s.url}\u0000${s.line}\u0000${s.column}`;
  const norm = (list) => list.map((s) => [key(s), s.count, s.size, s.live_count, s.live_size]).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const roots = () => page.evaluate(() => window.jsprof.allocations.table.roots.map((r) => r.d));
  assert.deepEqual(norm(await roots()), norm(expected.bottom_up.stacks), 'the allocating functions are `heap allocations --bottom-up`');
  await shot('heap-allocations');
  await page.selectOption('[role=tabpanel]:not([hidden]) select', 'top-down');
  await page.waitForFunction(() => window.jsprof.allocations.report && window.jsprof.allocations.report.view === 'top-down', null, { timeout: 30000 });
  const top = await roots();
  assert.deepEqual(norm(top), norm(expected.top_down.stacks), 'the call tree is `heap allocations`');
  const first = expected.top_down.stacks.find((s) => (s.children || []).length);
  if (first) {
    const kids = await page.evaluate(async (k) => {
      const t = window.jsprof.allocations.table;
      const row = t.roots.find((r) => `${r.d.name}\u0000${r.d.url}\u0000${r.d.line}\u0000${r.d.column}` === k);
      await t.expand(row, true);
      t.render();
      return row.kids.map((r) => r.d);
    }, key(first));
    assert.deepEqual(norm(kids), norm(first.children), `the callees of ${first.name}`);
  }
} else if (kind === 'comparison') {
  await openOn(expected.target);
  await tab('comparison');
  await page.waitForFunction(() => window.jsprof.comparison && window.jsprof.comparison.table.roots.length > 0, null, { timeout: 60000 });
  const row = await page.evaluate((key) => { const r = window.jsprof.comparison.table.roots.find((r) => r.d.key === key); return r && r.d; }, expected.key);
  assert.ok(row, `no Comparison row ${expected.key}`);
  for (const k of ['new_count', 'deleted_count', 'alloc_size', 'freed_size', 'size_delta']) assert.equal(row[k], expected.row[k], `${expected.key}: ${k}`);
  const kids = async () => page.evaluate((key) => {
    const r = window.jsprof.comparison.table.roots.find((r) => r.d.key === key);
    const side = (s) => r.kids.filter((k) => k.d.object && k.d.side === s).map((k) => k.d.object.id);
    return { new: side('new'), deleted: side('deleted') };
  }, expected.key);
  await page.evaluate(async (key) => {
    const t = window.jsprof.comparison.table;
    const r = t.roots.find((r) => r.d.key === key);
    await t.expand(r, true);
    t.render();
    r.tr.scrollIntoView({ block: 'center' });
  }, expected.key);
  let got = await kids();
  assert.deepEqual(got.new, expected.new[0], 'the first page of new objects, largest first');
  assert.deepEqual([...got.deleted].sort((a, b) => a - b), [...expected.deleted].sort((a, b) => a - b), 'the first page of deleted objects');
  await shot('heap-comparison');
  await page.evaluate((key) => {
    const r = window.jsprof.comparison.table.roots.find((r) => r.d.key === key);
    r.kids.find((k) => k.d.more && k.d.side === 'new').tr.click();
  }, expected.key);
  await page.waitForFunction(([key, n]) => window.jsprof.comparison.table.roots.find((r) => r.d.key === key).kids.filter((k) => k.d.object && k.d.side === 'new').length >= n, [expected.key, expected.new[0].length + expected.new[1].length], { timeout: 30000 });
  got = await kids();
  assert.deepEqual(got.new, [...expected.new[0], ...expected.new[1]], '"more" adds the next page of new objects');
} else if (kind === 'between') {
  await openOn(expected.target);
  await page.waitForFunction(() => window.jsprof.summary && window.jsprof.summary.table, null, { timeout: 60000 });
  const value = await page.evaluate(([a, b]) => [...document.querySelectorAll('[role=tabpanel]:not([hidden]) select[aria-label=Objects] option')]
    .find((o) => o.text.includes(`between ${a}`) && o.text.includes(`and ${b}`)).value, [expected.first, expected.second]);
  await page.selectOption('[role=tabpanel]:not([hidden]) select[aria-label=Objects]', value);
  await page.waitForFunction(() => window.jsprof.summary.summary && window.jsprof.summary.summary.between, null, { timeout: 60000 });
  const rows = (list) => list.map((c) => [c.key, c.count, c.self_size, c.retained_size]).sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
  const got = await page.evaluate(() => window.jsprof.summary.table.roots.map((r) => r.d));
  assert.deepEqual(rows(got), rows(expected.report.classes), 'the filtered Summary is `heap summary --between`');
  const info = await page.textContent('[role=tabpanel]:not([hidden]) .toolbar');
  assert.ok(info.includes(`after @${expected.report.between.after_id} up to @${expected.report.between.up_to_id}`), `the filter's ids: ${info}`);
  // Its largest class expands to as many objects as it counts.
  const big = expected.report.classes[0];
  const kids = await summaryObjects(big.key);
  // The first page (heap.js' PAGE, 100) of its objects.
  assert.equal(kids, Math.min(big.count, 100), `${big.name}: the objects of the filtered class`);
  await shot('heap-summary-between');
} else if (kind === 'contexts') {
  await page.waitForFunction(() => window.jsprof.summary && window.jsprof.summary.table, null, { timeout: 60000 });
  const select = '[role=tabpanel]:not([hidden]) select[aria-label="JavaScript context"]';
  await page.waitForSelector(select, { state: 'visible', timeout: 30000 });
  const values = await page.$$eval(`${select} option`, (os) => os.map((o) => o.value));
  assert.deepEqual(values, ['', ...expected.contexts.contexts.map((c) => String(c.id)), 'shared', 'none'], 'the select lists `heap contexts`');
  await page.selectOption(select, String(expected.report.context.id));
  await page.waitForFunction((id) => window.jsprof.summary.summary && window.jsprof.summary.summary.context && window.jsprof.summary.summary.context.id === id, expected.report.context.id, { timeout: 60000 });
  const rows = (list) => list.map((c) => [c.key, c.count, c.self_size, c.retained_size, c.distance]).sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
  const got = await page.evaluate(() => window.jsprof.summary.table.roots.map((r) => r.d));
  assert.deepEqual(rows(got), rows(expected.report.classes), 'the filtered Summary is `heap summary --context`');
  const info = await page.textContent('[role=tabpanel]:not([hidden]) .toolbar');
  assert.ok(info.includes(`@${expected.report.context.id}`), `the context is named: ${info}`);
  const row = expected.report.classes.find((c) => c.name === expected.class);
  const kids = await summaryObjects(row.key);
  assert.equal(kids, Math.min(row.count, 100), `${row.name}: the context's objects of the class`);
  await shot('heap-summary-context');
} else if (kind === 'tabs') {
  await page.waitForFunction(() => window.jsprof.summary && window.jsprof.summary.summary, null, { timeout: 60000 });
  await page.waitForTimeout(500);
  const names = await page.$$eval('#tabs button', (bs) => bs.map((b) => b.dataset.tab));
  for (const n of expected.absent) assert.ok(!names.includes(n), `the ${n} tab is shown with nothing in it: ${names}`);
  for (const n of expected.present) assert.ok(names.includes(n), `no ${n} tab: ${names}`);
} else throw new Error('unknown case ' + kind);

assert.deepEqual(errors, [], 'page errors');
await browser.close();
