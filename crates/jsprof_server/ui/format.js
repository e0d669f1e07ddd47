// Units everywhere: times and sizes as the CLI prints them (`jsprof_document::units`: one
// rule for every door, held equal by `ui_story`'s formatting test), 1 KB = 1024 B.

// The page's colours for the canvases: the CSS variables of style.css, light or dark as the
// system is (prefers-color-scheme). Read again when the system switches; `onThemeChange(fn)`
// redraws a canvas then.
export const theme = { bg: '#ffffff', fg: '#1f2328', muted: '#656d76', line: '#d8dee4', soft: '#f6f8fa', sel: '#ddf4ff' };
function readTheme() {
  if (typeof getComputedStyle !== 'function') return;
  const cs = getComputedStyle(document.documentElement);
  for (const k of Object.keys(theme)) { const v = cs.getPropertyValue('--' + k).trim(); if (v) theme[k] = v; }
}
readTheme();
const darkQuery = typeof matchMedia === 'function' ? matchMedia('(prefers-color-scheme: dark)') : null;
const themeListeners = new Set();
if (darkQuery) darkQuery.addEventListener('change', () => { readTheme(); for (const fn of themeListeners) fn(); });
export function onThemeChange(fn) { themeListeners.add(fn); return () => themeListeners.delete(fn); }

// The Performance panel's titles for trace event names (what DevTools writes in its flame chart
// and tooltips) and for jsprof's event types; an unknown name stays as the trace has it.
const EVENT_TITLES = {
  RunTask: 'Task', ThreadControllerImpl_RunTask: 'Task', FunctionCall: 'Function call', EvaluateScript: 'Evaluate script',
  'v8.compile': 'Compile script', 'v8.compileModule': 'Compile module', 'v8.evaluateModule': 'Evaluate module',
  'v8.parseOnBackground': 'Parse script on background', 'V8.CompileCode': 'Compile code', 'V8.OptimizeCode': 'Optimize code',
  'v8.produceCache': 'Cache script code', 'v8.produceModuleCache': 'Cache module code',
  ParseHTML: 'Parse HTML', ParseAuthorStyleSheet: 'Parse stylesheet', UpdateLayoutTree: 'Recalculate style',
  ScheduleStyleRecalculation: 'Schedule style recalculation', InvalidateLayout: 'Invalidate layout', Layout: 'Layout',
  PrePaint: 'Pre-paint', Paint: 'Paint', PaintImage: 'Paint image', Layerize: 'Layerize', Commit: 'Commit',
  UpdateLayerTree: 'Update layer tree', CompositeLayers: 'Composite layers', RasterTask: 'Rasterize paint',
  'Decode Image': 'Image decode', DecodeImage: 'Image decode', ResizeImage: 'Image resize',
  HitTest: 'Hit test', ScrollLayer: 'Scroll', Animation: 'Animation',
  MinorGC: 'Minor GC', MajorGC: 'Major GC', 'V8.GC_SCAVENGER': 'Minor GC', 'V8.GC_MARK_COMPACTOR': 'Major GC',
  'BlinkGC.AtomicPhase': 'DOM GC', ThreadState_CompleteSweep: 'DOM GC', GCEvent: 'GC event',
  TimerInstall: 'Install timer', TimerRemove: 'Remove timer', TimerFire: 'Timer fired',
  RequestAnimationFrame: 'Request animation frame', CancelAnimationFrame: 'Cancel animation frame',
  FireAnimationFrame: 'Animation frame fired', RequestIdleCallback: 'Request idle callback',
  CancelIdleCallback: 'Cancel idle callback', FireIdleCallback: 'Fire idle callback',
  EventDispatch: 'Event', RunMicrotasks: 'Run microtasks', XHRReadyStateChange: 'XHR ready state change', XHRLoad: 'XHR load',
  ResourceWillSendRequest: 'Will send request', ResourceSendRequest: 'Send request', ResourceReceiveResponse: 'Receive response',
  ResourceReceivedData: 'Receive data', ResourceFinish: 'Finish loading', ResourceMarkAsCached: 'Mark as cached',
  MarkDOMContent: 'DOMContentLoaded event', MarkLoad: 'Onload event', 'firstContentfulPaint': 'First Contentful Paint',
  'largestContentfulPaint::Candidate': 'Largest Contentful Paint', LayoutShift: 'Layout shift',
  WebSocketCreate: 'Create WebSocket', WebSocketSendHandshakeRequest: 'Send WebSocket handshake',
  WebSocketReceiveHandshakeResponse: 'Receive WebSocket handshake', WebSocketDestroy: 'Destroy WebSocket',
  StreamingCompileScript: 'Streaming compile', 'v8.deserializeOnBackground': 'Deserialize code cache',
  ConsoleTime: 'Console time', TimeStamp: 'Timestamp', EmbedderCallback: 'Embedder callback',
  SchedulePostMessage: 'Schedule postMessage', HandlePostMessage: 'On message',
};
const TYPE_TITLES = {
  DOCUMENT_PARSING: 'Parsing HTML', CSS_PARSING: 'Parsing CSS', SCRIPT_COMPILATION: 'Compiling script',
  SCRIPT_THREAD_EVALUATION: 'Evaluating script', REFLOW: 'Forced reflow', STYLE_RECALCULATION: 'Recalculating style',
  CSS_SELECTOR_MATCHING: 'Matching CSS selectors', LAYOUT: 'Layout', PAINT: 'Painting', GENERIC: 'Other',
  JS_CALL: 'JavaScript', GC: 'Garbage collection',
};
// `name`'s title (`RunTask` → `Task`), or null when it has none of its own.
export function eventTitle(name) { return Object.prototype.hasOwnProperty.call(EVENT_TITLES, name) ? EVENT_TITLES[name] : null; }
// An event type's words (`SCRIPT_COMPILATION` → `Compiling script`).
export function typeTitle(type) { return TYPE_TITLES[type] || String(type || '').toLowerCase().replace(/_/g, ' '); }

