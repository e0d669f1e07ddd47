// The page: sessions (server), tabs per artifact, the range selection shared by every CPU view.
import { fmtMs, fmtBytes, fmtWeight, fmtPct, fmtLocation, displayName, el, esc, setStatus, eventTitle } from 'jsprof/format.js';
import { ServerSource, embeddedArtifact, filterParams } from 'jsprof/source.js';
import { FlameChart } from 'jsprof/flamechart.js';
import { pageLanes, newHighlight } from 'jsprof/tracks.js';
import { InsightsSidebar, pageMarkers } from 'jsprof/insights.js';
import { FlameGraph } from 'jsprof/flamegraph.js';
import { CallTreeView } from 'jsprof/calltree.js';
import { DiffView } from 'jsprof/diff.js';
import { SandwichView } from 'jsprof/sandwich.js';
import { SourcePanel } from 'jsprof/sourceview.js';
import { SummaryView, DominatorsView, statisticsView, DetachedView, ComparisonView, LeaksView, embeddedHeap } from 'jsprof/heap.js';
import { ContainmentView, StringsView, AdvisorsView, ProcessView, AllocationsView } from 'jsprof/heapviews.js';
import { PageDiffView } from 'jsprof/pagediff.js';
import { eventDetails, requestDetails, functionRow, renderSummary } from 'jsprof/details.js';

const data = JSON.parse(document.getElementById('jsprof-data').textContent);
// The page's state that outlives one artifact, all of it here. It is also `window.jsprof`, the
// handle the browser tests (tests/node/ui-e2e.mjs, ui-fps.mjs) read the views through.
const app = {
  data, // the embedded JSON: {mode: 'server'}, or the report's views
  ready: false, // the first artifact (or the empty page) is drawn
  source: null, // the ServerSource (server mode)
  current: null, // = `current` below
  // The open artifact's views, once built (null otherwise).
  chart: null, flamegraph: null, diff: null, sandwich: null,
  summary: null, dominators: null, detached: null, comparison: null, leaks: null,
  // The page-load comparison (`jsprof view --base A/ --target B/`): its runs, {base: ['S/A', …],
  // target: […]}, and its view while it is the one shown.
  pageLoads: null, pageDiff: null,
  // The CallTreeViews by kind ('functions', 'top_down', 'bottom_up'; under the chart:
  // 'chart:functions', …), the last built of each.
  tables: {},
  showTab: null, setRange: null, // set once they are defined below
  sourceView: null, // the source panel (sourceview.js), once a function's source was asked for
};
window.jsprof = app;

const $ = (id) => document.getElementById(id);
const view = $('view');
const tabsEl = $('tabs');

// The open artifact (openArtifact makes it, with every field):
//   art       the artifact's source (ServerSource.artifact or embeddedArtifact)
//   tabs      Map(name -> tab, see addTab), in the order of the tab bar; tab: the shown one
//   range     [t0, t1] (ms) selected, or null for everything
//   profiles  Map('t0..t1' | 'all' -> Promise of the trees), for the current timeline and filters
//   timeline  the thread whose tables are shown (a timeline id; undefined: the recorded one)
//   chart     the FlameChart, when drawn
//   session, artifactId  where it comes from (server mode; they make the page's address)
let current = null;

function setRangeChip(r) {
  const chip = $('range-chip');
  chip.hidden = !r;
  if (r) $('range-text').textContent = `Selection ${fmtMs(r[0])} – ${fmtMs(r[1])} · ${fmtMs(r[1] - r[0])}`;
}
$('range-clear').addEventListener('click', () => setRange(null));
document.addEventListener('keydown', (e) => {
  if (e.key === 'Escape' && current && current.range && e.target.tagName !== 'INPUT') setRange(null);
});

// ---- filters (server only): --focus, --exclude, --drop, --hide-idle, --collapse-packages,
// --collapse-recursion, applied by the server to every CPU view, as the CLI applies them ----

const filterInputs = {
  focus: $('f-focus'), exclude: $('f-exclude'), drop: $('f-drop'),
  hideIdle: $('f-idle'), collapsePackages: $('f-packages'), collapseRecursion: $('f-recursion'),
};

function readFilterBar() {
  const fs = {};
  for (const [k, input] of Object.entries(filterInputs)) {
    if (input.type === 'checkbox') { if (input.checked) fs[k] = true; } else if (input.value.trim()) fs[k] = input.value.trim();
  }
  return fs;
}

function showFilterBar(fs) {
  for (const [k, input] of Object.entries(filterInputs)) {
    if (input.type === 'checkbox') input.checked = !!fs[k];
    else { input.value = fs[k] || ''; input.classList.toggle('active', !!fs[k]); input.classList.remove('invalid'); }
  }
  $('f-clear').hidden = !Object.keys(fs).length;
}

function filterInfo(text, error) {
  const info = $('f-info');
  info.textContent = text;
  info.classList.toggle('error', !!error);
}

// Applies a new filter state: every CPU view of the artifact is fetched again with it.
async function setFilters(fs) {
  const c = current;
  if (!c || !c.art.live || c.art.kind !== 'cpu') return;
  if (JSON.stringify(fs) === JSON.stringify(c.art.filters || {})) return;
  const before = c.art.filters;
  c.art.filters = fs;
  showFilterBar(fs);
  updateHash();
  filterInfo('Filtering…');
  try {
    // Ask once first: a bad pattern is refused before any view is torn down.
    const p = await c.art.profile(c.range, c.timeline);
    c.profiles.clear();
    c.profiles.set(c.range ? c.range.join('..') : 'all', Promise.resolve(withChildren(c, p, c.range, c.timeline)));
    filterInfo(Object.keys(fs).length ? keptText(p) : '');
  } catch (e) {
    c.art.filters = before;
    filterInfo(e.message, true);
    for (const k of ['focus', 'exclude', 'drop']) if (e.message.includes('`' + k + '`')) filterInputs[k].classList.add('invalid');
    updateHash();
    return false;
  }
  for (const t of c.tabs.values()) {
    if (t.rebuild) t.rebuild();
    else if (t.profileView) t.dirty = true;
    else if (t.refilter) t.refilter();
  }
  await showTab(c.tab);
  return true;
}

// ---- transforms from a node (right-click a row): each is a filter state pushed on a stack of
// breadcrumbs; a crumb goes back to its state (undo). The state is the filters, so the address
// keeps it. ----

