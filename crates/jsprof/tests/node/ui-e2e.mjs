// End-to-end checks of the browser UI in headless Chromium (Playwright), driven by
// crates/jsprof/tests/it/ui.rs. Usage:
//   node ui-e2e.mjs CASE URL GOLDEN SHOTS_DIR [--offline]
// CASE: cpu | trace | detached | leak. Expected numbers come from DevTools' goldens
// (fixtures/**/*.devtools.json.gz), never from jsprof. --offline (a report opened from disk)
// fails on any request that is not file: or data:.
import { launch, newPage } from './browser.mjs';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import assert from 'node:assert/strict';

const [kind, url, goldenPath, shots, flag] = process.argv.slice(2);
const offline = flag === '--offline';
const golden = goldenPath && goldenPath !== '-' ? JSON.parse(gunzipSync(readFileSync(goldenPath))) : null;
const browser = await launch();
const errors = [], network = [];
const page = await newPage(browser, errors);
page.on('request', (r) => { if (!/^(file|data|blob):/.test(r.url())) network.push(r.url()); });
const tag = `${kind}${offline ? '-report' : '-view'}`;
const shot = (name) => page.screenshot({ path: `${shots}/${tag}-${name}.png` });
const near = (a, b, tol, what) => assert.ok(Math.abs(a - b) <= tol, `${what}: ${a} is not ${b} ± ${tol}`);

async function ready() {
  await page.goto(url);
  await page.waitForFunction(() => window.jsprof && window.jsprof.ready, null, { timeout: 30000 });
}

async function tab(name) {
  await page.click(`#tabs button[data-tab=${name}]`);
  await page.waitForTimeout(300);
}

async function chartChecks(call) {
  await page.waitForFunction(() => window.jsprof.chart && window.jsprof.chart.stats.frames > 0);
  const drawn = await page.evaluate(() => window.jsprof.chart.stats.drawn);
  assert.ok(drawn > 0, 'the flame chart drew no calls');
  // Pixels: the chart is not blank.
  const colored = await page.evaluate(() => {
    const c = window.jsprof.chart.canvas, ctx = c.getContext('2d');
    const d = ctx.getImageData(0, 40, c.width, Math.min(200, c.height - 40)).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) if (d[i] < 240 || d[i + 1] < 240 || d[i + 2] < 240) n++;
    return n;
  });
  assert.ok(colored > 1000, `the chart canvas is nearly blank (${colored} coloured pixels)`);
  // Hover a known call: its name and DevTools' duration.
  const at = await page.evaluate((n) => window.jsprof.chart.locate(n), call.name);
  assert.ok(at, `no call named ${call.name} is drawn`);
  await page.mouse.move(at.x, at.y);
  await page.waitForSelector('#tooltip:not([hidden])');
  const text = await page.textContent('#tooltip');
  assert.ok(text.includes(call.name), `the tooltip shows "${text}", not ${call.name}`);
  const total = Number(await page.getAttribute('#tooltip', 'data-total-ms'));
  const match = call.candidates.find((c) => Math.abs(c.start - at.event.s) < 0.01);
  assert.ok(match, `DevTools has no call ${call.name} starting at ${at.event.s} ms`);
  near(total, match.dur, 0.002, `duration of ${call.name}`);
  await shot('flamechart-hover');
  // Zoom: the wheel and the keyboard narrow the visible range.
  const before = await page.evaluate(() => [window.jsprof.chart.t0, window.jsprof.chart.t1]);
  await page.mouse.wheel(0, -600);
  await page.waitForTimeout(200);
  const after = await page.evaluate(() => [window.jsprof.chart.t0, window.jsprof.chart.t1]);
  assert.ok(after[1] - after[0] < (before[1] - before[0]) * 0.6, `zooming did not narrow the range: ${before} → ${after}`);
  await page.focus('.chart-wrap canvas');
  await page.keyboard.press('w');
  await page.waitForTimeout(500);
  const keyed = await page.evaluate(() => [window.jsprof.chart.t0, window.jsprof.chart.t1, window.jsprof.chart.stats.drawn]);
  assert.ok(keyed[1] - keyed[0] < after[1] - after[0], 'W did not zoom in');
  assert.ok(keyed[2] > 0, 'nothing drawn after zooming');
  await page.mouse.move(5, 5);
  await shot('flamechart-zoomed');
  // A range selection updates the function table beneath.
  await page.keyboard.press('0');
  await page.waitForTimeout(300);
  const sel = await page.evaluate(() => { const c = window.jsprof.chart; const s = c.start + (c.end - c.start) * 0.25, e = c.start + (c.end - c.start) * 0.5; c.setRange([s, e]); return [s, e]; });
  await page.waitForTimeout(800);
  const chip = await page.textContent('#range-text');
  assert.ok(/Selection/.test(chip), 'no selection chip');
  const note = await page.textContent('.bottom .note');
  assert.ok(note.includes('Selection'), `the function table does not show the selection: ${note}`);
  await shot('flamechart-range');
  await page.evaluate(() => window.jsprof.setRange(null));
}