// `v` with `d` decimals as Rust's `{:.d}` writes it (the CLI's and MCP's text): an exact tie
// rounds half to even (`12.25` → `12.2`), where `toFixed` rounds it away from zero.
export function fixed(v, d) {
  const s = v.toFixed(d);
  const exact = Math.abs(v).toFixed(100), dot = exact.indexOf('.');
  if (dot < 0 || !/^50*$/.test(exact.slice(dot + 1 + d))) return s;
  const kept = exact.slice(0, d ? dot + 1 + d : dot);
  return +kept[kept.length - 1] % 2 === 0 ? (v < 0 ? '-' : '') + kept : s;
}

// A duration as every door writes it (`jsprof_document::units::fmt_ms`): `123.4 ms`, `1.23 ms`
// below 10 ms, `12.34 s` from 10 s up.
export function fmtMs(v) {
  if (v == null || !isFinite(v)) return '–';
  const a = Math.abs(v);
  if (a >= 10000) return `${fixed(v / 1000, 2)} s`;
  if (a >= 10 || v === 0) return `${fixed(v, 1)} ms`;
  return `${fixed(v, 2)} ms`;
}

// Bytes as every door writes them (`jsprof_document::units::fmt_bytes`): `512 B`, `12.3 KB`,
// `4.56 MB`, `1.23 GB` (1 KB = 1024 B).
export function fmtBytes(v) {
  if (v == null || !isFinite(v)) return '–';
  if (Math.abs(v) < 1024) return `${fixed(v, 0)} B`;
  const UNITS = ['KB', 'MB', 'GB', 'TB'];
  let value = v / 1024, unit = 0;
  while (Math.abs(value) >= 1024 && unit + 1 < UNITS.length) { value /= 1024; unit++; }
  const a = Math.abs(value);
  return `${fixed(value, a >= 100 ? 0 : a >= 10 ? 1 : 2)} ${UNITS[unit]}`;
}

export function fmtWeight(v, unit) {
  return unit === 'bytes' ? fmtBytes(v) : fmtMs(v);
}

export function fmtPct(v) {
  if (v == null || !isFinite(v)) return '–';
  return (v >= 10 ? v.toFixed(1) : v.toFixed(2)) + ' %';
}

export function fmtCount(v) {
  return v == null ? '–' : v.toLocaleString('en-US');
}

export function fmtLocation(url, line, column) {
  if (!url) return '';
  let s = url;
  if (line != null) s += ':' + line + (column != null ? ':' + column : '');
  return s;
}

// A location for a table cell: the directory and a query string elide while the file name, line
// and column always stay readable; the full text is the tooltip. Long URLs (webpack://,
// node_modules paths, cache-busting queries) no longer hide the file.
export function locationEl(url, line, column) {
  const text = fmtLocation(url, line, column);
  const span = el('span', { class: 'locwrap', title: text });
  if (!text) return span;
  const data = url.startsWith('data:');
  const path = data ? url.slice(0, 40) : url.replace(/[?#].*$/, '');
  const cut = data ? -1 : path.lastIndexOf('/');
  const part = (cls, t) => el('span', { class: cls, text: t });
  span.append(part('dir', url.slice(0, cut + 1)), part('file', path.slice(cut + 1)), part('rest', url.slice(path.length)), part('pos', text.slice(url.length)));
  return span;
}

export function displayName(name) {
  return name === '' ? '(anonymous)' : name;
}

// A frame as `jsprof export --folded` writes it (jsprof_profile's `folded_label`): the path
// elements of `--focus-stack`.
export function frameLabel(name, url, line, column) {
  const label = displayName(name) + (url ? ' ' + fmtLocation(url, line, column) : '');
  return label.replace(/;/g, ':').replace(/[\r\n]/g, ' ');
}

export function esc(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
}

export function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  if (attrs) for (const [k, v] of Object.entries(attrs)) {
    if (v == null || v === false) continue;
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else if (k === 'html') e.innerHTML = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children) if (c != null) e.append(c);
  return e;
}

// A stable hue per string (for a script's or a function's colour).
export function hash(s) {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 16777619); }
  return h >>> 0;
}

// A pattern typed in a search box: a regular expression when it is one, else a plain substring.
export function matcher(text) {
  if (!text) return null;
  try { const re = new RegExp(text, 'i'); return (s) => re.test(s); }
  catch { const t = text.toLowerCase(); return (s) => s.toLowerCase().includes(t); }
}

const tooltipEl = () => document.getElementById('tooltip');

export function showTooltip(html, x, y, exact) {
  const t = tooltipEl();
  t.innerHTML = html;
  if (exact != null) t.dataset.totalMs = exact; else delete t.dataset.totalMs;
  t.hidden = false;
  const r = t.getBoundingClientRect();
  let left = x + 14, top = y + 14;
  if (left + r.width > window.innerWidth - 4) left = Math.max(4, x - r.width - 14);
  if (top + r.height > window.innerHeight - 4) top = Math.max(4, y - r.height - 14);
  t.style.left = left + 'px';
  t.style.top = top + 'px';
}

export function hideTooltip() { tooltipEl().hidden = true; }

export function setStatus(text, error) {
  const s = document.getElementById('status');
  s.textContent = text || '';
  s.classList.toggle('error', !!error);
}
