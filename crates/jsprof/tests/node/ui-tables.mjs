// The page's Functions table and Bottom-up roots against `jsprof top --json --limit 0`, driven by
// crates/jsprof/tests/it/ui_tables.rs. Usage:
//   node ui-tables.mjs URL TOP.json [--range A..B RANGE_TOP.json] [--children TREE.json] [--offline]
// Every function of the CLI's table must be a row of both views with the same self and total
// (±0.001 ms: the documents round to the µs), and no other row may be there; the first rows
// shown must be the CLI's heaviest by self (DevTools' order for both views). With --range the
// range is selected in the page (as a shift-drag does) and the same holds against the CLI's
// `--range` table. With --children (`jsprof tree --bottom-up --max-depth 6 --min-percent 0.01
// --json`), the shallowest Bottom-up node whose callers the node budget held back is opened: the
// callers fetched from the server are the CLI's, each with its self and total (those under the
// 0.01 % threshold aside).
import { launch, newPage, openReady, readJson } from './browser.mjs';
import assert from 'node:assert/strict';

const args = process.argv.slice(2);
const [url, topPath] = args;
const offline = args.includes('--offline');
const ri = args.indexOf('--range');
const range = ri >= 0 ? { r: args[ri + 1].split('..').map(Number), top: args[ri + 2] } : null;
const ci = args.indexOf('--children');
const childrenTree = ci >= 0 ? readJson(args[ci + 1]) : null;
const TOL = 0.001;

const browser = await launch();
const errors = [], network = [];
const page = await newPage(browser, errors);
page.on('request', (r) => { if (!/^(file|data|blob):/.test(r.url())) network.push(r.url()); });

await openReady(page, url, 120000);

const key = (f) => `${f.name}\t${f.url}\t${f.line}\t${f.column}`;

async function tab(name) {
  await page.click(`#tabs button[data-tab=${name}]`);
  await page.waitForFunction((n) => window.jsprof.tables[n] && window.jsprof.tables[n].roots, name, { timeout: 120000 });
}

// The rows of a view: every root it holds (not only those drawn) and the names drawn first.
async function rowsOf(name, r) {
  return page.evaluate(([n, r]) => {
    const v = window.jsprof.tables[n];
    const same = r ? v.profile.range && Math.abs(v.profile.range[0] - r[0]) < 1e-6 && Math.abs(v.profile.range[1] - r[1]) < 1e-6 : !v.profile.range;
    const shown = [...v.table.tbody.querySelectorAll('tr')].slice(0, 5).map((tr) => tr.children[4].textContent.replace(/^[▸▾]/, ''));
    return { same, shown, note: v.note.hidden ? '' : v.note.textContent, roots: v.roots.map((d) => ({ name: d.name, url: d.url, line: d.line, column: d.column, self: d.self, total: d.total })) };
  }, [name, r]);
}

function compare(what, got, top) {
  const want = new Map(top.functions.map((f) => [key(f), f]));
  const have = new Map(got.roots.map((d) => [key(d), d]));
  for (const [k, f] of want) {
    const d = have.get(k);
    assert.ok(d, `${what}: the CLI's ${JSON.stringify(f.name)} (${f.url}:${f.line}, self ${f.self_ms} ms) is not in the view`);
    assert.ok(Math.abs(d.self - f.self_ms) <= TOL && Math.abs(d.total - f.total_ms) <= TOL,
      `${what}: ${f.name}: the view says self ${d.self}, total ${d.total}; the CLI ${f.self_ms}, ${f.total_ms}`);
  }
  for (const [k, d] of have) assert.ok(want.has(k), `${what}: the view has ${JSON.stringify(d.name)} (total ${d.total}) that the CLI does not`);
  // Both views open sorted by self, as the CLI's table is: the first row drawn is a function
  // with the CLI's largest self time (ties may fall either way).
  const name = (f) => (f.name === '' ? '(anonymous)' : f.name);
  const best = top.functions.filter((f) => f.self_ms === top.functions[0].self_ms).map(name);
  assert.ok(best.includes(got.shown[0]), `${what}: the first row is ${got.shown[0]}, not the heaviest by self (${best}); rows: ${got.shown}`);
  const listed = got.roots.reduce((a, d) => a + d.self, 0), cli = top.functions.reduce((a, f) => a + f.self_ms, 0);
  console.log(`${what}: ${got.roots.length} functions, self times add up to ${listed.toFixed(3)} ms (CLI ${cli.toFixed(3)} ms)`);
}

