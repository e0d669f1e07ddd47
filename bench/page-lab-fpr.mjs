// The false-positive rate of `jsprof diff --base A/ --target B/` on page loads (issue 37): M runs
// of one build of a small page (the acceptance test's build A) are recorded once with
// `jsprof record --url --runs M` in headless Chromium (CPU 2×, cold cache per run), then K
// A-against-A comparisons are resampled from them — each two disjoint random sets of N runs —
// and diffed. A comparison is a false positive when any metric (or the long tasks' count) is
// reported significant. With Benjamini-Hochberg over the metrics, the rate must be ≤ alpha.
//
//   node bench/page-lab-fpr.mjs            # M=24, N=6, K=40, alpha 0.05
//   JSPROF_BENCH_BIN=target/debug/jsprof LAB_RUNS=24 LAB_N=6 LAB_K=40 node bench/page-lab-fpr.mjs
//
// Inputs go to bench/out/page-lab/ (gitignored). Needs Node, Chromium (CHROMIUM or
// /usr/bin/chromium) and a built jsprof (default target/debug/jsprof).
import {spawn, execFile} from 'node:child_process';
import {promisify} from 'node:util';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

// The page is served from this process: jsprof runs asynchronously so that it can answer.
const run = promisify(execFile);
const bin = process.env.JSPROF_BENCH_BIN || 'target/debug/jsprof';
const M = Number(process.env.LAB_RUNS || 24);
const N = Number(process.env.LAB_N || 6);
const K = Number(process.env.LAB_K || 40);
const alpha = Number(process.env.LAB_ALPHA || 0.05);
const out = path.resolve('bench/out/page-lab');
fs.rmSync(out, {recursive: true, force: true});
fs.mkdirSync(out, {recursive: true});

const page = `<!doctype html><html><head><meta charset=utf-8>
<meta name=viewport content='width=device-width'><title>lab</title></head>
<body><h1>A page in a lab</h1><p style='font-size:28px'>One load is noise; a page load is a
distribution. This paragraph is the largest text, so it is the page's LCP.</p></body></html>`;
const server = http.createServer((req, res) => {
  if (req.url !== '/') { res.writeHead(404); res.end('not here'); return; }
  res.writeHead(200, {'Content-Type': 'text/html', 'Cache-Control': 'no-store'});
  res.end(page);
});
await new Promise(r => server.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${server.address().port}/`;

const chromium = process.env.CHROMIUM || '/usr/bin/chromium';
const browser = spawn(chromium, ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-extensions',
  '--remote-debugging-address=127.0.0.1', '--remote-debugging-port=0', '--window-size=1280,720',
  `--user-data-dir=${out}/profile`, 'about:blank'], {stdio: ['ignore', 'ignore', 'pipe']});
const addr = await new Promise((resolve, reject) => {
  let text = '';
  browser.stderr.on('data', d => {
    text += d;
    const m = text.match(/DevTools listening on ws:\/\/([^/]+)\//);
    if (m) resolve(m[1]);
  });
  browser.on('exit', () => reject(new Error(`chromium exited: ${text}`)));
});

try {
  const runsDir = `${out}/runs`;
  const t0 = Date.now();
  await run(bin, ['record', '--chrome', addr, '--trace', '--url', url, '--runs', String(M),
    '--cpu-slowdown', '2', '--settle', '0.5', '--json', '-o', runsDir], {maxBuffer: 64 << 20});
  const recordS = (Date.now() - t0) / 1000;
  const files = fs.readdirSync(runsDir).filter(f => f !== 'manifest.json').sort();

  // A small seeded generator (mulberry32): the same resamples every time.
  let seed = 37;
  const random = () => {
    seed = (seed + 0x6D2B79F5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  let positives = 0;
  let strict = 0; // at alpha 0.01, the acceptance test's
  const byMetric = {};
  for (let k = 0; k < K; k++) {
    const shuffled = files.slice();
    for (let i = shuffled.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [shuffled[i], shuffled[j]] = [shuffled[j], shuffled[i]];
    }
    const sides = [shuffled.slice(0, N), shuffled.slice(N, 2 * N)].map((set, s) => {
      const dir = `${out}/resample-${s}`;
      fs.rmSync(dir, {recursive: true, force: true});
      fs.mkdirSync(dir);
      for (const f of set) fs.linkSync(`${runsDir}/${f}`, `${dir}/${f}`);
      return dir;
    });
    const doc = JSON.parse((await run(bin, ['diff', '--base', sides[0], '--target', sides[1],
      '--alpha', String(alpha), '--json'], {maxBuffer: 64 << 20})).stdout);
    const significant = [...doc.metrics, doc.long_tasks].filter(m => m.significant).map(m => m.metric);
    for (const m of significant) byMetric[m] = (byMetric[m] || 0) + 1;
    if (significant.length) positives++;
    if ([...doc.metrics, doc.long_tasks].some(m => m.q < 0.01)) strict++;
  }
  const rate = positives / K;
  console.log(`recorded ${files.length} runs of ${url} in ${recordS.toFixed(1)} s`);
  console.log(`A against A: ${K} resampled comparisons of ${N} vs ${N} runs, alpha ${alpha}`);
  console.log(`false positives: ${positives} of ${K} = ${(rate * 100).toFixed(1)} %  ` +
    `${rate <= alpha ? 'PASS' : 'MISS'} (≤ ${alpha * 100} %)`);
  if (positives) console.log('by metric:', JSON.stringify(byMetric));
  console.log(`at alpha 0.01: ${strict} of ${K} = ${(strict / K * 100).toFixed(1)} %`);
} finally {
  browser.kill();
  server.close();
}