async function topFunctionCheck(fns, all = fns) {
  // DevTools' heaviest function (by total) heads the Functions table sorted by Total.
  const top = fns.slice().sort((a, b) => b.total - a.total)[0];
  await tab('functions');
  await page.click('[role=tabpanel]:not([hidden]) th:nth-child(3)');
  await page.waitForTimeout(200);
  const row = await page.$eval('[role=tabpanel]:not([hidden]) tbody tr', (tr) => ({ name: tr.children[4].textContent, total: tr.children[2].title }));
  assert.equal(row.name, top.name === '' ? '(anonymous)' : top.name);
  near(parseFloat(row.total), top.total, 0.002, `total of ${top.name}`);
  await shot('functions');
  // The call tree's first root, expanded along its heaviest path.
  await tab('top_down');
  // Bottom-up, sorted by self as DevTools sorts it: DevTools' heaviest function by self first;
  // sorted by total (a click on the header), the heaviest by total, with its total.
  await tab('bottom_up');
  const bottomRows = () => page.$$eval('[role=tabpanel]:not([hidden]) tbody tr', (trs) => trs.map((tr) => ({ name: tr.children[4].textContent.replace(/^[▸▾]/, ''), total: parseFloat(tr.children[2].title) })));
  const name = (f) => (f.name === '' ? '(anonymous)' : f.name);
  const bySelf = fns.slice().sort((a, b) => b.self - a.self);
  const firstBySelf = (await bottomRows())[0].name;
  assert.ok(bySelf.filter((f) => f.self === bySelf[0].self).map(name).includes(firstBySelf), `Bottom-up opens on ${firstBySelf}, not DevTools' heaviest by self ${name(bySelf[0])}`);
  await page.click('[role=tabpanel]:not([hidden]) th:nth-child(3)');
  await page.waitForTimeout(200);
  const rows = await bottomRows();
  const want = name(top);
  const node = rows.find((r) => r.name === want);
  assert.equal(rows[0].name, want, 'the heaviest function in Bottom-up by total');
  near(node.total, top.total, 0.002, `Bottom-up total of ${want}`);
  await shot('bottomup');
  await tab('top_down');
  await shot('calltree');
  await tab('flamegraph');
  await page.waitForTimeout(300);
  await shot('flamegraph');
}

// The filter bar (server only): focus keeps exactly the focused function's total (DevTools'
// number for it), in the tables and the chart; the address keeps the filters; a bad pattern is
// refused with the server's message and changes nothing; clearing brings everything back.
async function filterChecks(fns) {
  const want = fns.find((f) => f.name === 'buildTree');
  assert.ok(want, 'DevTools has no buildTree');
  await tab('functions');
  await page.fill('#f-focus', '^buildTree$');
  await page.press('#f-focus', 'Enter');
  await page.waitForFunction(() => /^Showing/.test(document.getElementById('f-info').textContent), null, { timeout: 20000 });
  await page.waitForTimeout(300);
  const rows = await page.$$eval('[role=tabpanel]:not([hidden]) tbody tr', (trs) => trs.map((tr) => ({ name: tr.children[4].textContent, total: parseFloat(tr.children[2].title) })));
  const names = new Set(rows.map((r) => r.name));
  assert.ok(names.has('buildTree') && !names.has('sumTree') && !names.has('fib'), `focused functions: ${[...names].slice(0, 10)}`);
  near(rows.find((r) => r.name === 'buildTree').total, want.total, 0.002, 'focused total of buildTree');
  const info = await page.textContent('#f-info');
  assert.ok(info.includes('Showing'), info);
  assert.ok(/focus=%5EbuildTree%24/.test(await page.evaluate(() => location.hash)), 'the address keeps the focus');
  await shot('filter-focus');
  // The chart, drawn again under the focus: buildTree's calls, no sumTree.
  await tab('chart');
  await page.waitForFunction(() => window.jsprof.chart && window.jsprof.chart.stats.frames > 0);
  assert.ok(await page.evaluate(() => window.jsprof.chart.locate('buildTree')), 'buildTree not drawn under its own focus');
  assert.equal(await page.evaluate(() => window.jsprof.chart.locate('sumTree')), null, 'sumTree drawn under focus buildTree');
  await page.mouse.move(5, 5);
  await shot('filter-chart');
  // A bad pattern: the server's message, the inputs marked, the views as they were.
  await page.fill('#f-exclude', '(');
  await page.press('#f-exclude', 'Enter');
  await page.waitForFunction(() => document.getElementById('f-info').classList.contains('error'), null, { timeout: 10000 });
  assert.ok(/exclude/.test(await page.textContent('#f-info')), 'the error names exclude');
  assert.ok(await page.$eval('#f-exclude', (e) => e.classList.contains('invalid')), 'exclude not marked invalid');
  assert.equal(await page.evaluate(() => window.jsprof.current.art.filters.exclude), undefined, 'a refused pattern was kept');
  await page.fill('#f-exclude', '');
  // Clear: the unfiltered heaviest function is back.
  await page.click('#f-clear');
  await page.waitForFunction(() => document.getElementById('f-info').textContent === '', null, { timeout: 20000 });
  await tab('functions');
  await page.waitForTimeout(300);
  const back = await page.$$eval('[role=tabpanel]:not([hidden]) tbody tr', (trs) => trs.map((tr) => tr.children[4].textContent));
  assert.ok(back.includes('sumTree'), 'sumTree is back after clearing');
}

