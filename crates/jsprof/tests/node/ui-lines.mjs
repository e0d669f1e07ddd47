// The source panel in the browser, driven by crates/jsprof/tests/it/ui_lines.rs. Usage:
//   node ui-lines.mjs CASE URL EXPECTED.json SHOTS_DIR
// EXPECTED is `jsprof lines FILE --function '^NAME$' --json`'s first function (the CLI's, never
// the page's output pasted back). In the Functions table, right-click NAME → "Show source with
// line costs"; the panel's lines are the CLI's, line for line:
//   text     the source is under the opened file's folder: every line with its text, each
//            ticked line's gutter showing the CLI's time, the hottest line scrolled into view;
//            a screenshot SHOTS_DIR/ui-source.png.
//   named    the source is outside the opened file's folder, named by the profile: `view`
//            reads it as `jsprof lines` does (the same checks as `text`).
//   trace    a Chromium trace whose scripts came over HTTP: the numbers from its per-sample
//            lines, no text, a note saying why and naming --source-dir, the sums saying they
//            are samples.
//   served   the same trace opened with `--source-dir DIR` holding the served script: the
//            CLI's numbers, each line's text the file's (EXPECTED's `source_lines`).
// Then the same panel again from the flame chart: a call of NAME clicked, its location in the
// details line clicked.
import { startCheck } from './browser.mjs';
import assert from 'node:assert/strict';

const { kind, expected, shots, browser, errors, page } = await startCheck();
await page.click('#tabs button[data-tab=functions]');
await page.waitForFunction(() => window.jsprof.tables.functions, null, { timeout: 60000 });

const rows = await page.$$('[role=tabpanel]:not([hidden]) tbody tr');
let hit = null;
for (const r of rows) if ((await r.$eval('td:nth-child(5)', (td) => td.textContent)) === expected.name) { hit = r; break; }
assert.ok(hit, `no row ${expected.name} in Functions`);
await hit.click({ button: 'right' });
await page.click('#menu button[data-action=source]');
await page.waitForFunction(() => window.jsprof.sourceView && window.jsprof.sourceView.doc, null, { timeout: 60000 });

// The numbers: the server's answer is the CLI's document for the function.
const doc = await page.evaluate(() => window.jsprof.sourceView.doc);
const f = doc.functions[0];
// Numbers to 1e-12 relative: the expected file went through serde_json's Value, whose float
// parsing may move the last digit.
for (const k of ['name', 'url', 'line', 'column', 'self_ms', 'total_ms', 'ticks', 'lines_self_ms', 'hottest_line']) {
  if (typeof f[k] === 'number' && typeof expected[k] === 'number') {
    assert.ok(Math.abs(f[k] - expected[k]) <= 1e-12 * Math.max(1, Math.abs(expected[k])), `${k}: the panel ${f[k]}, the CLI ${expected[k]}`);
  } else {
    assert.deepEqual(f[k], expected[k], `${k}: the panel ${f[k]}, the CLI ${expected[k]}`);
  }
}
// What is drawn: one row per line, the gutter's time the CLI's (as fmtMs prints it).
const drawn = await page.$$eval('#source-panel tr[data-line]', (trs) => trs.map((tr) => ({
  line: Number(tr.dataset.line), ms: tr.querySelector('td.ms').textContent, text: tr.querySelector('td.src').textContent,
  heat: tr.querySelector('td.heat div') ? parseFloat(tr.querySelector('td.heat div').style.width) : 0,
})));
// The CLI's duration text for each value, from the page's own formatter (`ui_story` holds it
// equal to the CLI's `fmt_ms`).
const texts = await page.evaluate(async (vs) => { const f = await import('jsprof/format.js'); return vs.map((v) => f.fmtMs(v)); },
  [...expected.lines.map((l) => l.self_ms), expected.lines_self_ms]);
