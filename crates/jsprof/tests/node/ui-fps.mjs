// Frame rate of the flame chart while panning and zooming (bench/ui-fps.sh): opens URL in
// headless Chromium, then for each phase moves the view every animation frame and records the
// intervals between requestAnimationFrame callbacks. Prints one JSON line per phase.
import { launch } from './browser.mjs';

const url = process.argv[2];
const browser = await launch(['--disable-gpu-vsync', '--disable-frame-rate-limit']);
const page = await browser.newPage({ viewport: { width: 1600, height: 900 } });
await page.goto(url);
await page.waitForFunction(() => window.jsprof && window.jsprof.ready && window.jsprof.chart, null, { timeout: 600000 });
await page.waitForTimeout(1000);
console.log(JSON.stringify(await page.evaluate(() => { const d = window.jsprof.chart.base.doc; return { events_in_timeline: d.threads.find((t) => t.id === d.timeline).events, events_sent_whole_view: d.events.s.length, merged_blocks_sent: d.merged.s.length }; })));

async function phase(name, setup, step, frames = 240) {
  await page.evaluate(`(${setup})()`);
  await page.waitForTimeout(1500); // the server's window for this view arrives
  const r = await page.evaluate(({ step, frames }) => new Promise((done) => {
    const chart = window.jsprof.chart;
    const move = new Function('chart', 'i', step);
    const times = [];
    let i = 0;
    const tick = (t) => {
      times.push(t);
      if (i >= frames) { done({ times, drawn: chart.stats.drawn, merged: chart.stats.merged, span: chart.t1 - chart.t0 }); return; }
      move(chart, i++);
      chart.draw(); // what the chart's own frame would do, timed inside this frame
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  }), { step, frames });
  const gaps = r.times.slice(1).map((t, i) => t - r.times[i]).sort((a, b) => a - b);
  const mean = gaps.reduce((a, b) => a + b, 0) / gaps.length;
  const p95 = gaps[Math.floor(gaps.length * 0.95)];
  console.log(JSON.stringify({ phase: name, fps: +(1000 / mean).toFixed(1), mean_ms: +mean.toFixed(2), p95_ms: +p95.toFixed(2), drawn: r.drawn, merged: r.merged, span_ms: +r.span.toFixed(3) }));
}

const whole = '() => { const c = window.jsprof.chart; c.setView(c.start, c.end); }';
const tenth = '() => { const c = window.jsprof.chart; const m = (c.start + c.end) / 2, s = (c.end - c.start) / 20; c.setView(m - s, m + s); }';
await phase('pan, 10 % of the recording', tenth, 'const s = chart.t1 - chart.t0; chart.setView(chart.t0 + s * 0.002 * (i % 60 < 30 ? 1 : -1), chart.t1 + s * 0.002 * (i % 60 < 30 ? 1 : -1), false);');
await phase('zoom in and out, whole recording', whole, 'chart.zoom(i % 80 < 40 ? 0.93 : 1 / 0.93, chart.width / 2);');
const mid = '() => { const c = window.jsprof.chart; const m = (c.start + c.end) / 2, s = (c.end - c.start) / 200; c.setView(m - s, m + s); }';
await phase('pan, 0.5 % of the recording', mid, 'const s = chart.t1 - chart.t0; chart.setView(chart.t0 + s * 0.01 * (i % 60 < 30 ? 1 : -1), chart.t1 + s * 0.01 * (i % 60 < 30 ? 1 : -1), false);');
await phase('zoom in and out, 0.5 % of the recording', mid, 'chart.zoom(i % 80 < 40 ? 0.95 : 1 / 0.95, chart.width / 2);');
await browser.close();