try {
  await ready();
  if (kind === 'cpu') {
    const fns = golden.functions.filter((f) => f.name !== '(root)');
    const name = 'executeUserEntryPoint';
    const candidates = golden.calls.filter((c) => c.name === name).map((c) => ({ start: c.start_ms, dur: c.dur_ms }));
    await chartChecks({ name, candidates });
    await topFunctionCheck(fns);
    if (!offline) await filterChecks(fns);
  } else if (kind === 'focus-url') {
    // `jsprof view --focus '^buildTree$'`: the page opens with the bar set and the views
    // filtered; buildTree keeps DevTools' total for it.
    const want = golden.functions.find((f) => f.name === 'buildTree');
    await page.waitForFunction(() => /^Showing/.test(document.getElementById('f-info').textContent), null, { timeout: 20000 });
    assert.equal(await page.inputValue('#f-focus'), '^buildTree$');
    assert.ok(await page.isChecked('#f-idle'), 'Hide idle is not set');
    await tab('functions');
    const rows = await page.$$eval('[role=tabpanel]:not([hidden]) tbody tr', (trs) => trs.map((tr) => ({ name: tr.children[4].textContent, total: parseFloat(tr.children[2].title) })));
    assert.ok(!rows.some((r) => r.name === 'sumTree'), 'sumTree is shown under focus buildTree');
    near(rows.find((r) => r.name === 'buildTree').total, want.total, 0.002, 'total of buildTree opened under its focus');
  } else if (kind === 'trace') {
    const t = golden.threads.filter((t) => t.name === 'CrRendererMain').sort((a, b) => b.entries - a.entries)[0];
    const name = 'genPrimes';
    const candidates = t.profile_calls.filter((c) => c.name === name).map((c) => ({ start: c.ts_us / 1000, dur: c.dur_us / 1000 }));
    await chartChecks({ name, candidates });
    // The tables are the Performance panel's Bottom-up: JS functions and native entries alike.
    const rows = t.bottom_up.map((f) => ({ id: f.id, name: f.name, self: f.self_ms, total: f.total_ms }));
    await topFunctionCheck(rows);
  } else if (kind === 'worker') {
    // One track per thread: the renderer and the worker stacked; a call hovered in the second
    // track is the worker's (DevTools' duration for that call); it switches the tables below.
    await page.waitForFunction(() => window.jsprof.chart && window.jsprof.chart.stats.frames > 0);
    const names = await page.evaluate(() => window.jsprof.chart.tracks.map((t) => t.name));
    const k = names.indexOf('DedicatedWorker thread');
    assert.ok(names.length >= 2 && k > 0, `tracks: ${names}`);
    await page.evaluate((k) => { const c = window.jsprof.chart; c.revealTrack(k); c.scrollY -= 80; c.redraw(); }, k);
    await page.waitForTimeout(300);
    const tracks = await page.evaluate(() => window.jsprof.chart.stats.tracks);
    assert.ok(tracks >= 2, `${tracks} track(s) drawn`);
    await shot('flamechart-tracks');
    // Sticky headers: scrolled into the first track, its header stays under the time axis (22 px)
    // and takes the click; the rows it covers are not reported as visible.
    const sticky = await page.evaluate(() => {
      const c = window.jsprof.chart, keep = c.scrollY;
      // 60 px into the first thread's track (the page's lanes, when any, lie above it).
      c.scrollY = c.layout()[0].y + 60; c.draw();
      const h = c.hit(100, 22 + 5), under = c.hit(100, 22 + 20 + 5);
      c.scrollY = keep; c.draw();
      return { header: h && h.header ? h.track : null, below: under ? !!under.header : null };
    });
    assert.equal(sticky.header, 0, `the first track's header is not pinned: ${JSON.stringify(sticky)}`);
    assert.notEqual(sticky.below, true, 'the row under a pinned header is a header too');
    const t = golden.threads.find((t) => t.tid === 7443);
    const candidates = t.profile_calls.filter((c) => c.name === 'alpha').map((c) => ({ start: c.ts_us / 1000, dur: c.dur_us / 1000 }));
    const at = await page.evaluate((k) => window.jsprof.chart.locate('alpha', k), k);
    assert.ok(at, 'no alpha drawn in the worker track');
    await page.mouse.move(at.x, at.y);
    await page.waitForSelector('#tooltip:not([hidden])');
    const text = await page.textContent('#tooltip');
    assert.ok(text.includes('alpha') && text.includes('DedicatedWorker thread'), `tooltip: ${text}`);
    const total = Number(await page.getAttribute('#tooltip', 'data-total-ms'));
    const match = candidates.find((c) => Math.abs(c.start - at.event.s) < 0.01);
    assert.ok(match, `DevTools has no worker call alpha starting at ${at.event.s} ms`);
    near(total, match.dur, 0.002, 'duration of the worker\'s alpha');
    await shot('flamechart-worker-hover');
    // A click makes the worker the tables' thread: its functions beneath, DevTools' totals.
    await page.mouse.click(at.x, at.y);
    await page.waitForFunction(() => /DedicatedWorker/.test(document.querySelector('.toolbar').textContent));
    await page.waitForTimeout(800);
    const fnNames = await page.$$eval('.bottom table:not(.drawer-fields) tbody tr', (trs) => trs.map((tr) => tr.children[4].textContent));
    assert.ok(fnNames.includes('gamma') && !fnNames.includes('banana'), `Functions beneath after the click: ${fnNames.slice(0, 10)}`);
    // The wheel still zooms with several tracks.
    const before = await page.evaluate(() => window.jsprof.chart.t1 - window.jsprof.chart.t0);
    await page.mouse.wheel(0, -400);
    await page.waitForTimeout(300);
    assert.ok(await page.evaluate(() => window.jsprof.chart.t1 - window.jsprof.chart.t0) < before, 'no zoom');
    await page.keyboard.press('0');
    // Search highlight: non-matching calls are dimmed, the matching ones keep their colour.
    await page.fill('.toolbar input[type=search]', '^(alpha|gamma)$');
    // The search is drawn on a later animation frame, and the click above may have dimmed calls
    // already: read what the chart draws (its counts, and gamma's pixel) until the search shows,
    // for at most 15 s; the assertions below say what was drawn last.
    const DIM = [0xee, 0xf0, 0xf2];
    const drawnNow = () => page.evaluate((k) => {
      const c = window.jsprof.chart, st = { ...c.stats }, hl = c.locate('gamma', k);
      if (!hl) return { st, hl };
      const r = c.canvas.getBoundingClientRect(), d = devicePixelRatio;
      const px = Array.from(c.canvas.getContext('2d').getImageData(Math.round((hl.x - r.left) * d), Math.round((hl.y - r.top) * d), 1, 1).data);
      return { st, hl, px };
    }, k);
    const shown = (o) => o.st.dimmed > 0 && o.st.drawn - o.st.dimmed > 0 && o.hl && o.px.slice(0, 3).join() !== DIM.join();
    let now = await drawnNow();
    for (const end = Date.now() + 15000; !shown(now) && Date.now() < end; now = await drawnNow()) await page.waitForTimeout(100);
    const { st, hl, px } = now;
    assert.ok(st.dimmed > 0 && st.drawn - st.dimmed > 0, `highlight: ${JSON.stringify(st)}`);
    assert.ok(hl, 'gamma not drawn');
    assert.notDeepEqual(px.slice(0, 3), DIM, 'gamma is dimmed');
    await page.mouse.move(5, 5);
    await shot('flamechart-search');
  } else if (kind === 'leaks') {
    // GOLDEN here is `jsprof heap leaks BASE TARGET FINAL --json` (tested against hand counts).
    // `jsprof view BASE TARGET FINAL` opens on the final snapshot, the pickers on the other two.
    const sessions = await page.evaluate(() => window.jsprof.source.sessions());
    const id = (re) => { const s = sessions.sessions.find((s) => re.test(s.target)); return `${s.session_id}/${s.artifacts[0].artifact_id}`; };
    const [first, second, last] = [/leak-1-baseline/, /leak-2-target/, /leak-3-final/].map(id);
    await page.waitForFunction(() => window.jsprof.current && window.jsprof.current.session, null, { timeout: 30000 });
    assert.equal(await page.evaluate(() => `${window.jsprof.current.session}/${window.jsprof.current.artifactId}`), last, 'view opens on the last snapshot');
    const pickers = async () => page.$$eval('[role=tabpanel]:not([hidden]) .toolbar select', (ss) => ss.map((s) => s.value));
    // Opened from another snapshot, the server's order (V8's ids only grow) decides: this one is
    // the baseline, the pickers show it, and a note names the final one.
    await page.goto('about:blank');
    await page.goto(`${url}#session=${first.split('/')[0]}&artifact=${first.split('/')[1]}&tab=leaks`);
    await page.waitForFunction(() => window.jsprof && window.jsprof.leaks && window.jsprof.leaks.groups, null, { timeout: 30000 });
    assert.equal(await page.evaluate(() => window.jsprof.leaks.reordered), true);
    assert.deepEqual(await pickers(), [first, second], 'pickers after reordering');
    const note = await page.textContent('[role=tabpanel]:not([hidden]) .toolbar');
    assert.ok(/is the final snapshot/.test(note) && /this snapshot is the base/.test(note), `the note: ${note}`);
    assert.equal(await page.evaluate(() => window.jsprof.leaks.groups.length), Math.min(golden.groups.length, 100));
    await page.goto('about:blank');
    await page.goto(`${url}#session=${last.split('/')[0]}&artifact=${last.split('/')[1]}&tab=leaks`);
    await page.waitForFunction(() => window.jsprof && window.jsprof.leaks && window.jsprof.leaks.groups, null, { timeout: 30000 });
    assert.equal(await page.evaluate(() => window.jsprof.leaks.reordered), false);
    assert.deepEqual(await pickers(), [first, second], 'pickers on the final snapshot');
    const want = golden.groups[0];
    assert.equal(want.class, 'Session');
    assert.equal(want.count, 3);
    const rows = await page.$$eval('[role=tabpanel]:not([hidden]) tbody tr', (trs) => trs.map((tr) => Array.from(tr.children).map((td) => td.textContent)));
    assert.equal(rows.length, Math.min(golden.groups.length, 100), 'groups listed');
    assert.equal(rows[0][0], 'Session', `first group: ${rows[0]}`);
    assert.equal(rows[0][1], '3', `Session count: ${rows[0]}`);
    const ui = await page.evaluate(() => window.jsprof.leaks.groups[0]);
    assert.equal(ui.retained_size, want.retained_size);
    assert.deepEqual(ui.path, want.path, 'the retaining path');
    const path = await page.textContent('.leak-path');
    assert.ok(path.includes('sessionsLeak'), `the path shown: ${path}`);
    for (const p of want.path) assert.ok(path.includes(p.edge), `the path shown lacks ${p.edge}: ${path}`);
    await shot('leaks');
  } else if (kind === 'diff') {
    // GOLDEN here is `jsprof diff BEFORE AFTER --json` (tested against the workload's change).
    const sessions = await page.evaluate(() => window.jsprof.source.sessions());
    const s = sessions.sessions.find((s) => /after/.test(s.target));
    await page.goto('about:blank');
    await page.goto(`${url}#session=${s.session_id}&artifact=${s.timeline_artifact_id}&tab=diff`);
    await page.waitForFunction(() => window.jsprof && window.jsprof.diff && window.jsprof.diff.result, null, { timeout: 30000 });
    const r = await page.evaluate(() => window.jsprof.diff.result);
    const grew = (list) => list.filter((f) => f.delta_self_ms > 0)[0];
    const want = grew(golden.functions);
    assert.equal(want.name, 'checksum');
    assert.equal(r.functions.length, golden.functions.length, 'rows above the noise floor');
    assert.deepEqual(r.below_noise_floor, golden.below_noise_floor, 'rows under the noise floor');
    const got = grew(r.functions);
    assert.equal(got.name, 'checksum');
    near(got.delta_self_ms, want.delta_self_ms, 1e-6, 'Δ self of checksum');
    near(got.delta_total_ms, want.delta_total_ms, 1e-6, 'Δ total of checksum');
    // The table: checksum first (largest change), its Δ self as the CLI's.
    const row = await page.$eval('[role=tabpanel]:not([hidden]) tbody tr', (tr) => ({ name: tr.children[0].textContent, delta: tr.children[4].querySelector('span').title }));
    assert.equal(row.name, 'checksum');
    near(Number(row.delta), want.delta_self_ms, 1e-6, 'Δ self shown');
    // The differential flame graph: checksum drawn, in red (it grew).
    const fill = await page.evaluate(() => {
      for (const g of document.querySelectorAll('.diff-svg svg g')) {
        const t = g.querySelector('title');
        if (t && /^checksum/.test(t.textContent)) { const r = g.querySelector('rect'); return r && r.getAttribute('fill'); }
      }
      return null;
    });
    assert.ok(fill, 'no checksum frame in the differential flame graph');
    const [rr, gg, bb] = (fill.match(/\d+/g) || []).map(Number);
    assert.ok(rr > bb && rr > gg, `checksum is not red: ${fill}`);
    await shot('diff');
  } else if (kind === 'detached') {
    const want = golden.classes.find((c) => c.name === 'Detached <section>');
    assert.ok(want, 'the golden has no Detached <section>');
    await page.waitForSelector('[role=tabpanel]:not([hidden]) tbody tr');
    const rows = await page.$$eval('[role=tabpanel]:not([hidden]) tbody tr', (trs) => trs.map((tr) => tr.children[0].textContent));
    const row = rows.find((r) => r.includes('Detached <section>'));
    assert.ok(row, 'the Summary does not list Detached <section>');
    assert.ok(row.includes(`×${want.count.toLocaleString('en-US')}`), `Detached <section>: "${row}", DevTools counts ${want.count}`);
    await shot('summary');
    await tab('statistics');
    await shot('statistics');
    await tab('detached');
    await page.waitForSelector('[role=tabpanel]:not([hidden]) tbody tr');
    await page.click('[role=tabpanel]:not([hidden]) tbody tr');
    await page.waitForTimeout(500);
    await shot('detached');
    await tab('dominators');
    await page.waitForSelector('[role=tabpanel]:not([hidden]) tbody tr');
    await shot('dominators');
  } else if (kind === 'leak') {
    const want = golden.classes.find((c) => c.name === 'Session');
    assert.ok(want, 'the golden has no Session class');
    await page.waitForSelector('[role=tabpanel]:not([hidden]) tbody tr');
    await page.fill('[role=tabpanel]:not([hidden]) input[type=search]', '^Session$');
    await page.waitForTimeout(400);
    const row = await page.textContent('[role=tabpanel]:not([hidden]) tbody tr');
    assert.ok(row.includes(`Session ×${want.count}`), `Session row "${row}", DevTools counts ${want.count}`);
    await page.click('[role=tabpanel]:not([hidden]) tbody tr .tw');
    await page.waitForTimeout(500);
    await page.click('[role=tabpanel]:not([hidden]) tbody tr:nth-child(2)');
    // The live page's Retainers tree opens along the closest retainers; the report lists paths.
    await page.waitForFunction(() => /sessionsLeak/.test((document.querySelector('[role=tabpanel]:not([hidden]) .retainers') || {}).textContent || ''), null, { timeout: 10000 }).catch(() => {});
    const paths = await page.textContent('[role=tabpanel]:not([hidden]) .retainers');
    assert.ok(paths.includes('sessionsLeak'), `Retainers of a Session do not show sessionsLeak: ${paths.slice(0, 300)}`);
    await shot('retainers');
    if (!offline) {
      await tab('comparison');
      await page.waitForTimeout(1500);
      await shot('comparison');
    }
  } else throw new Error('unknown case ' + kind);
  assert.deepEqual(errors, [], 'page errors');
  if (offline) assert.deepEqual(network, [], 'the report made network requests');
  console.log(`ok ${tag}`);
} catch (e) {
  await shot('failure').catch(() => {});
  console.error(`FAIL ${tag}: ${e.message}`);
  if (errors.length) console.error('page errors:', errors);
  process.exitCode = 1;
} finally {
  await browser.close();
}