const escapeRe = (t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const TRANSFORMS = [
  { id: 'focus', label: 'Focus on function', crumb: (d) => `Focus ${displayName(d.name)}`, named: true,
    apply: (fs, d) => ({ ...fs, focus: fs.focus ? `(?:${fs.focus})|^${escapeRe(d.name)}$` : `^${escapeRe(d.name)}$` }) },
  // The node's own call path (`--focus-stack`; from Bottom-up `--focus-stack-inverted`), after the
  // other filters as the server applies it: each focus is read in the tree the last one left.
  { id: 'subtree', label: 'Focus on subtree only', crumb: (d) => `Subtree ${displayName(d.name)}`, stacked: true,
    apply: (fs, d) => {
      const k = d.inverted ? 'focusStackInverted' : 'focusStack';
      return { ...fs, [k]: [...(fs[k] || []), d.stack.join(';')] };
    } },
  { id: 'merge', label: 'Merge function into its callers', crumb: (d) => `Merge ${displayName(d.name)}`, named: true,
    apply: (fs, d) => ({ ...fs, exclude: fs.exclude ? `${fs.exclude}|^${escapeRe(d.name)}$` : `^${escapeRe(d.name)}$` }) },
  { id: 'drop', label: 'Drop samples with this function', crumb: (d) => `Drop ${displayName(d.name)}`, named: true,
    apply: (fs, d) => ({ ...fs, drop: fs.drop ? `${fs.drop}|^${escapeRe(d.name)}$` : `^${escapeRe(d.name)}$` }) },
  { id: 'recursion', label: 'Collapse recursion', crumb: () => 'Collapse recursion', apply: (fs) => ({ ...fs, collapseRecursion: true }) },
  { id: 'packages', label: 'Collapse packages (node_modules)', crumb: () => 'Collapse packages', apply: (fs) => ({ ...fs, collapsePackages: true }) },
  { id: 'idle', label: 'Hide idle', crumb: () => 'Hide idle', apply: (fs) => ({ ...fs, hideIdle: true }) },
];

function renderCrumbs() {
  const nav = $('crumbs'), c = current;
  const crumbs = (c && c.crumbs) || [];
  nav.textContent = '';
  nav.hidden = crumbs.length < 2;
  crumbs.forEach((k, i) => {
    if (i) nav.append(el('span', { class: 'muted', text: '›' }));
    const b = el('button', { type: 'button', text: k.label, title: i < crumbs.length - 1 ? 'Go back to this view' : 'The current view', 'aria-current': i === crumbs.length - 1 ? 'step' : null });
    b.addEventListener('click', () => goToCrumb(i));
    nav.append(b);
  });
  if (crumbs.length > 1) {
    const undo = el('button', { type: 'button', text: 'Undo', id: 'undo', title: 'Undo the last transform' });
    undo.addEventListener('click', () => goToCrumb(crumbs.length - 2));
    nav.append(undo);
  }
}

async function goToCrumb(i) {
  const c = current;
  if (!c || !c.crumbs || !c.crumbs[i]) return;
  const keep = c.crumbs.slice(0, i + 1);
  if (await setFilters(c.crumbs[i].filters) !== false) { c.crumbs = keep; renderCrumbs(); }
}

async function applyTransform(t, d) {
  const c = current;
  const before = c.art.filters || {};
  if (!c.crumbs || !c.crumbs.length) c.crumbs = [{ label: Object.keys(before).length ? 'Filtered' : 'Full profile', filters: before }];
  const fs = t.apply(before, d);
  const ok = await setFilters(fs);
  if (ok) { c.crumbs.push({ label: t.crumb(d), filters: fs }); renderCrumbs(); }
}

function showMenu(e, d) {
  const menu = $('menu');
  menu.textContent = '';
  menu.append(el('div', { class: 'muted', style: 'padding:2px 12px 4px', text: displayName(d.name) }));
  for (const t of TRANSFORMS) {
    const b = el('button', { type: 'button', role: 'menuitem', text: t.label, 'data-transform': t.id, disabled: (t.named && !d.name) || (t.stacked && !d.stack) ? true : null });
    b.addEventListener('click', () => { menu.hidden = true; applyTransform(t, d); });
    menu.append(b);
  }
  if (current && current.tabs.has('sandwich')) {
    const b = el('button', { type: 'button', role: 'menuitem', text: 'Show in sandwich (callers and callees)', 'data-action': 'sandwich' });
    b.addEventListener('click', () => { menu.hidden = true; showSandwich(d); });
    menu.prepend(b);
    menu.prepend(menu.querySelector('.muted'));
  }
  // The function's source with its per-line self time (sourceview.js).
  const src = el('button', { type: 'button', role: 'menuitem', text: 'Show source with line costs', 'data-action': 'source', disabled: d.url ? null : true });
  src.addEventListener('click', () => { menu.hidden = true; (app.sourceView ||= new SourcePanel()).open(current.art, d, current.timeline); });
  menu.append(src);
  menu.hidden = false;
  menu.style.left = Math.min(e.clientX, window.innerWidth - 240) + 'px';
  menu.style.top = Math.min(e.clientY, window.innerHeight - menu.offsetHeight - 8) + 'px';
  menu.querySelector('button:not(:disabled)')?.focus();
}
document.addEventListener('click', (e) => { if (!$('menu').contains(e.target)) $('menu').hidden = true; });
document.addEventListener('keydown', (e) => { if (e.key === 'Escape') $('menu').hidden = true; });
// Transforms apply to a live CPU artifact (the server filters); the report has none.
const contextFor = () => (current && current.art.live && current.art.kind === 'cpu' ? (d, e) => showMenu(e, d) : null);

// How much of the profile the filters let through: the top-down roots' totals.
function keptText(p) {
  const n = p.top_down.nodes;
  let kept = 0;
  for (let i = 0; i < n.p.length; i++) if (n.p[i] < 0) kept += n.t[i];
  // A subtree path that matched nothing: the server's warning says which frame did not.
  const why = (p.warnings || []).find((w) => w.at.startsWith('focus_stack'));
  if (kept <= 0) return why ? `Nothing passes these filters: ${why.message}` : 'Nothing passes these filters';
  // The subtree focused on (not in the bar): its node, the last frame of the last path.
  const fs = (current && current.art.filters) || {};
  const paths = [...(fs.focusStack || []), ...(fs.focusStackInverted || [])];
  const node = paths.length ? paths[paths.length - 1].split(';').pop() : '';
  const subtree = node ? ` · subtree of ${node.length > 60 ? node.slice(0, 59) + '…' : node}` : '';
  return `Showing ${fmtWeight(kept, p.unit)} of ${fmtWeight(p.total, p.unit)} (${fmtPct((kept * 100) / (p.total || 1))})${subtree}`;
}

// A filter set by hand starts a new history of transforms; subtree focuses (not in the bar) stay
// until *Clear*.
const byHand = (fs) => { if (current) { current.crumbs = null; renderCrumbs(); } return setFilters(fs); };
const withStacks = (fs) => {
  const now = (current && current.art.filters) || {};
  for (const k of ['focusStack', 'focusStackInverted']) if (now[k]) fs[k] = now[k];
  return fs;
};
$('filters').addEventListener('submit', (e) => { e.preventDefault(); byHand(withStacks(readFilterBar())); });
for (const input of Object.values(filterInputs)) input.addEventListener('change', () => byHand(withStacks(readFilterBar())));
$('f-clear').addEventListener('click', () => { showFilterBar({}); byHand({}); });

// Filters in the page's address: focus=…&exclude=…&drop=…&hide_idle=1&…
function filtersFromHash(h) {
  const fs = {};
  if (h.get('focus')) fs.focus = h.get('focus');
  if (h.get('exclude')) fs.exclude = h.get('exclude');
  if (h.get('drop')) fs.drop = h.get('drop');
  if (h.get('hide_idle')) fs.hideIdle = true;
  if (h.get('collapse_packages')) fs.collapsePackages = true;
  if (h.get('collapse_recursion')) fs.collapseRecursion = true;
  const stacks = (k) => h.getAll(k).filter(Boolean);
  if (stacks('focus_stack').length) fs.focusStack = stacks('focus_stack');
  if (stacks('focus_stack_inverted').length) fs.focusStackInverted = stacks('focus_stack_inverted');
  return fs;
}

// Children the server held back for its node budget come from it when a node is opened.
function withChildren(c, p, range, timeline) {
  if (c.art.children && !p.computed) p.loadChildren = (tree, node) => c.art.children(range, timeline, tree, node);
  return p;
}

async function profileFor(range) {
  const c = current;
  const key = range ? range.join('..') : 'all';
  if (!c.profiles.has(key)) {
    const timeline = c.timeline;
    c.profiles.set(key, c.art.profile(range, timeline).then((p) => withChildren(c, p, range, timeline)));
  }
  return c.profiles.get(key);
}

function setRange(r) {
  const c = current;
  if (!c) return;
  c.range = r;
  setRangeChip(r);
  updateHash();
  if (c.chart && (c.chart.range || r)) { c.chart.range = r; c.chart.redraw(); }
  for (const t of c.tabs.values()) if (t.profileView) t.dirty = true;
  refreshVisible();
}

async function refreshVisible() {
  const c = current;
  for (const t of c.tabs.values()) {
    if (!t.built || (t.node.hidden && !t.always)) continue;
    if (t.dirty) { t.dirty = false; await t.update(); }
  }
}

function addTab(name, label, build, opts = {}) {
  const node = el('div', { class: 'pane', hidden: true, role: 'tabpanel', 'aria-label': label });
  view.append(node);
  const tab = {
    name, label, node,
    build, // (tab) => Promise: draws the tab the first time it is shown
    built: false,
    update: null, // () => Promise: draws it again for the current range (set by build)
    dirty: false, // the range changed since it was drawn
    profileView: !!opts.profileView, // shows the trees of the range: a new range makes it dirty
    always: !!opts.always, // updated on a new range even while hidden (the chart's tables)
    rebuild: null, // () => void: a new filter state tears it down, to be built again (the chart)
    refilter: null, // () => void: a new filter state reloads it in place (the diff)
    view0: null, // [t0, t1]: the view a rebuilt chart starts with (the one before the filters)
  };
  current.tabs.set(name, tab);
  const b = el('button', { role: 'tab', 'aria-selected': 'false', 'data-tab': name, text: label });
  b.addEventListener('click', () => showTab(name));
  tabsEl.append(b);
  return tab;
}

async function showTab(name) {
  const c = current;
  const tab = c.tabs.get(name);
  if (!tab) return;
  for (const t of c.tabs.values()) t.node.hidden = t !== tab;
  for (const b of tabsEl.children) b.setAttribute('aria-selected', b.dataset.tab === name ? 'true' : 'false');
  c.tab = name;
  updateHash();
  try {
    if (!tab.built) { tab.built = true; tab.dirty = false; setStatus('Loading…'); await tab.build(tab); setStatus(''); }
    else if (tab.dirty) { tab.dirty = false; setStatus('Loading…'); await tab.update(); setStatus(''); }
  } catch (e) { setStatus(e.message, true); console.error(e); }
}

function updateHash() {
  const c = current;
  if (!c || !c.session) return;
  // The address reopens the same view: artifact, tab, the tables' thread, the range, filters.
  const q = new URLSearchParams({ session: c.session, artifact: c.artifactId, tab: c.tab });
  if (c.timeline != null && c.art.kind === 'cpu') q.set('thread', c.timeline);
  if (c.range) q.set('range', `${c.range[0].toFixed(3)}..${c.range[1].toFixed(3)}`);
  for (const [k, v] of Object.entries(filterParams(c.art.filters))) for (const x of [].concat(v)) q.append(k, x);
  const h = '#' + q.toString();
  if (location.hash !== h) history.replaceState(null, '', h);
}

// A CPU view of the current range's profile that rebuilds when the range changes.
function profileTab(tab, make) {
  let v = null;
  tab.update = async () => {
    const p = await profileFor(current.range);
    if (v) v.setProfile(p); else v = make(p);
  };
  return tab.update();
}

// A handle between the chart and its tables: drag it (or focus it and use ↑/↓) to give one more
// room. The share is kept for the next page (localStorage).
const SPLIT_KEY = 'jsprof.split';
function splitter(split, top, bottom) {
  const h = el('div', { class: 'splitter', role: 'separator', 'aria-orientation': 'horizontal', tabindex: 0, title: 'Drag to resize (↑/↓ when focused)' });
  const apply = (share) => {
    // The chart keeps room for its toolbar, overview and a few rows; the tables for a few rows.
    const height = split.getBoundingClientRect().height;
    const lo = height ? Math.max(280 / height, 0.1) : 0.1, hi = height ? Math.min(1 - 140 / height, 0.9) : 0.9;
    share = Math.min(hi, Math.max(lo, share));
    top.style.flex = `${share} 1 0`;
    bottom.style.flex = `${1 - share} 1 0`;
    h.setAttribute('aria-valuenow', Math.round(share * 100));
    try { localStorage.setItem(SPLIT_KEY, String(share)); } catch { /* private mode */ }
  };
  let saved = NaN;
  try { saved = Number(localStorage.getItem(SPLIT_KEY)); } catch { /* private mode */ }
  apply(Number.isFinite(saved) && saved > 0 ? saved : 0.6);
  h.addEventListener('mousedown', (e) => {
    e.preventDefault();
    const r = split.getBoundingClientRect();
    const move = (m) => apply((m.clientY - r.top) / Math.max(1, r.height));
    const up = () => { window.removeEventListener('mousemove', move); window.removeEventListener('mouseup', up); };
    window.addEventListener('mousemove', move);
    window.addEventListener('mouseup', up);
  });
  h.addEventListener('keydown', (e) => {
    if (e.key !== 'ArrowUp' && e.key !== 'ArrowDown') return;
    e.preventDefault();
    const r = split.getBoundingClientRect(), t = top.getBoundingClientRect();
    apply((t.height + (e.key === 'ArrowUp' ? -40 : 40)) / Math.max(1, r.height));
  });
  return h;
}

// The drawer under the chart: what was clicked (details.js), the function's row of the
// selection's Functions table for a JS call.
async function detailsOf(e) {
  if (!e) return '<span class="muted">Click a call, an event or a request for its details; shift-drag (or drag in the overview) selects a range.</span>';
  const js = e.type === 'JS_CALL' || !eventTitle(e.name);
  // A JS function's location opens its source with the line costs (as the menu's item does).
  const link = js && fmtLocation(e.url, e.line, e.column) && current && current.art.live;
  const p = js ? await profileFor(current.range).catch(() => null) : null;
  return eventDetails(e, js ? functionRow(p, e) : null, link, p && p.unit);
}

function openCpu(art, c, others) {
  if (art.hasChart) {
    addTab('chart', 'Flame chart', async (tab) => {
      const split = el('div', { class: 'split' });
      const top = el('div', { class: 'top' }), bottom = el('div', { class: 'bottom' });
      split.append(top, splitter(split, top, bottom), bottom);
      const bar = el('div', { class: 'toolbar' });
      const details = el('div', { class: 'details drawer', 'aria-live': 'polite' });
      detailsOf(null).then((html) => { details.innerHTML = html; });
      details.addEventListener('click', (ev) => {
        if (!ev.target.closest('.srclink') || !details.event) return;
        ev.preventDefault();
        (app.sourceView ||= new SourcePanel()).open(current.art, details.event, current.timeline);
      });
      const base = await art.chart(null, 4000, c.timeline);
      // A new filter state draws the chart again from scratch, in the same view.
      tab.rebuild = () => {
        const old = c.chart;
        tab.view0 = old ? [old.t0, old.t1] : null;
        if (old) old.destroy();
        c.chart = null; app.chart = null;
        tab.node.textContent = '';
        tab.built = false;
        tab.dirty = false;
        tab.update = null;
      };
      c.timeline = base.timeline;
      // One track per thread: the recorded one first, then threads with samples, then the
      // others by their number of events, folded; threads without events left out.
      const threads = (base.threads || []).filter((t) => t.id !== base.timeline && t.events > 0 && (!art.timelines || art.timelines.includes(t.id)))
        .sort((a, b) => b.samples - a.samples || b.events - a.events);
      const info = (t) => `${t.pid != null && t.process ? 'pid ' + t.pid + ' · ' : ''}${t.tid != null ? 'tid ' + t.tid + ' · ' : ''}${t.samples ? t.samples.toLocaleString('en-US') + ' samples · ' : ''}${t.events.toLocaleString('en-US')} events`;
      // A thread of a trace is headed by its process's name too (`Renderer · CrRendererMain`),
      // as the Performance panel groups threads by process; a renderer's main thread by the page
      // it draws (`Main — http://…/`, `Frame — ad.html`: the documents' `page`, as `jsprof
      // threads` names it), its thread name in the header's info.
      const me = (base.threads || []).find((t) => t.id === base.timeline);
      const head = (t, name) => (t && t.page ? { name: t.page, process: t.process, page: true, info: `${t.process ? t.process + ' · ' : ''}${t.name} · ${info(t)}` } : { name, process: t && t.process, info: t ? info(t) : '' });
      const tracks = [{ id: base.timeline, ...head(me, base.thread || (me && me.name) || 'main'), base, active: true }];
      for (const t of threads) {
        const load = () => art.chart(null, 4000, t.id);
        tracks.push({ id: t.id, ...head(t, t.name || `thread ${t.id}`), base: t.samples > 0 ? await load() : null, load, collapsed: t.samples === 0 });
      }
      for (const t of tracks) if (art.live) t.fetchWindow = (r, w) => art.chart(r, w, t.id);
      const activeLabel = el('span', { class: 'hint' });
      const showActive = () => { activeLabel.textContent = tracks.length > 1 ? `Tables: ${tracks.find((t) => t.id === c.timeline).name}` : (base.thread ? `Thread: ${base.thread}` : ''); };
      showActive();
      const search = el('input', { type: 'search', placeholder: 'Highlight (regex)', title: 'Highlight calls whose name or URL matches (a regular expression)', 'aria-label': 'Highlight calls' });
      bar.append(search, activeLabel);
      bar.append(el('span', { class: 'hint', text: 'Wheel/W/S zoom · drag/A/D pan · shift-drag or drag the axis: range · drag a lane\'s foot: size it · double-click: zoom to call · 0 resets · click a thread header to fold it' }));
      if (!art.live && base.min_ms > 0) bar.append(el('span', { class: 'hint', text: `· calls under ${fmtMs(base.min_ms)} merged in this report` }));
      top.append(bar);
      const chartBox = el('div', { class: 'pane' });
      // A page-load trace: its tracks above the threads and the Insights sidebar beside them.
      const page = art.page ? await art.page().catch((e) => { console.warn('jsprof: page documents', e); return null; }) : null;
      const hl = newHighlight();
      const lanes = page ? pageLanes(page, hl, () => c.chart && c.chart.redraw()) : [];
      const frames = lanes.find((l) => l.name === 'Frames');
      const row = el('div', { class: 'chart-row' });
      row.append(chartBox);
      // The drawer heads the tables, not the chart: what it shows grows the drawer into the
      // tables' room, so the chart (and what was just clicked in it) stays where it was.
      top.append(row);
      bottom.append(details);
      tab.node.append(split);
      const chart = new FlameChart(chartBox, {
        tracks, lanes, timeHover: frames ? (tm) => frames.preview(tm) : null,
        onSelect: (e) => {
          details.event = e;
          detailsOf(e).then((html) => { if (details.event === e) { details.innerHTML = html; details.dataset.kind = e ? 'event' : ''; } });
          if (e) selectFunction(e, chart);
        },
        // A lane's item: a request's details, another item's tooltip.
        onLaneSelect: (lane, item) => {
          details.event = null;
          details.innerHTML = lane.name === 'Network' ? requestDetails(item.r) : lane.tooltip(item);
          details.dataset.kind = lane.name === 'Network' ? 'request' : 'lane';
        },
        onTrack: (t) => {
          if (t.id === c.timeline) return;
          for (const x of chart.tracks) x.active = x.id === t.id;
          c.timeline = t.id;
          c.profiles.clear();
          showActive();
          setRange(c.range);
        },
        onRange: (r) => setRange(r),
        onContext: contextFor(),
      });
      // Search: the matches are highlighted and counted; Enter / shift+Enter zoom to the next /
      // previous one (in time order, over the recording as first drawn).
      let hits = [], at = -1;
      const hitInfo = el('span', { class: 'hint', 'aria-live': 'polite' });
      search.after(hitInfo);
      search.addEventListener('input', () => {
        const m = search.value.trim();
        let fn = null;
        if (m) { try { const re = new RegExp(m, 'i'); fn = (s) => re.test(s); } catch { fn = (s) => s.toLowerCase().includes(m.toLowerCase()); } }
        chart.setMatch(fn);
        hits = []; at = -1;
        const ix = chart.tracks[0].ix;
        if (fn && ix) {
          for (let i = 0; i < ix.ev.s.length; i++) if (chart.matches(ix, i)) hits.push(i);
          hits.sort((a, b) => ix.ev.s[a] - ix.ev.s[b]);
        }
        hitInfo.textContent = fn ? `${hits.length.toLocaleString('en-US')} match${hits.length === 1 ? '' : 'es'}${hits.length ? ' · Enter: next' : ''}` : '';
      });
      search.addEventListener('keydown', (e) => {
        if (e.key !== 'Enter' || !hits.length) return;
        e.preventDefault();
        at = (at + (e.shiftKey ? -1 : 1) + hits.length) % hits.length;
        const ev = chart.tracks[0].ix.ev, i = hits[at], pad = Math.max(ev.d[i] * 0.25, 1e-3);
        chart.setView(ev.s[i] - pad, ev.s[i] + ev.d[i] + pad);
        // And down to the match's row.
        chart.revealRow(0, ev.l[i]);
        app.searchAt = { s: ev.s[i], d: ev.d[i], l: ev.l[i] };
        hitInfo.textContent = `${at + 1} / ${hits.length.toLocaleString('en-US')} matches`;
      });
      c.chart = chart;
      app.chart = chart;
      app.lanes = lanes;
      // The sidebar when the trace is a page's story (a JS-only trace has an empty navigation).
      const story = page && (lanes.length || page.insights.navigations.some((n) => n.metrics.fcp || n.metrics.lcp || n.metrics.inp));
      app.insights = story ? new InsightsSidebar(row, page.insights, chart, hl) : null;
      // DevTools' page-load markers of each navigation on the timeline.
      if (story) chart.setMarkers(pageMarkers(page.insights));
      if (c.range) chart.range = c.range;
      if (tab.view0) { chart.setView(tab.view0[0], tab.view0[1]); tab.view0 = null; }
      // The range's call tree and functions beneath the chart.
      const sub = el('div', { class: 'toolbar subtabs', role: 'tablist' });
      const panes = {};
      const body = el('div', { class: 'pane' });
      bottom.append(sub, body);
      let which = 'functions';
      const build = async () => {
        if (summary.button) summary.button.setAttribute('aria-selected', which === 'summary' ? 'true' : 'false');
        summary.node.hidden = which !== 'summary';
        if (which === 'summary') {
          for (const b of Object.values(panes)) { b.button.setAttribute('aria-selected', 'false'); b.node.hidden = true; }
          await showSummary();
          return;
        }
        const p = await profileFor(c.range);
        for (const [k, b] of Object.entries(panes)) b.button.setAttribute('aria-selected', k === which ? 'true' : 'false');
        for (const [k, b] of Object.entries(panes)) b.node.hidden = k !== which;
        const pane = panes[which];
        if (pane.view) pane.view.setProfile(p); else pane.view = app.tables[`chart:${which}`] = new CallTreeView(pane.node, p, which, { onSelect: (d) => selectFunction(d, pane.view), onContext: contextFor() });
      };
      // The Summary of the selection by category (DevTools' Summary tab), from the service.
      const summary = { button: null, node: el('div', { class: 'pane summary-pane', hidden: true }) };
      if (art.summary) {
        summary.button = el('button', { role: 'tab', text: 'Summary', 'data-subtab': 'summary' });
        summary.button.addEventListener('click', () => { which = 'summary'; build(); });
        sub.append(summary.button);
        body.append(summary.node);
      }
      const showSummary = async () => {
        const doc = await art.summary(c.range, c.timeline);
        app.selectionSummary = doc;
        renderSummary(summary.node, doc);
      };
      for (const [k, label] of [['functions', 'Functions'], ['top_down', 'Call tree'], ['bottom_up', 'Bottom-up']]) {
        const button = el('button', { role: 'tab', text: label });
        button.addEventListener('click', () => { which = k; build(); });
        sub.append(button);
        const node = el('div', { class: 'pane', hidden: true });
        body.append(node);
        panes[k] = { button, node, view: null };
      }
      tab.update = build;
      await build();
    }, { profileView: true, always: true });
  }
  addTab('top_down', 'Call tree', (tab) => profileTab(tab, (p) => (app.tables.top_down = new CallTreeView(tab.node, p, 'top_down', { onSelect: (d) => selectFunction(d, app.tables.top_down), onContext: contextFor() }))), { profileView: true });
  addTab('bottom_up', 'Bottom-up', (tab) => profileTab(tab, (p) => (app.tables.bottom_up = new CallTreeView(tab.node, p, 'bottom_up', { onSelect: (d) => selectFunction(d, app.tables.bottom_up), onContext: contextFor() }))), { profileView: true });
  addTab('functions', 'Functions', (tab) => profileTab(tab, (p) => (app.tables.functions = new CallTreeView(tab.node, p, 'functions', { onSelect: (d) => selectFunction(d, app.tables.functions), onContext: contextFor() }))), { profileView: true });
  // The sandwich asks the server for each function (exact halves, not cut from the trees); the
  // report cuts it from the embedded calls' trees.
  if (art.sandwich) {
    addTab('sandwich', 'Sandwich', (tab) => profileTab(tab, (p) => {
      const v = app.sandwich = new SandwichView(tab.node, art, {
        onSelect: (d, from) => selectFunction(d, from), onContext: contextFor(),
        range: () => current.range, timeline: () => current.timeline,
      });
      v.setProfile(p).then(() => { if (!v.fn && app.selection) v.show(app.selection); });
      return v;
    }), { profileView: true });
  }
  addTab('flamegraph', 'Flame graph', (tab) => {
    const bar = el('div', { class: 'toolbar' });
    const input = el('input', { type: 'search', placeholder: 'Highlight (regex)', title: 'Highlight calls whose name or URL matches (a regular expression)', 'aria-label': 'Highlight' });
    const info = el('span', { class: 'hint', text: 'Click a frame to zoom into it; Escape or a click on the background zooms out.' });
    bar.append(input, info);
    let at = -1;
    // Enter / shift+Enter: zoom to the next / previous matching frame.
    input.addEventListener('keydown', (e) => {
      if (e.key !== 'Enter' || !g || !g.hits || !g.hits.length) return;
      e.preventDefault();
      at = (at + (e.shiftKey ? -1 : 1) + g.hits.length) % g.hits.length;
      g.zoomTo(g.hits[at]);
      info.textContent = info.textContent.replace(/^(\d+ \/ )?[\d,]+ frames?/, `${at + 1} / ${g.hits.length.toLocaleString('en-US')} frame${g.hits.length === 1 ? '' : 's'}`);
    });
    tab.node.append(bar);
    const box = el('div', { class: 'pane' });
    tab.node.append(box);
    let g = null;
    const search = () => {
      const m = input.value.trim();
      let fn = null;
      if (m) { try { const re = new RegExp(m, 'i'); fn = (s) => re.test(s); } catch { fn = (s) => s.toLowerCase().includes(m.toLowerCase()); } }
      const covered = g.search(fn);
      at = -1;
      const n = fn ? g.hits.length : 0;
      info.textContent = fn ? `${n.toLocaleString('en-US')} frame${n === 1 ? '' : 's'} · matched: ${covered != null ? ((covered * 100) / g.p.total).toFixed(2) + ' % of the ' + (g.p.unit === 'bytes' ? 'bytes' : 'time') : ''}${n ? ' · Enter: next' : ''}` : 'Click a frame to zoom into it; Escape or a click on the background zooms out.';
    };
    input.addEventListener('input', search);
    tab.update = async () => {
      const p = await profileFor(current.range);
      if (g) g.setProfile(p); else g = new FlameGraph(box, p, { onSelect: (k) => selectFunction(k, g), onContext: contextFor() });
      app.flamegraph = g;
      if (input.value) search();
    };
    return tab.update();
  }, { profileView: true });
  // A diff needs another profile to compare with: no tab that could only say so.
  if (art.live && art.diff && others.length) {
    const tab = addTab('diff', 'Diff', async () => { app.diff = new DiffView(tab.node, art, others); await app.diff.ready; });
    tab.refilter = () => { if (tab.built && app.diff) app.diff.reload(); };
  }
}

function openHeap(art, c, bases) {
  // A report: the views it embedded stand in for the server's routes, its earlier snapshots for
  // the server's others.
  const heap = art.live ? art.heap : embeddedHeap(art.heap, data);
  if (!art.live) bases = heap.bases;
  let summary = null;
  const summaryOnce = () => (summary ||= heap.summary());
  addTab('summary', 'Summary', async (tab) => {
    const v = new SummaryView(tab.node, heap, art.live ? [...bases, { label: `${art.name} (this)`, session: c.session, artifact: c.artifactId }] : []);
    app.summary = v;
    await v.load();
  });
  addTab('dominators', 'Dominators', async (tab) => {
    const s = await summaryOnce();
    app.dominators = new DominatorsView(tab.node, heap, s.total_size);
  });
  if (heap.edges) addTab('containment', 'Containment', async (tab) => { app.containment = new ContainmentView(tab.node, heap, (await summaryOnce()).total_size); await app.containment.ready; });
  addTab('statistics', 'Statistics', async (tab) => statisticsView(tab.node, await summaryOnce()));
  if (heap.strings) addTab('strings', 'Strings', async (tab) => { app.strings = new StringsView(tab.node, heap); await app.strings.ready; });
  if (heap.advisors) addTab('advisors', 'Advisors', async (tab) => { app.advisors = new AdvisorsView(tab.node, heap); await app.advisors.ready; });
  // A Node process's isolates (this snapshot and the others open) reconciled with its RSS.
  if (heap.process) addTab('process', 'Process', async (tab) => { app.process = new ProcessView(tab.node, heap, bases.map((b) => `${b.session}/${b.artifact}`)); await app.process.ready; });
  // Allocation stacks only where a .heaptimeline recorded them.
  if (heap.allocations) summaryOnce().then((s) => s.kind === 'heaptimeline' && current === c && addTab('allocations', 'Allocations', async (tab) => { app.allocations = new AllocationsView(tab.node, heap); await app.allocations.ready; }));
  addTab('detached', 'Detached', async (tab) => {
    const s = await summaryOnce();
    app.detached = new DetachedView(tab.node, heap, s.total_size);
  });
  // Comparison needs another snapshot, Leaks two more: no tabs with nothing to compare.
  if ((art.live || heap.diff) && bases.length >= 1) addTab('comparison', 'Comparison', async (tab) => { app.comparison = new ComparisonView(tab.node, heap, art.live ? bases : bases.slice(-1)); });
  if ((art.live || heap.leaks || heap.leakSeries) && bases.length >= 2) addTab('leaks', 'Leaks', async (tab) => { app.leaks = new LeaksView(tab.node, heap, bases, null, art.live ? { label: art.name, session: c.session, artifact: c.artifactId } : heap.self); await app.leaks.ready; });
}

async function openArtifact(art, opts = {}) {
  view.textContent = '';
  tabsEl.textContent = '';
  setRange(null);
  if (app.chart) app.chart.destroy();
  const filterable = art.live && art.kind === 'cpu';
  if (filterable) art.filters = opts.filters || {};
  $('filters').hidden = !filterable;
  showFilterBar(filterable ? art.filters : {});
  filterInfo('');
  current = { art, tabs: new Map(), tab: null, range: null, profiles: new Map(), timeline: opts.timeline, chart: null, session: opts.session, artifactId: opts.artifactId };
  app.current = current;
  app.tables = {};
  renderCrumbs();
  // The last artifact's views are gone with their nodes.
  Object.assign(app, { chart: null, flamegraph: null, diff: null, sandwich: null, summary: null, dominators: null, detached: null, comparison: null, leaks: null, pageDiff: null });
  setRangeChip(null);
  $('title').innerHTML = `${esc(art.name)}<small>${esc(opts.subtitle || '')}</small>`;
  document.title = `${art.name} — jsprof`;
  if (art.kind === 'heap') openHeap(art, current, opts.bases || []); else openCpu(art, current, opts.cpuBases || []);
  const first = opts.tab && current.tabs.has(opts.tab) ? opts.tab : current.tabs.keys().next().value;
  // A range from the address is selected before the first tab draws, so it draws the range.
  if (opts.range && art.kind === 'cpu') { current.range = opts.range; setRangeChip(opts.range); }
  await showTab(first);
  if (current.range && current.chart) { current.chart.range = current.range; current.chart.redraw(); }
  // Opened with filters (from the address, `jsprof view --focus …`, or the last artifact): say
  // how much passes, as after a change in the bar.
  if (filterable && Object.keys(art.filters).length) {
    try { filterInfo(keptText(await profileFor(null))); } catch (e) { filterInfo(e.message, true); }
  }
  app.ready = true;
}

// The page-load comparison in place of an artifact: two builds' runs (`app.pageLoads`) as
// distributions; `openRun(session, artifact)` opens one run as an artifact.
async function openPageLoads(openRun) {
  view.textContent = '';
  tabsEl.textContent = '';
  setRange(null);
  if (app.chart) app.chart.destroy();
  current = null;
  app.current = null;
  app.tables = {};
  $('filters').hidden = true;
  renderCrumbs();
  Object.assign(app, { chart: null, flamegraph: null, diff: null, sandwich: null, summary: null, dominators: null, detached: null, comparison: null, leaks: null });
  const { base, target } = app.pageLoads;
  $('title').innerHTML = `Page loads<small>${esc(`${base.length} base runs → ${target.length} target runs`)}</small>`;
  document.title = 'Page loads compared — jsprof';
  const h = '#' + new URLSearchParams({ base: base.join(','), target: target.join(',') }).toString().replace(/%2F/g, '/').replace(/%2C/g, ',');
  if (location.hash !== h) history.replaceState(null, '', h);
  const pane = el('div', { class: 'pane' });
  view.append(pane);
  setStatus('Comparing…');
  app.pageDiff = new PageDiffView(pane, app.source, app.pageLoads, openRun);
  try { await app.pageDiff.ready; setStatus(''); } catch (e) { setStatus(e.message, true); }
  app.ready = true;
}

// Linked selection: a function selected in a table, the chart or the flame graph is
// highlighted in the others (the chart dims every other call, the graph marks its frames) and
// selected in the function tables. `from` is the table it came from, whose selection stays.
function selectFunction(k, from) {
  if (!k || k.name == null) return;
  const same = (d) => d.name === k.name && (d.url || '') === (k.url || '') && (d.line ?? null) === (k.line ?? null) && (d.column ?? null) === (k.column ?? null);
  app.selection = { name: k.name, url: k.url || '', line: k.line ?? null, column: k.column ?? null };
  if (app.chart) {
    const fn = () => false;
    fn.key = app.selection;
    app.chart.setMatch(fn);
  }
  if (app.flamegraph) {
    const g = app.flamegraph, label = displayName(k.name) + ' ' + fmtLocation(k.url || '', k.line ?? null, k.column ?? null);
    g.search((s) => s === label);
  }
  for (const v of Object.values(app.tables)) {
    if (v === from || v.kind !== 'functions') continue;
    const r = v.table.roots.find((r) => same(r.d));
    if (!r) continue;
    const i = v.table.roots.indexOf(r);
    // Rows past the drawn limit are drawn first, so the row can be shown.
    if (i >= (v.table.rootLimit ?? 0)) { v.table.rootLimit = i + 50; v.table.render(); }
    v.table.selected = r;
    for (const x of v.table.visible) if (x.tr) x.tr.setAttribute('aria-selected', x === r ? 'true' : 'false');
    if (r.tr && !v.root.closest('[hidden]')) r.tr.scrollIntoView({ block: 'nearest' });
  }
}
app.selectFunction = selectFunction;

// Opens the Sandwich tab on a function (from a right-click anywhere).
async function showSandwich(d) {
  app.selection = { name: d.name, url: d.url || '', line: d.line ?? null, column: d.column ?? null };
  await showTab('sandwich');
  if (app.sandwich) await app.sandwich.show(app.selection);
}
app.showSandwich = showSandwich;

app.showTab = showTab;
app.setRange = setRange;

// ---- the server: sessions, recording ----

async function startServer() {
  const token = new URLSearchParams(location.search).get('token') || '';
  const src = new ServerSource(token);
  app.source = src;
  const side = $('sessions');
  side.hidden = false;
  let list = [];
  const artifactsOf = (s) => s.artifacts.map((a) => ({ s, a }));
  const open = (s, a, tab, timeline, filters, range) => {
    const art = src.artifact(s, a);
    art.name = a.name || `${s.target}`;
    const bases = [];
    const cpuBases = [];
    for (const t of list) for (const b of t.artifacts) {
      if (t.session_id === s.session_id && b.artifact_id === a.artifact_id) continue;
      const label = b.name || `${t.target.replace(/^import:/, '')} #${b.artifact_id}`;
      if (b.kind === 'heap-snapshot') bases.push({ label, session: t.session_id, artifact: b.artifact_id });
      else if (!b.kind.startsWith('heap') && t.timeline_artifact_id === b.artifact_id) cpuBases.push({ label, session: t.session_id, artifact: b.artifact_id });
    }
    // Filters stay on from one CPU artifact to the next (comparing two profiles under one focus).
    const keep = filters || (current && current.art.live && current.art.kind === 'cpu' ? current.art.filters : {});
    openArtifact(art, { session: s.session_id, artifactId: a.artifact_id, tab, timeline, range, bases, cpuBases, filters: keep, subtitle: `${a.format} · ${fmtBytes(a.bytes)}` })
      .catch((e) => setStatus(e.message, true));
    renderSide();
  };
  // A run of the page-load comparison, opened as any artifact.
  const openRun = (session, artifact) => {
    const s = list.find((x) => x.session_id === session);
    const a = s && s.artifacts.find((x) => x.artifact_id === artifact);
    if (a) open(s, a); else setStatus(`no artifact ${session}/${artifact}`, true);
  };
  // The sidebar folds to a strip (kept for the next page).
  const FOLD_KEY = 'jsprof.sidebar';
  try { side.classList.toggle('folded', localStorage.getItem(FOLD_KEY) === 'folded'); } catch { /* private mode */ }
  const renderSide = () => {
    side.textContent = '';
    const folded = side.classList.contains('folded');
    const fold = el('button', { type: 'button', class: 'fold', text: folded ? '»' : '«', title: folded ? 'Show the sessions' : 'Hide the sessions', 'aria-expanded': folded ? 'false' : 'true', 'aria-label': 'Sessions sidebar' });
    fold.addEventListener('click', () => {
      side.classList.toggle('folded');
      try { localStorage.setItem(FOLD_KEY, side.classList.contains('folded') ? 'folded' : 'open'); } catch { /* private mode */ }
      renderSide();
    });
    side.append(fold);
    if (app.pageLoads) {
      const { base, target } = app.pageLoads;
      const link = el('a', { href: '#', class: `pd-link${app.pageDiff ? ' open' : ''}`, 'data-page-loads': '', text: `Page loads: ${base.length} base runs → ${target.length} target runs` });
      link.addEventListener('click', (e) => { e.preventDefault(); openPageLoads(openRun).then(renderSide); });
      side.append(el('h2', { text: 'Compare' }), el('div', { class: 'session' }, link));
    }
    side.append(el('h2', { text: 'Sessions' }));
    if (!list.length) side.append(el('div', { class: 'muted', text: 'No sessions yet: open a file below (or drop it on the page), or record one.' }));
    for (const s of list) {
      const box = el('div', { class: 'session' });
      box.append(el('div', { class: 'name', text: s.target.replace(/^import:/, '') }));
      box.append(el('div', { class: 'meta', text: `${s.state} · ${s.source} · ${(s.started_at || '').replace('T', ' ').slice(0, 19)}` }));
      if (s.error) box.append(el('div', { class: 'meta', text: s.error }));
      for (const a of s.artifacts) {
        const isOpen = current && current.session === s.session_id && current.artifactId === a.artifact_id;
        const link = el('a', { href: `#session=${s.session_id}&artifact=${a.artifact_id}`, class: isOpen ? 'open' : null, text: `${a.kind} · ${a.format} · ${fmtBytes(a.bytes)}` });
        link.addEventListener('click', (e) => { e.preventDefault(); open(s, a); });
        box.append(link);
      }
      if (s.state === 'recording') {
        const stop = el('button', { class: 'btn', text: 'Stop' });
        stop.addEventListener('click', async () => { stop.disabled = true; try { await src.send('POST', `/api/sessions/${s.session_id}/stop`); } catch (e) { setStatus(e.message, true); } refresh(); });
        box.append(stop);
      } else {
        const rel = el('button', { class: 'btn', text: 'Release', title: 'Delete this session and its files' });
        rel.addEventListener('click', async () => { if (!confirm('Release this session and delete its files?')) return; try { await src.send('DELETE', `/api/sessions/${s.session_id}`); } catch (e) { setStatus(e.message, true); } refresh(); });
        box.append(rel);
      }
      side.append(box);
    }
    // Open files: a picker here, or drop them anywhere on the page.
    const picker = el('input', { type: 'file', multiple: true, id: 'open-files', 'aria-label': 'Open files' });
    picker.addEventListener('change', () => { importFiles([...picker.files]); picker.value = ''; });
    side.append(el('h2', { text: 'Open' }), el('label', { class: 'muted', text: 'Profiles, traces, heap snapshots (or drop them on the page)' }), picker);
    side.append(el('h2', { text: 'Record' }));
    const form = el('form', { class: 'record-form' });
    const target = el('input', { type: 'text', placeholder: 'host:port or pid:N', title: 'An inspector address (127.0.0.1:9229), a Node process (pid:1234) or a Chromium page (chrome:127.0.0.1:9222)', 'aria-label': 'Target' });
    form.append(el('label', { text: 'Target (a Node --inspect address, a pid, a Chromium page)' }), target);
    const kinds = ['cpu', 'heap-sampling', 'heap-snapshot', 'trace'];
    const boxes = kinds.map((k) => { const cb = el('input', { type: 'checkbox', value: k, checked: k === 'cpu' ? true : null }); form.append(el('label', null, cb, ' ' + k)); return cb; });
    const go = el('button', { class: 'btn primary', type: 'submit', text: 'Start recording' });
    form.append(go);
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      try { await src.send('POST', '/api/sessions', { target: target.value.trim(), record: boxes.filter((b) => b.checked).map((b) => b.value) }); setStatus('Recording…'); }
      catch (err) { setStatus(err.message, true); }
      refresh();
    });
    side.append(form);
  };
  const refresh = async () => {
    try { list = (await src.sessions()).sessions; } catch (e) { setStatus(e.message, true); return; }
    renderSide();
    if (list.some((s) => s.state === 'recording')) setTimeout(refresh, 3000);
  };
  // Each file becomes a session (the service's import, as `jsprof view FILE` does); the last
  // one opened.
  const importFiles = async (files) => {
    let last = null;
    for (const f of files) {
      setStatus(`Opening ${f.name}…`);
      try { last = await src.upload(f); } catch (e) { setStatus(e.message, true); return; }
    }
    setStatus('');
    await refresh();
    const s = last && list.find((x) => x.session_id === last.session_id);
    if (s && s.artifacts.length) open(s, s.artifacts[0]);
  };
  app.importFiles = importFiles;
  document.addEventListener('dragover', (e) => { if (e.dataTransfer && [...e.dataTransfer.types].includes('Files')) { e.preventDefault(); document.body.classList.add('dropping'); } });
  document.addEventListener('dragleave', (e) => { if (!e.relatedTarget) document.body.classList.remove('dropping'); });
  document.addEventListener('drop', (e) => {
    document.body.classList.remove('dropping');
    if (!e.dataTransfer || !e.dataTransfer.files.length) return;
    e.preventDefault();
    importFiles([...e.dataTransfer.files]);
  });
  await refresh();
  const h = new URLSearchParams(location.hash.slice(1));
  // `jsprof view --base A/ --target B/`: the runs of both builds, compared.
  const runsOf = (k) => (h.get(k) || '').split(',').filter(Boolean);
  if (runsOf('base').length && runsOf('target').length) {
    app.pageLoads = { base: runsOf('base'), target: runsOf('target') };
    await openPageLoads(openRun);
    renderSide();
    return;
  }
  // Without an address, the first file opens; three snapshots or more open on the last (`jsprof
  // view BASE TARGET FINAL`: the final one is where Leaks looks from).
  const heapsOnly = list.length > 2 && list.every((s) => s.artifacts.length && s.artifacts.every((a) => a.kind === 'heap-snapshot'));
  const want = list.find((s) => s.session_id === h.get('session')) || (heapsOnly ? list[list.length - 1] : list[0]);
  if (want && want.artifacts.length) {
    const a = want.artifacts.find((a) => String(a.artifact_id) === h.get('artifact')) || want.artifacts[0];
    const thread = h.get('thread') != null && h.get('thread') !== '' ? Number(h.get('thread')) : undefined;
    const r = (h.get('range') || '').split('..').map(Number);
    open(want, a, h.get('tab'), thread, filtersFromHash(h), r.length === 2 && r.every(Number.isFinite) && r[1] > r[0] ? r : null);
  } else {
    view.append(el('div', { class: 'empty', text: 'Drop a profile, trace or heap snapshot here, pick one on the left, or record one.' }));
    app.ready = true;
  }
}

if (data.mode === 'server') startServer().catch((e) => setStatus(e.message, true));
else openArtifact(embeddedArtifact(data), { subtitle: data.subtitle || '' }).catch((e) => setStatus(e.message, true));
