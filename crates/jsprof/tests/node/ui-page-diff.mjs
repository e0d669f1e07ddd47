// Two builds' page loads compared (`jsprof view --base A/ --target B/`), driven by
// crates/jsprof/tests/it/ui_page_diff.rs. Usage:
//   node ui-page-diff.mjs CASE URL EXPECTED.json SHOTS_DIR
// EXPECTED: {rows: the metric rows of `jsprof diff --base A/ --target B/`'s text ({metric, base,
// target, shift, ci, q, verdict}), dots: [[metric, base runs, target runs]] (its --json's counts
// of runs that have the metric), median_run: {base, target} (its --json's names), runs: {base,
// target} (each side's run names in the order `view` imported them, the order of the page's
// address)}. Nothing expected is the page's own output. One page open:
//   - each metric row reads as the CLI's text: name, medians, shift, interval, q, verdict; a
//     significant row is marked as grew or shrank;
//   - each metric's strip has a dot per run per side;
//   - "Open median run" of each side opens the artifact of the run the diff names (its
//     SESSION/ARTIFACT in the page's address), and the sidebar's link comes back.
import { startCheck } from './browser.mjs';
import assert from 'node:assert/strict';

const { url, expected, browser, errors, page, shot } = await startCheck();
try {
  await page.waitForSelector('.pd-metrics tbody tr');
  const rows = await page.$$eval('.pd-metrics tbody tr', (trs) => trs.map((tr) => {
    const c = (k) => tr.querySelector(`[data-col=${k}]`).textContent;
    return { metric: c('metric'), base: c('base'), target: c('target'), shift: c('shift'), ci: c('ci'), q: c('q'), verdict: c('verdict') };
  }));
  assert.deepEqual(rows, expected.rows, 'the metric rows are the CLI\'s');
  const marks = await page.$$eval('.pd-metrics tbody tr', (trs) => trs.map((tr) => tr.className));
  assert.deepEqual(marks, expected.rows.map((r) => (r.verdict ? `pd-${r.verdict}` : '')), 'significant rows are marked');
  const dots = await page.$$eval('.pd-metrics tbody tr', (trs) => trs.map((tr) => [
    tr.dataset.metric, tr.querySelectorAll('circle[data-side=base]').length, tr.querySelectorAll('circle[data-side=target]').length,
  ]));
  assert.deepEqual(dots, expected.dots, 'a dot per run per side');
  await shot('page-diff');

  const address = new URLSearchParams(new URL(url).hash.slice(1));
  for (const side of ['base', 'target']) {
    const name = expected.median_run[side];
    const want = address.get(side).split(',')[expected.runs[side].indexOf(name)];
    assert.ok(want, `${side}: ${name} is one of ${expected.runs[side]}`);
    await page.click(`button[data-open=${side}]`);
    await page.waitForFunction((w) => {
      const c = window.jsprof.current;
      return c && `${c.session}/${c.artifactId}` === w && window.jsprof.chart;
    }, want, { timeout: 60000 });
    assert.equal(await page.evaluate(() => window.jsprof.current.art.name), name, `${side}'s median run`);
    await page.click('[data-page-loads]');
    await page.waitForFunction(() => window.jsprof.current === null && window.jsprof.pageDiff && window.jsprof.pageDiff.diff, null, { timeout: 60000 });
  }
  assert.deepEqual(errors, [], 'no page errors');
  console.log(`page diff: ${rows.length} metric rows, ${dots.reduce((n, d) => n + d[1] + d[2], 0)} dots, both median runs opened`);
} finally {
  await browser.close();
}