async function check(suffix, r, top) {
  for (const name of ['functions', 'bottom_up']) {
    await tab(name);
    await page.waitForFunction(([n, r]) => {
      const v = window.jsprof.tables[n];
      return r ? v.profile.range && Math.abs(v.profile.range[0] - r[0]) < 1e-6 : !v.profile.range;
    }, [name, r], { timeout: 120000 });
    const got = await rowsOf(name, r);
    compare(`${name}${suffix}`, got, top);
    if (name === 'bottom_up' && got.note) console.log(`bottom_up${suffix} note: ${got.note}`);
  }
}

await check('', null, readJson(topPath));
if (childrenTree) {
  const got = await page.evaluate(async () => {
    const v = window.jsprof.tables.bottom_up;
    const plain = (x) => ({ name: x.name, url: x.url, line: x.line, column: x.column, self: x.self, total: x.total });
    // The shallowest node whose callers the budget held back, heaviest first within a level.
    let level = v.roots.map((d) => [d, [d]]);
    let found = null;
    while (level.length && !found) {
      level.sort((a, b) => b[0].total - a[0].total);
      found = level.find(([d]) => d.more > 0);
      level = level.flatMap(([d, path]) => d.kids.map((k) => [k, [...path, k]]));
    }
    if (!found) return null;
    const [d, path] = found;
    const sent = d.kids.length, held = d.more;
    const kids = await v.children(d, 'bottom_up');
    return { path: path.map(plain), sent, held, kids: kids.map(plain), threshold: v.profile.bottom_up.min_fraction * v.profile.total };
  });
  assert.ok(got, 'no Bottom-up node has callers held back: the profile is too small for this check');
  const nodes = childrenTree.nodes, kidsOf = new Map();
  for (const n of nodes) { const p = n.parent ?? -1; if (!kidsOf.has(p)) kidsOf.set(p, []); kidsOf.get(p).push(n); }
  let at = null;
  for (const step of got.path) {
    at = (kidsOf.get(at ? at.id : -1) || []).find((n) => key(n) === key(step));
    assert.ok(at, `the CLI's bottom-up tree has no node ${got.path.map((p) => p.name).join(' ← ')} (at ${step.name})`);
  }
  const where = got.path.map((p) => p.name).join(' ← ');
  const cli = kidsOf.get(at.id) || [];
  assert.ok(cli.length, `the CLI shows no callers under ${where}: raise its --max-depth`);
  const have = new Map(got.kids.map((d) => [key(d), d]));
  assert.equal(got.kids.length, got.sent + got.held, `${where}: ${got.sent} callers sent, ${got.held} held back, ${got.kids.length} fetched`);
  for (const n of cli) {
    const d = have.get(key(n));
    if (!d) { assert.ok(n.total_ms < got.threshold, `${where}: the caller ${n.name} (${n.total_ms} ms) was not fetched`); continue; }
    assert.ok(Math.abs(d.self - n.self_ms) <= TOL && Math.abs(d.total - n.total_ms) <= TOL, `${where} ← ${n.name}: page ${d.self}/${d.total}, CLI ${n.self_ms}/${n.total_ms}`);
    have.delete(key(n));
  }
  assert.equal(have.size, 0, `callers the CLI does not have: ${[...have.keys()]}`);
  console.log(`bottom_up ${where}: ${got.sent} callers sent, ${got.held} more fetched on opening, as the CLI's`);
}
if (range) {
  await page.evaluate((r) => window.jsprof.setRange(r), range.r);
  await check(` ${range.r.join('..')}`, range.r, readJson(range.top));
}
assert.deepEqual(errors, [], 'page errors');
if (offline) assert.deepEqual(network, [], 'network requests from the report');
await browser.close();
