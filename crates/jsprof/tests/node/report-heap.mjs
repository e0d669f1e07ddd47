// Browser checks of the heap report (`jsprof report SNAPSHOT…` opened from disk) and of the Leaks
// series' charts (in a report and live), driven by crates/jsprof/tests/it/report_heap.rs: one
// browser for every page.
// Usage: node report-heap.mjs all - EXPECTED.json SHOTS_DIR
// EXPECTED is what the CLI printed (never the page's own output pasted back):
//   {pages: [{url, report, tabs: {present, absent}, checks: {…}}]}, each check a tab:
//   containment {root: {total, rows}, big: {id, total, rows}}: `jsprof heap edges FILE root` and
//               `… BIG` (a page of 50): the view's first level, BIG's first page, then a note that
//               the rest is not embedded; an object whose edges the report did not embed opens
//               onto a note.
//   statistics  `jsprof heap stats --json`: the legend's named slices.
//   strings     `jsprof heap strings --limit 500 --json`: the rows.
//   advisors    `jsprof heap advisors --limit 500 --json`: the rows, in order.
//   detached    `jsprof heap detached --json`: the trees.
//   contexts    {contexts, report}: `jsprof heap contexts --json` and `jsprof heap summary
//               --context C --limit 2000 --json`: the select's options, then C's rows.
//   comparison  `jsprof heap diff BASE THIS --limit 500 --json`: the rows.
//   leaks       `jsprof heap leaks BASE TARGET FINAL --limit 500 --json`: the groups.
//   series      `jsprof heap leaks S1 … SN --all --limit 500 --json`: every group's row shows two
//               charts of one point per snapshot whose values are the group's count and retained
//               size in each snapshot, and its verdict.
// A report page must make no request but for `file:` and `data:` URLs.
import { launch, newPage, readJson, shooter } from './browser.mjs';
import assert from 'node:assert/strict';

const [, , expectedPath, shots] = process.argv.slice(2);
const expected = readJson(expectedPath);
const browser = await launch();
const errors = [];
const page = await newPage(browser, errors);
const shot = shooter(page, shots);
const requests = [];
page.on('request', (r) => requests.push(r.url()));

const sorted = (rows) => rows.map((r) => JSON.stringify(r)).sort();

async function tab(name) {
  await page.waitForSelector(`#tabs button[data-tab=${name}]`, { timeout: 30000 });
  await page.click(`#tabs button[data-tab=${name}]`);
}

// A view of the app once its tab is built and loaded (`ready`).
async function viewOf(name) {
  await page.waitForFunction((n) => window.jsprof[n], name, { timeout: 60000 });
  await page.evaluate((n) => window.jsprof[n].ready, name);
}