const msText = new Map([...expected.lines.map((l) => l.self_ms), expected.lines_self_ms].map((v, i) => [v, texts[i]]));
const fmtMs = (v) => msText.get(v);
const textual = kind === 'text' || kind === 'named' || kind === 'served';
// `served`: the CLI cannot read a script served over HTTP, so it lists only the lines with
// samples; the panel adds the file's lines around them, each without cost.
const byLine = new Map(expected.lines.map((l) => [l.line, l]));
if (kind === 'served') {
  const shown = new Set(drawn.map((r) => r.line));
  for (const l of expected.lines) if (l.ticks > 0) assert.ok(shown.has(l.line), `line ${l.line} (with samples) is shown`);
}
const want = kind === 'served' ? drawn.map((r) => byLine.get(r.line) || { line: r.line, ticks: 0, self_ms: 0 })
  : textual ? expected.lines : expected.lines.filter((l) => l.ticks > 0);
assert.deepEqual(drawn.map((r) => r.line), want.map((l) => l.line), 'the lines shown');
const max = Math.max(...want.map((l) => l.self_ms));
for (const [r, l] of drawn.map((r, i) => [r, want[i]])) {
  assert.equal(r.ms, l.ticks > 0 ? fmtMs(l.self_ms) : '', `line ${l.line}: the gutter`);
  assert.ok(Math.abs(r.heat - (l.ticks > 0 ? (l.self_ms * 100) / max : 0)) < 0.1, `line ${l.line}: heat ${r.heat} %`);
  if (kind === 'served') assert.equal(r.text, expected.source_lines[l.line - 1], `line ${l.line}: the text of the file in --source-dir`);
  else if (textual) assert.equal(r.text, l.text, `line ${l.line}: the text`);
  else assert.equal(r.text, '', `line ${l.line}: no text`);
}
if (textual) {
  // The hottest line is on screen, inside the panel's scrolled code.
  const visible = await page.evaluate((n) => {
    const code = document.querySelector('#source-panel .code').getBoundingClientRect();
    const row = document.querySelector(`#source-panel tr[data-line="${n}"]`).getBoundingClientRect();
    return row.top >= code.top && row.bottom <= code.bottom;
  }, expected.hottest_line);
  assert.ok(visible, 'the hottest line is scrolled into view');
  assert.ok(await page.isHidden('#source-panel .why'), 'no note when the text is there');
  await page.screenshot({ path: `${shots}/ui-source-${kind}.png` });
} else {
  const why = await page.textContent('#source-panel .why');
  assert.match(why, /was served over HTTP and no source folder holds .*--source-dir/, `the note: ${why}`);
}
if (kind === 'trace' || kind === 'served') {
  const sums = await page.textContent('#source-panel .sums');
  assert.match(sums, new RegExp(`${expected.ticks.toLocaleString('en-US')} samples with a line = ${fmtMs(expected.lines_self_ms)}`), sums);
}
// Escape closes it.
await page.keyboard.press('Escape');
assert.ok(await page.isHidden('#source-panel'), 'Escape closes the panel');
// The flame chart's details line: a call of NAME selected, its location opens the same panel.
await page.click('#tabs button[data-tab=chart]');
await page.waitForFunction(() => window.jsprof.chart && window.jsprof.chart.stats.frames > 0, null, { timeout: 60000 });
const at = await page.evaluate((n) => window.jsprof.chart.locate(n), expected.name);
assert.ok(at, `no call of ${expected.name} drawn in the chart`);
await page.mouse.click(at.x, at.y);
await page.evaluate(() => { window.jsprof.sourceView.doc = null; });
await page.click('[role=tabpanel]:not([hidden]) .details a.srclink');
await page.waitForFunction(() => !document.getElementById('source-panel').hidden && window.jsprof.sourceView.doc, null, { timeout: 60000 });
const again = await page.evaluate(() => window.jsprof.sourceView.doc.functions[0]);
assert.equal(again.name, expected.name, 'the details line opened the source of the selected call');
assert.ok(Math.abs(again.self_ms - expected.self_ms) <= 1e-12 * Math.max(1, expected.self_ms), `from the details line: self ${again.self_ms}, the CLI ${expected.self_ms}`);
await page.keyboard.press('Escape');
assert.deepEqual(errors, [], 'page errors');
await browser.close();
console.log(`ui-lines ${kind}: ok`);
