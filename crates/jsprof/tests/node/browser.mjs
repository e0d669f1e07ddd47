// What every browser check (ui-*.mjs) starts with: Chromium launched as CI has it (`CHROMIUM`,
// else /usr/bin/chromium), pages whose uncaught errors are collected (each check asserts there
// were none), the expected JSON the Rust test wrote, and the wait for the jsprof page to be ready.
import { chromium } from 'playwright-core';
import { readFileSync } from 'node:fs';
import assert from 'node:assert/strict';

/** A JSON file, parsed (the EXPECTED.json the Rust test wrote from the CLI's output). */
export const readJson = (path) => JSON.parse(readFileSync(path, 'utf8'));

/** Chromium, headless, without the sandbox (CI runs as root), with `args` added. */
export const launch = (args = []) => chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox', ...args] });

/** A new page of `owner` (a browser or a context) whose uncaught errors go to `errors`. */
export async function newPage(owner, errors, viewport = { width: 1400, height: 860 }) {
  const page = await owner.newPage({ viewport });
  page.on('pageerror', (e) => errors.push(e.message));
  return page;
}

/** Opens `url` in `page` and waits until jsprof says it is ready. */
export async function openReady(page, url, timeout = 60000) {
  await page.goto(url);
  await page.waitForFunction(() => window.jsprof && window.jsprof.ready, null, { timeout });
}

/** `shot(name)`: a screenshot of `page` as SHOTS/name.png. */
export const shooter = (page, shots) => (name) => page.screenshot({ path: `${shots}/${name}.png` });

/**
 * The Functions table of `page` is `top` (a `jsprof top --json` answer): the same rows, by
 * name, URL, line and column, each with the CLI's self and total ±0.001 ms. `what` names the step.
 */
export async function assertFunctionsAreTop(page, top, what) {
  const got = await page.evaluate(() => window.jsprof.tables.functions.roots.map((d) => ({ name: d.name, url: d.url, line: d.line, column: d.column, self: d.self, total: d.total })));
  const k = (f) => `${f.name}\t${f.url}\t${f.line}\t${f.column}`;
  const want = new Map(top.functions.map((f) => [k(f), f]));
  assert.equal(got.length, want.size, `${what}: ${got.length} rows, the CLI ${want.size}`);
  const near = (a, b) => Math.abs(a - b) <= 0.001;
  for (const d of got) {
    const f = want.get(k(d));
    assert.ok(f && near(f.self_ms, d.self) && near(f.total_ms, d.total), `${what}: ${d.name} ${d.self}/${d.total} vs ${f && f.self_ms}/${f && f.total_ms}`);
  }
}

/**
 * The start of a check run as `node ui-X.mjs CASE URL EXPECTED.json SHOTS_DIR`: its arguments, the
 * expected JSON, a browser and a page (errors collected) opened on URL and ready.
 */
export async function startCheck(argv = process.argv.slice(2)) {
  const [kind, url, expectedPath, shots] = argv;
  const expected = readJson(expectedPath);
  const browser = await launch();
  const errors = [];
  const page = await newPage(browser, errors);
  await openReady(page, url);
  return { kind, url, expected, shots, browser, errors, page, shot: shooter(page, shots) };
}