const checks = {
  async containment(c, what) {
    await tab('containment');
    await viewOf('containment');
    const root = await page.evaluate(() => window.jsprof.containment.tree.table.roots.filter((r) => !r.d.more).map((r) => [r.d.edge, r.d.object.id]));
    assert.deepEqual(root, c.root.rows, `${what}: the root's edges are \`heap edges root\``);
    // BIG's first page, then where the report's pages end.
    const big = await page.evaluate(async (id) => {
      const t = window.jsprof.containment.tree.table;
      const b = t.roots.find((r) => !r.d.more && r.d.object.id === id);
      await t.expand(b, true);
      t.render();
      return { rows: b.kids.filter((r) => !r.d.more).map((r) => [r.d.edge, r.d.object.id]), notes: b.kids.filter((r) => r.d.note).map((r) => r.d.note) };
    }, c.big.id);
    assert.deepEqual(big.rows, c.big.rows, `${what}: @${c.big.id}'s first page is \`heap edges ${c.big.id}\``);
    if (c.big.total > c.big.rows.length) assert.ok(big.notes.length === 1 && big.notes[0].includes(`${(c.big.total - c.big.rows.length).toLocaleString('en-US')} more not embedded`), `${what}: a note says the rest of @${c.big.id}'s edges are not embedded: ${big.notes}`);
    // An object under BIG whose edges the report did not embed opens onto a note.
    const end = await page.evaluate(async (id) => {
      const t = window.jsprof.containment.tree.table;
      const embedded = new Set(window.jsprof.data.views.heap_containment.map((p) => p.object.id));
      const b = t.roots.find((r) => !r.d.more && r.d.object.id === id);
      const leaf = b.kids.find((r) => !r.d.more && r.d.edge_count > 0 && !embedded.has(r.d.object.id));
      if (!leaf) return null;
      await t.expand(leaf, true);
      t.render();
      return leaf.kids.map((r) => r.d.note || null);
    }, c.big.id);
    assert.ok(end && end.length === 1 && end[0].includes('not embedded'), `${what}: where the embedded depth ends, a note: ${JSON.stringify(end)}`);
    await shot('report-heap-containment');
  },

  async statistics(c, what) {
    await tab('statistics');
    await page.waitForSelector('[role=tabpanel]:not([hidden]) table.legend tr[data-bytes]', { timeout: 30000 });
    const got = await page.evaluate(() => Object.fromEntries([...document.querySelectorAll('[role=tabpanel]:not([hidden]) table.legend tr[data-bytes]')].map((tr) => [tr.cells[0].textContent, Number(tr.dataset.bytes)])));
    const st = c.statistics;
    const want = { Code: st.v8heap.code, Strings: st.v8heap.strings, 'JS arrays': st.v8heap.jsArrays, 'Typed arrays': st.native.typedArrays, 'System objects': st.v8heap.system };
    for (const [k, v] of Object.entries(want)) assert.equal(got[k], v, `${what}: Statistics' ${k}`);
  },

  async strings(c, what) {
    await tab('strings');
    await viewOf('strings');
    const got = await page.evaluate(() => window.jsprof.strings.table.roots.map((r) => [r.d.value, r.d.count, r.d.wasted_size, r.d.sample_id]));
    const want = c.strings.map((s) => [s.value, s.count, s.wasted_size, s.sample_id]);
    assert.ok(want.length > 0, `${what}: the fixture has duplicated strings`);
    assert.deepEqual(sorted(got), sorted(want), `${what}: Strings are \`heap strings\``);
  },

  async advisors(c, what) {
    await tab('advisors');
    await viewOf('advisors');
    const got = await page.evaluate(() => window.jsprof.advisors.table.roots.map((r) => [r.d.advisor, r.d.class, r.d.held_by, r.d.count, r.d.saving, r.d.sample_id]));
    const want = c.advice.map((f) => [f.advisor, f.class, f.held_by, f.count, f.saving, f.sample_id]);
    assert.ok(want.length > 0, `${what}: the fixture has findings`);
    assert.deepEqual(got, want, `${what}: Advisors are \`heap advisors\``);
  },

  async detached(c, what) {
    await tab('detached');
    await viewOf('detached');
    const got = await page.evaluate(() => window.jsprof.detached.table.roots.map((r) => [r.d.root.id, r.d.node_count, r.d.retained_size]));
    const want = c.trees.map((t) => [t.root.id, t.node_count, t.retained_size]);
    assert.ok(want.length > 0, `${what}: the fixture has detached trees`);
    assert.deepEqual(sorted(got), sorted(want), `${what}: Detached is \`heap detached\``);
  },

  async comparison(c, what) {
    await tab('comparison');
    await viewOf('comparison');
    const got = await page.evaluate(() => window.jsprof.comparison.table.roots.map((r) => [r.d.key, r.d.new_count, r.d.deleted_count, r.d.alloc_size, r.d.freed_size, r.d.size_delta, r.d.retained_delta]));
    const want = c.classes.map((d) => [d.key, d.new_count, d.deleted_count, d.alloc_size, d.freed_size, d.size_delta, d.retained_delta]);
    assert.ok(want.length > 0, `${what}: the two differ`);
    assert.deepEqual(sorted(got), sorted(want), `${what}: Comparison is \`heap diff\``);
    await shot('report-heap-comparison');
  },

  async leaks(c, what) {
    await tab('leaks');
    await viewOf('leaks');
    const got = await page.evaluate(() => window.jsprof.leaks.table.roots.map((r) => [r.d.class, r.d.count, r.d.retained_size, r.d.sample_id]));
    const want = c.groups.map((g) => [g.class, g.count, g.retained_size, g.sample_id]);
    assert.ok(want.length > 0, `${what}: the fixture leaks`);
    assert.deepEqual(sorted(got), sorted(want), `${what}: Leaks are \`heap leaks\``);
  },

  // The Summary's "JavaScript context" select: `heap contexts`' contexts, and a context's rows
  // are `heap summary --context`'s; its classes open onto a note (their objects not embedded).
  async contexts(c, what) {
    await page.waitForFunction(() => window.jsprof.summary && window.jsprof.summary.table, null, { timeout: 60000 });
    const select = '[role=tabpanel]:not([hidden]) select[aria-label="JavaScript context"]';
    await page.waitForSelector(select, { state: 'visible', timeout: 30000 });
    const values = await page.$$eval(`${select} option`, (os) => os.map((o) => o.value));
    assert.deepEqual(values, ['', ...c.contexts.contexts.map((x) => String(x.id)), 'shared', 'none'], `${what}: the select lists \`heap contexts\``);
    await page.selectOption(select, String(c.report.context.id));
    await page.waitForFunction((id) => window.jsprof.summary.summary && window.jsprof.summary.summary.context && window.jsprof.summary.summary.context.id === id, c.report.context.id, { timeout: 30000 });
    const rows = (list) => list.map((x) => [x.key, x.count, x.self_size, x.retained_size, x.distance]);
    const got = await page.evaluate(() => window.jsprof.summary.table.roots.map((r) => r.d));
    assert.deepEqual(sorted(rows(got)), sorted(rows(c.report.classes)), `${what}: the context's Summary is \`heap summary --context\``);
    await shot('report-heap-context');
  },

  // Each drawn row: its verdict, class and charts, as drawn (DOM, not the table's data).
  async series(c, what) {
    await tab('leaks');
    await viewOf('leaks');
    await page.evaluate(() => { window.jsprof.leaks.table.rootLimit = 1e6; window.jsprof.leaks.table.render(); });
    const got = await page.evaluate(() => [...document.querySelectorAll('[role=tabpanel]:not([hidden]) tbody tr')].map((tr) => {
      const chart = (what) => {
        const svg = tr.querySelector(`svg[data-series=${what}]`);
        if (!svg) return null;
        const points = svg.querySelector('polyline').getAttribute('points').trim().split(/\s+/).length;
        return { values: svg.dataset.values.split(',').map(Number), points, title: svg.querySelector('title').textContent, verdict: svg.dataset.verdict };
      };
      return { verdict: tr.cells[0].textContent, class: tr.cells[1].textContent, count: chart('count'), retained: chart('retained') };
    }));
    const n = c.snapshots.length;
    assert.ok(n >= 4 && c.groups.length > 0, `${what}: a series of 4 or more with groups`);
    assert.equal(got.length, c.groups.length, `${what}: one row per group`);
    for (const g of got) {
      for (const s of [g.count, g.retained]) {
        assert.ok(s, `${what}: ${g.class} has both charts`);
        assert.equal(s.points, n, `${what}: ${g.class}'s chart has one point per snapshot`);
        assert.equal(s.values.length, n, `${what}: ${g.class}'s chart holds one value per snapshot`);
        assert.equal(s.verdict, g.verdict, `${what}: ${g.class}'s chart is in its verdict's colour`);
        assert.ok(s.title.includes(`(${g.verdict})`), `${what}: the chart's title says the verdict: ${s.title}`);
      }
    }
    const rows = got.map((g) => [g.verdict, g.class, g.count.values, g.retained.values]);
    const want = c.groups.map((g) => [g.verdict, g.class, g.count, g.retained_size]);
    assert.deepEqual(sorted(rows), sorted(want), `${what}: the charts' values are \`heap leaks --all\`'s series`);
    assert.ok(want.some((g) => g[0] === 'growing'), `${what}: a growing group`);
    await shot(c.shot);
  },
};

for (const p of expected.pages) {
  requests.length = 0;
  await page.goto(p.url);
  await page.waitForFunction(() => window.jsprof && window.jsprof.ready, null, { timeout: 60000 });
  const what = p.url.split('/').pop();
  const tabs = await page.evaluate(() => [...document.querySelectorAll('#tabs button')].map((b) => b.dataset.tab));
  for (const t of p.tabs.present) assert.ok(tabs.includes(t), `${what}: a ${t} tab (${tabs})`);
  for (const t of p.tabs.absent) assert.ok(!tabs.includes(t), `${what}: no ${t} tab (${tabs})`);
  for (const [k, c] of Object.entries(p.checks)) await checks[k](c, `${what} ${k}`);
  if (p.report) {
    const away = requests.filter((u) => !u.startsWith('file:') && !u.startsWith('data:'));
    assert.deepEqual(away, [], `${what}: the report asked for nothing but itself`);
    assert.ok(requests.length > 0, `${what}: the page's own load is seen`);
  }
}
assert.deepEqual(errors, [], 'no uncaught errors');
await browser.close();
