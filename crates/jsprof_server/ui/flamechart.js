// The flame chart: calls and engine events at their real times on a canvas, one row per depth,
// gaps left empty, a time axis, an overview of the whole recording. Wheel or W/S zoom, drag or
// A/D pan, shift-drag (or a drag in the overview) selects a range, click selects a call.
// What is under a pixel is merged into one block (by the server, or here for embedded calls);
// with a server the visible window is fetched again at the screen's resolution after each move.
// An insight's related events (setOutline) are outlined where they are drawn, and every call
// outside them dimmed, as the Performance panel does when an insight is selected.
import { fmtMs, fmtLocation, displayName, frameLabel, esc, hash, showTooltip, hideTooltip, el, theme, onThemeChange, eventTitle, typeTitle } from 'jsprof/format.js';

const ROW = 18, AXIS = 22;
const TYPE_COLORS = {
  GC: '#c9a0dc', SCRIPT_COMPILATION: '#f0a04b', SCRIPT_THREAD_EVALUATION: '#f0a04b',
  DOCUMENT_PARSING: '#6fa8dc', CSS_PARSING: '#6fa8dc', REFLOW: '#b48ee0', STYLE_RECALCULATION: '#b48ee0',
  CSS_SELECTOR_MATCHING: '#b48ee0', LAYOUT: '#9b7fd4', PAINT: '#79c07f', GENERIC: '#d6dbe0',
};
const META = { '(program)': '#d0d5db', '(idle)': '#e9ecef', '(garbage collector)': '#c9a0dc', '(root)': '#d0d5db' };
const MERGED = '#b9c0c8';

// Per-script hues, as DevTools colours calls by script; the same function keeps its colour.
function jsColor(url, name) {
  const h = hash(url || name);
  const hue = (h % 360);
  const light = 70 + ((h >> 9) % 3) * 5;
  return `hsl(${hue}, 62%, ${light}%)`;
}

// Events grouped per depth (sorted by start, so ends are sorted too: siblings never overlap).
export function indexDoc(doc) {
  const ev = doc.events, n = ev.s.length;
  const strings = doc.strings;
  const depthCount = new Int32Array(doc.max_depth + 2);
  for (let i = 0; i < n; i++) depthCount[ev.l[i]]++;
  const byDepth = [];
  for (let d = 0; d < depthCount.length; d++) byDepth.push({ idx: new Int32Array(depthCount[d]), n: 0 });
  for (let i = 0; i < n; i++) { const b = byDepth[ev.l[i]]; b.idx[b.n++] = i; }
  const palette = [], colorOf = new Uint16Array(n), colorIndex = new Map();
  for (let i = 0; i < n; i++) {
    const type = doc.types[ev.t[i]];
    const name = strings[ev.n[i]];
    let c;
    if (META[name]) c = META[name];
    else if (type === 'JS_CALL' && ev.f[i] >= 0) c = jsColor(strings[doc.functions[ev.f[i]][1]], name);
    else c = TYPE_COLORS[type] || '#d6dbe0';
    let k = colorIndex.get(c);
    if (k === undefined) { k = palette.length; palette.push(c); colorIndex.set(c, k); }
    colorOf[i] = k;
  }
  const m = doc.merged, mByDepth = [];
  for (let i = 0; i < m.s.length; i++) (mByDepth[m.l[i]] ||= []).push(i);
  for (const list of mByDepth) if (list) list.sort((a, b) => m.s[a] - m.s[b]);
  return { doc, ev, byDepth, palette, colorOf, mByDepth, maxDepth: Math.max(doc.max_depth, 0) };
}

function firstEnding(ix, ev, list, count, t) {
  let lo = 0, hi = count;
  while (lo < hi) { const mid = (lo + hi) >> 1; const i = list[mid]; if (ev.s[i] + ev.d[i] < t) lo = mid + 1; else hi = mid; }
  return lo;
}

const HEAD = 20, GAP = 4;
// A page lane shows at most this many px of rows until its handle is dragged (its own rows
// scroll with shift+wheel), so that a long Network lane does not push the main thread below
// the fold; a drag makes it as tall as wanted, down to one row.
const LANE_MAX = 160, LANE_MIN = 14, HANDLE = 5;
// Fold and size of each lane and thread track while the page is open (by name), so a chart
// drawn again (new filters, another thread's tables, another artifact) keeps them.
const remembered = new Map();
function remember(kind, name, state) {
  const key = `${kind}:${name}`;
  remembered.set(key, { ...remembered.get(key), ...state });
}
function recalled(kind, name) { return remembered.get(`${kind}:${name}`) || {}; }
// The px of a lane's rows on screen: its height up to its size.
export function laneRows(lane) { return Math.min(lane.height(), lane.maxH ?? LANE_MAX); }
// Its rows' scroll clamped to what they hold.
function laneScroll(lane) { return Math.max(0, Math.min(lane.scroll || 0, lane.height() - laneRows(lane))); }

export class FlameChart {
  // opts: tracks [{id, name, base (chart doc) | load() -> Promise<doc>, fetchWindow(range, widthPx)
  // -> Promise<doc> (server), collapsed}] (one track per thread, stacked, each under a header
  // that a click folds) or base + fetchWindow (one track, no header); onSelect(e), onTrack(track),
  // onRange([t0, t1] | null); lanes: the page's tracks above the threads (tracks.js: Network,
  // Frames, Timings, …), each {name, info, collapsed, hidden(), height(), draw(ctx, area),
  // hit(x, y, tm, k), tooltip(item), click(item)}, drawn on the same time axis; timeHover(tm)
  // -> html | null: what hovering the time axis or the overview shows (the filmstrip).
  constructor(root, opts) {
    this.o = opts;
    const list = opts.tracks || [{ id: opts.base.timeline, name: opts.base.thread || '', base: opts.base, fetchWindow: opts.fetchWindow }];
    this.tracks = list.map((t, k) => ({ ...t, k, ix: t.base ? indexDoc(t.base) : null, detail: null, fetchId: 0, collapsed: recalled('track', t.name).collapsed ?? !!t.collapsed }));
    this.lanes = opts.lanes || [];
    for (const lane of this.lanes) Object.assign(lane, recalled('lane', lane.name));
    this.laneBoxes = [];
    this.headers = this.tracks.length > 1 || this.lanes.length > 0;
    const loaded = this.tracks.filter((t) => t.ix);
    this.base = loaded[0].ix;
    this.start = Math.min(...loaded.map((t) => t.ix.doc.start_ms));
    this.end = Math.max(...loaded.map((t) => t.ix.doc.end_ms), this.start + 0.001);
    this.t0 = this.start; this.t1 = this.end;
    this.scrollY = 0;
    this.range = null;
    this.selected = null;
    this.match = null;
    this.outline = null;
    this.overview = el('div', { class: 'overview', title: 'Drag to select a range; click to move the view' });
    this.ovCanvas = el('canvas');
    this.overview.append(this.ovCanvas);
    this.wrap = el('div', { class: 'chart-wrap' });
    this.canvas = el('canvas', { tabindex: 0, 'aria-label': 'Flame chart: wheel or W/S to zoom, drag or A/D to pan, shift-drag (or a drag on the time axis) to select a range' });
    this.wrap.append(this.canvas);
    root.append(this.overview, this.wrap);
    this.ctx = this.canvas.getContext('2d', { alpha: false });
    this.ovCtx = this.ovCanvas.getContext('2d');
    this.stats = { frames: 0, drawn: 0, merged: 0, tracks: 0, dimmed: 0, outlined: 0 };
    // Listeners on the window go when the chart does (`destroy`).
    this.gone = new AbortController();
    this.bind();
    this.ro = new ResizeObserver(() => { this.resize(); });
    this.ro.observe(this.wrap);
    this.unTheme = onThemeChange(() => { this.ovImage = null; this.redraw(); });
    this.resize();
    this.tracks.forEach((t, k) => { if (!t.collapsed && !t.ix && t.load) { t.collapsed = true; this.toggle(k, true); } });
  }

  resize() {
    const dpr = window.devicePixelRatio || 1;
    for (const [c, box] of [[this.canvas, this.wrap], [this.ovCanvas, this.overview]]) {
      const w = Math.max(1, box.clientWidth), h = Math.max(1, box.clientHeight);
      c.width = Math.round(w * dpr); c.height = Math.round(h * dpr);
    }
    this.dpr = dpr;
    this.ovImage = null;
    this.redraw();
  }

  get width() { return this.wrap.clientWidth || 1; }
  get height() { return this.wrap.clientHeight || 1; }

  redraw() {
    if (this.pending) return;
    this.pending = requestAnimationFrame(() => { this.pending = 0; this.draw(); });
  }

  setView(t0, t1, fetch = true) {
    const minSpan = 0.001;
    let span = Math.max(minSpan, Math.min(t1 - t0, (this.end - this.start) * 1.02));
    const pad = (this.end - this.start) * 0.01;
    t0 = Math.max(this.start - pad, Math.min(t0, this.end + pad - span));
    this.t0 = t0; this.t1 = t0 + span;
    this.redraw();
    this.refreshTip();
    if (fetch) this.scheduleFetch();
    if (this.o.onView) this.o.onView(this.t0, this.t1);
  }

  scheduleFetch() {
    clearTimeout(this.fetchTimer);
    this.fetchTimer = setTimeout(() => {
      const span = this.t1 - this.t0, want = [this.t0 - span / 2, this.t1 + span / 2];
      for (const t of this.tracks) {
        if (!t.fetchWindow || t.collapsed || !t.ix) continue;
        const id = ++t.fetchId;
        t.fetchWindow(want, this.width * 2).then((doc) => {
          if (id !== t.fetchId) return;
          t.detail = indexDoc(doc);
          this.redraw();
        }).catch((e) => console.warn('jsprof: chart window', e));
      }
    }, 90);
  }

  // A track's data to draw: the fetched window when it covers the view, else the whole recording.
  current(t = this.tracks[0]) {
    const d = t.detail;
    if (d && d.doc.window[0] <= this.t0 + 1e-9 && d.doc.window[1] >= Math.min(this.t1, this.end) - 1e-9) return d;
    return t.ix;
  }

  // Where each track lies (y from the top of the rows area, before scrolling), by track index;
  // the page's lanes come first, above the threads (`this.laneBoxes`).
  layout() {
    let y = 0;
    const out = [];
    this.laneBoxes = [];
    for (const lane of this.lanes) {
      if (lane.hidden && lane.hidden()) continue;
      const rows = lane.collapsed ? 0 : laneRows(lane) + GAP;
      this.laneBoxes.push({ lane, y, rowsY: y + HEAD, h: HEAD + rows });
      y += HEAD + rows;
    }
    for (const t of this.tracks) {
      const head = this.headers ? HEAD : 0;
      const depth = t.ix ? Math.max(t.ix.maxDepth, t.detail ? t.detail.maxDepth : 0) + 1 : 0;
      const rows = t.collapsed || !t.ix ? 0 : depth * ROW + (this.headers ? GAP : ROW);
      out.push({ t, y, rowsY: y + head, h: head + rows });
      y += head + rows;
    }
    this.contentH = y;
    return out;
  }

  // Folds or unfolds a track (loading its calls the first time).
  async toggle(k, open) {
    const t = this.tracks[k];
    t.collapsed = open == null ? !t.collapsed : !open;
    remember('track', t.name, { collapsed: t.collapsed });
    if (!t.collapsed && !t.ix && t.load) {
      t.ix = indexDoc(await t.load());
      this.ovImage = null;
    }
    this.redraw();
    if (!t.collapsed) this.scheduleFetch();
  }

  // After the view moved under a resting pointer (a zoom, a jump): the tooltip names what is
  // now under it, or goes; never a stale one.
  refreshTip() {
    const m = this.mouse;
    if (!m) { hideTooltip(); return; }
    cancelAnimationFrame(this.tipFrame);
    this.tipFrame = requestAnimationFrame(() => {
      if (!this.mouse) { hideTooltip(); return; }
      const h = this.hit(m.x, m.y);
      if (h && h.lane && !h.header) showTooltip(h.lane.tooltip(h.item), m.clientX, m.clientY);
      else if (h && !h.header) showTooltip(this.tooltip(h), m.clientX, m.clientY, h.merged ? null : h.d); else hideTooltip();
    });
  }

  // Scrolls so that lane `name`'s rows from `offset` px (a request's row in the Network lane)
  // are in view below the axis, unfolding the lane; false when there is no such lane.
  revealLane(name, offset = 0) {
    const lane = this.lanes.find((l) => l.name === name);
    if (!lane || (lane.hidden && lane.hidden())) return false;
    this.foldLane(lane, false);
    // The row within the lane's own rows first, then the lane within the chart.
    const shown = laneRows(lane), sc = laneScroll(lane);
    if (offset < sc || offset + LANE_MIN > sc + shown) lane.scroll = Math.max(0, offset - Math.floor(shown / 3));
    lane.scroll = laneScroll(lane);
    this.layout();
    const b = this.laneBoxes.find((x) => x.lane === lane);
    if (!b) return false;
    const H = this.height - AXIS, y = b.rowsY + offset - lane.scroll;
    // In view already (below its own header): leave the scroll alone.
    if (y >= this.scrollY + HEAD && y + ROW <= this.scrollY + H) return true;
    this.scrollY = Math.max(0, y - HEAD - ROW);
    this.redraw();
    return true;
  }

  // The unfolded lane whose rows are at canvas y (CSS px), or null.
  laneAt(y) {
    const cy = y - AXIS + this.scrollY;
    this.layout();
    const b = this.laneBoxes.find((x) => cy >= x.rowsY && cy < x.y + x.h);
    return b && !b.lane.collapsed ? b.lane : null;
  }

  // Folds (or unfolds) a lane and remembers it.
  foldLane(lane, collapsed = !lane.collapsed) {
    lane.collapsed = collapsed;
    remember('lane', lane.name, { collapsed });
    this.redraw();
  }

  // Sizes a lane's rows to `px` (one row at least, all its rows at most) and remembers it.
  sizeLane(lane, px) {
    lane.maxH = Math.max(Math.min(LANE_MIN, lane.height()), Math.min(Math.round(px), lane.height()));
    lane.scroll = laneScroll(lane);
    remember('lane', lane.name, { maxH: lane.maxH });
    this.redraw();
  }

  // Scrolls track `k`'s row `depth` into view (search's match), unfolding the track.
  revealRow(k, depth) {
    const t = this.tracks[k];
    if (!t) return;
    if (t.collapsed) this.toggle(k, true);
    const box = this.layout()[k], H = this.height - AXIS, head = this.headers ? HEAD : 0;
    const y = box.rowsY + depth * ROW;
    if (y >= this.scrollY + head && y + ROW <= this.scrollY + H) return;
    this.scrollY = Math.max(0, Math.min(y - head - ROW, y - H / 3));
    this.redraw();
  }

  // The page-load markers drawn across the chart ([{label, ts_ms, color}]).
  setMarkers(list) {
    this.markers = list || [];
    this.redraw();
  }

  // For tests: each marker's label and page x, and whether it is inside the chart's width.
  markerBoxes() {
    const r = this.canvas.getBoundingClientRect(), k = this.width / (this.t1 - this.t0);
    return (this.markers || []).map((m) => { const x = (m.ts_ms - this.t0) * k; return { label: m.label, ts_ms: m.ts_ms, x: r.left + x, inView: x >= 0 && x <= this.width }; });
  }

  // Scrolls a track's header to the top of the chart.
  revealTrack(k) {
    const L = this.layout();
    this.scrollY = L[k].y;
    this.redraw();
  }

  // Dims the calls whose name or url does not pass `fn` (null: none dimmed).
  setMatch(fn) {
    this.match = fn;
    for (const t of this.tracks) for (const ix of [t.ix, t.detail]) if (ix) ix.hit = null;
    this.redraw();
  }

  // Outlines events ([{timeline_id, depth, start_ms, dur_ms, name, kind: 'error' | 'info', note}], an
  // insight's related events as the insights document places them; null: none) and dims every
  // call of the threads that is neither one of them nor inside one. Events the document could
  // not place on a timeline (no `depth`) are left out.
  setOutline(list) {
    const byTrack = new Map();
    for (const e of list || []) {
      if (e.timeline_id == null || e.depth == null) continue;
      let o = byTrack.get(e.timeline_id);
      if (!o) byTrack.set(e.timeline_id, (o = { boxes: [], spans: [] }));
      o.boxes.push({ s: e.start_ms, d: e.dur_ms, l: e.depth, name: e.name, kind: e.kind || 'error', note: e.note || '' });
    }
    for (const o of byTrack.values()) {
      o.boxes.sort((a, b) => a.s - b.s || a.l - b.l);
      // The union of their spans: what stays lit.
      for (const b of o.boxes) {
        const last = o.spans[o.spans.length - 1];
        if (last && b.s <= last[1]) last[1] = Math.max(last[1], b.s + b.d); else o.spans.push([b.s, b.s + b.d]);
      }
    }
    this.outline = byTrack.size ? byTrack : null;
    if (this.outline) this.revealOutline();
    this.redraw();
  }

  // Scrolls the outlined events' rows into view when none is: the first track holding some,
  // its shallowest outlined row a third of the way down (below the page's lanes). False when no
  // unfolded track holds one.
  revealOutline() {
    if (!this.outline) return false;
    const L = this.layout(), H = this.height - AXIS;
    for (const box of L) {
      const o = this.outline.get(box.t.id);
      if (!o || box.t.collapsed || !box.t.ix) continue;
      const depths = o.boxes.map((b) => b.l), lo = box.rowsY + Math.min(...depths) * ROW, hi = box.rowsY + (Math.max(...depths) + 1) * ROW;
      const head = this.headers ? HEAD : 0;
      if (lo >= this.scrollY + head && lo + ROW <= this.scrollY + H) return true;
      if (hi > this.scrollY + head && hi <= this.scrollY + H) return true;
      this.scrollY = Math.max(0, Math.min(lo - head - ROW, lo - H / 3));
      this.redraw();
      return true;
    }
    return false;
  }

  // The row each outlined event of a track is drawn in (an array beside `o.boxes`): the depth
  // the document gives, unless the chart's data `ix` draws an event of that name and start at
  // another depth (a filter reshapes the nesting: `--focus` drops the calls above).
  rowsOf(ix, o) {
    if (ix.outlineRows && ix.outlineRows.o === o) return ix.outlineRows.rows;
    const ev = ix.ev, strings = ix.doc.strings, eps = 0.0015;
    const at = (b, dpt) => {
      const list = ix.byDepth[dpt];
      if (!list || !list.n) return false;
      for (let q = firstEnding(ix, ev, list.idx, list.n, b.s); q < list.n; q++) {
        const i = list.idx[q];
        if (ev.s[i] > b.s + eps) return false;
        if (Math.abs(ev.s[i] - b.s) <= eps && strings[ev.n[i]] === b.name) return true;
      }
      return false;
    };
    // A block merged below a pixel at depth dpt that holds b.
    const m = ix.doc.merged;
    const inMerged = (b, dpt) => (ix.mByDepth[dpt] || []).some((i) => m.s[i] <= b.s + eps && m.s[i] + m.d[i] >= b.s + b.d - eps);
    const rows = o.boxes.map((b) => {
      if (at(b, b.l)) return b.l;
      for (let dpt = 0; dpt < ix.byDepth.length; dpt++) if (dpt !== b.l && at(b, dpt)) return dpt;
      return null;
    });
    // An event merged into a block: moved by as many rows as the nearest one drawn on its own
    // (a filter moves a run of siblings together), where a merged block holds it.
    rows.forEach((r, j) => {
      if (r != null) return;
      const b = o.boxes[j];
      let shift = 0;
      for (let d = 1; d < rows.length; d++) {
        const near = [j - d, j + d].find((q) => q >= 0 && q < rows.length && rows[q] != null && o.boxes[q].l === b.l && rows[q] !== undefined);
        if (near !== undefined) { shift = rows[near] - o.boxes[near].l; break; }
      }
      const tries = [b.l + shift, b.l, ...ix.mByDepth.keys()];
      rows[j] = tries.find((dpt) => dpt >= 0 && inMerged(b, dpt)) ?? b.l;
    });
    ix.outlineRows = { o, rows };
    return rows;
  }

  // Whether [s, s + d] lies inside an outlined event of track `id` (a small tolerance: the
  // chart's times are rounded).
  lit(id, s, d) {
    const o = this.outline.get(id);
    if (!o) return false;
    const sp = o.spans, eps = 1e-6;
    let lo = 0, hi = sp.length;
    while (lo < hi) { const mid = (lo + hi) >> 1; if (sp[mid][1] < s + d - eps) lo = mid + 1; else hi = mid; }
    return lo < sp.length && sp[lo][0] <= s + eps;
  }

  matches(ix, i) {
    if (!ix.hit) {
      const doc = ix.doc, ev = ix.ev, n = ev.s.length, hit = new Uint8Array(n), fn = this.match;
      const memo = new Map();
      for (let j = 0; j < n; j++) {
        const key = ev.f[j] >= 0 ? 'f' + ev.f[j] : 'n' + ev.n[j];
        let m = memo.get(key);
        if (m === undefined) {
          const f = ev.f[j] >= 0 ? doc.functions[ev.f[j]] : null;
          // fn.key: one function exactly (linked selection); otherwise a test of name or url.
          const k = fn.key;
          m = k ? (f ? doc.strings[f[0]] === k.name && doc.strings[f[1]] === k.url && f[2] === k.line && f[3] === k.column : !k.url && doc.strings[ev.n[j]] === k.name)
            : fn(doc.strings[ev.n[j]]) || (f ? fn(doc.strings[f[1]]) : false);
          memo.set(key, m);
        }
        hit[j] = m ? 1 : 0;
      }
      ix.hit = hit;
    }
    return ix.hit[i] === 1;
  }

  draw() {
    const ctx = this.ctx, dpr = this.dpr, W = this.width, H = this.height;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = theme.bg;
    ctx.fillRect(0, 0, W, H);
    const t0 = this.t0, t1 = this.t1, k = W / (t1 - t0);
    ctx.font = '11px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
    ctx.textBaseline = 'middle';
    if (!this.charW) this.charW = ctx.measureText('abcdefghijklmnopqrstuvwxyz0123456789').width / 36;
    const L = this.layout();
    this.scrollY = Math.max(0, Math.min(this.scrollY, this.contentH + AXIS - Math.min(H, 80)));
    let drawn = 0, merged = 0, tracks = 0, dimmed = 0;
    for (const box of this.laneBoxes) {
      const top = AXIS + box.rowsY - this.scrollY, bottom = AXIS + box.y + box.h - this.scrollY;
      if (box.lane.stats) box.lane.stats.drawn = 0;
      if (box.lane.collapsed || top > H || bottom < AXIS) continue;
      // A lane draws inside its own rows, under the axis.
      ctx.save();
      ctx.beginPath();
      ctx.rect(0, Math.max(AXIS, top), W, Math.max(0, bottom - Math.max(AXIS, top)));
      ctx.clip();
      box.lane.draw(ctx, { top: top - laneScroll(box.lane), W, t0, t1, k, chart: this });
      ctx.restore();
      // The handle that sizes the lane: a grip at its foot.
      if (bottom - 2 >= AXIS) {
        ctx.fillStyle = theme.line;
        ctx.fillRect(0, bottom - 2, W, 1);
        ctx.fillStyle = theme.muted;
        for (const dx of [-8, -4, 0, 4, 8]) ctx.fillRect(W / 2 + dx, bottom - 3, 2, 2);
      }
    }
    for (const box of L) {
      const t = box.t, top = AXIS + box.y - this.scrollY;
      if (top > H || top + box.h < AXIS) continue;
      if (t.ix && !t.collapsed) {
        const r = this.drawTrack(ctx, this.current(t), AXIS + box.rowsY - this.scrollY, W, H, t0, t1, k, t.id);
        drawn += r.drawn; merged += r.merged; dimmed += r.dimmed;
        if (r.drawn + r.merged > 0) tracks++;
      }
    }
    // Headers over the rows, each kept at the top while its track is scrolled through.
    if (this.headers) {
      for (const box of this.laneBoxes) {
        const top = AXIS + box.y - this.scrollY;
        if (top > H || top + box.h < AXIS) continue;
        this.drawHeader(ctx, box.lane, this.headerY(box), W);
      }
      for (const box of L) {
        const top = AXIS + box.y - this.scrollY;
        if (top > H || top + box.h < AXIS) continue;
        this.drawHeader(ctx, box.t, this.headerY(box), W);
      }
    }
    // The selected call and the selected range.
    if (this.selected) {
      const e = this.selected, box = L[e.track || 0];
      ctx.save();
      ctx.beginPath();
      ctx.rect(0, AXIS + box.y - this.scrollY, W, box.h);
      ctx.clip();
      const x = (e.s - t0) * k, y = AXIS + box.rowsY + e.l * ROW - this.scrollY;
      if (!box.t.collapsed) {
        ctx.strokeStyle = '#0969da'; ctx.lineWidth = 2;
        ctx.strokeRect(Math.max(-2, x) + 1, y + 1, Math.max(2, Math.min(e.d * k, W + 4) - 2), ROW - 3);
      }
      ctx.restore();
    }
    this.stats.outlined = this.outline ? this.drawOutline(ctx, L, W, H, t0, t1, k) : 0;
    if (this.range) {
      const x0 = (this.range[0] - t0) * k, x1 = (this.range[1] - t0) * k;
      ctx.fillStyle = 'rgba(9,105,218,0.10)';
      ctx.fillRect(x0, AXIS, x1 - x0, H - AXIS);
      ctx.fillStyle = 'rgba(9,105,218,0.8)';
      ctx.fillRect(x0, AXIS, 1, H - AXIS); ctx.fillRect(x1, AXIS, 1, H - AXIS);
    }
    // The page-load markers (FCP, LCP, DCL, Load): a dashed line down the chart, the label
    // under the axis.
    for (const m of this.markers || []) {
      const x = Math.round((m.ts_ms - t0) * k) + 0.5;
      if (x < -1 || x > W + 1) continue;
      ctx.save();
      ctx.strokeStyle = m.color; ctx.lineWidth = 1; ctx.setLineDash([4, 3]);
      ctx.beginPath(); ctx.moveTo(x, AXIS); ctx.lineTo(x, H); ctx.stroke();
      ctx.restore();
    }
    this.drawAxis(ctx, W, t0, t1, k);
    let labelEnd = -Infinity;
    for (const m of this.markers || []) {
      const x = Math.round((m.ts_ms - t0) * k) + 0.5;
      if (x < -1 || x > W + 1) continue;
      const w = ctx.measureText(m.label).width + 6, lx = Math.max(x + 2, labelEnd + 2);
      ctx.fillStyle = m.color; ctx.fillRect(lx, AXIS - 1, w, 13);
      ctx.fillStyle = '#ffffff'; ctx.fillText(m.label, lx + 3, AXIS + 5.5);
      labelEnd = lx + w;
    }
    this.stats.frames++; this.stats.drawn = drawn; this.stats.merged = merged; this.stats.tracks = tracks; this.stats.dimmed = dimmed;
    this.drawOverview();
  }

  // The outlined events in view, each a frame around its box (at least 2 px wide), over the
  // merged blocks too; returns how many were drawn.
  drawOutline(ctx, L, W, H, t0, t1, k) {
    let n = 0;
    for (const box of L) {
      const o = this.outline.get(box.t.id);
      if (!o || box.t.collapsed || !box.t.ix) continue;
      ctx.save();
      ctx.beginPath();
      const top = AXIS + box.y - this.scrollY, clear = this.headers ? this.headerY(box) + HEAD : AXIS;
      ctx.rect(0, clear, W, Math.max(0, top + box.h - clear));
      ctx.clip();
      ctx.lineWidth = 2;
      const rows = this.rowsOf(this.current(box.t), o);
      for (let j = 0; j < o.boxes.length; j++) {
        const b = o.boxes[j];
        if (b.s > t1 || b.s + b.d < t0) continue;
        const x = (b.s - t0) * k, w = Math.max(2, b.d * k), y = AXIS + box.rowsY + rows[j] * ROW - this.scrollY;
        if (y > H || y + ROW < clear) continue;
        ctx.strokeStyle = b.kind === 'info' ? '#0969da' : '#cf222e';
        ctx.strokeRect(Math.max(-2, x) + 1, y + 1, Math.max(2, Math.min(w, W + 4) - 2), ROW - 3);
        n++;
      }
      ctx.restore();
    }
    return n;
  }

  // Where a track's header is drawn: at the track's top, or pinned under the axis while the
  // track is scrolled through, pushed up by the next one.
  headerY(box) {
    const top = AXIS + box.y - this.scrollY;
    return Math.min(Math.max(top, AXIS), top + box.h - HEAD);
  }

  drawHeader(ctx, t, y, W) {
    if (y + HEAD < AXIS) return;
    ctx.fillStyle = t.active ? theme.sel : theme.soft;
    ctx.fillRect(0, y, W, HEAD - 1);
    ctx.fillStyle = theme.line;
    ctx.fillRect(0, y + HEAD - 1, W, 1);
    ctx.fillStyle = theme.fg;
    ctx.font = '600 11px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
    // A page's track is headed by the page alone (`Main — http://…/`), its process in the info.
    const title = `${t.process && !t.page ? t.process + ' · ' : ''}${t.name || 'thread'}`;
    ctx.fillText(`${t.collapsed ? '▸' : '▾'} ${title}`, 6, y + HEAD / 2);
    const nameW = ctx.measureText(`▸ ${title}`).width;
    ctx.font = '11px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
    ctx.fillStyle = theme.muted;
    ctx.fillText(t.info || '', 16 + nameW, y + HEAD / 2);
  }

  drawTrack(ctx, ix, rowsTop, W, H, t0, t1, k, id) {
    const ev = ix.ev, strings = ix.doc.strings, charW = this.charW, match = this.match, outline = this.outline;
    let drawn = 0, merged = 0, dimmed = 0;
    const firstDepth = Math.max(0, Math.floor((AXIS - rowsTop) / ROW));
    for (let dpt = firstDepth; dpt <= ix.maxDepth; dpt++) {
      const y = rowsTop + dpt * ROW;
      if (y > H) break;
      const b = ix.byDepth[dpt];
      if (b && b.n) {
        const list = b.idx, n = b.n;
        let runX = -1, runEnd = -1;
        for (let j = firstEnding(ix, ev, list, n, t0); j < n; j++) {
          const i = list[j], s = ev.s[i];
          if (s > t1) break;
          const x = (s - t0) * k, w = ev.d[i] * k;
          if (w < 1.5) {
            if (x <= runEnd + 0.5) { runEnd = Math.max(runEnd, x + w); continue; }
            if (runX >= 0) { ctx.fillStyle = MERGED; ctx.fillRect(runX, y, Math.max(1, runEnd - runX), ROW - 1); merged++; }
            runX = x; runEnd = x + w;
            continue;
          }
          const x0 = Math.max(x, -2), x1 = Math.min(x + w, W + 2);
          const dim = (match && !this.matches(ix, i)) || (outline && !this.lit(id, s, ev.d[i]));
          ctx.fillStyle = dim ? '#eef0f2' : ix.palette[ix.colorOf[i]];
          ctx.fillRect(x0, y, Math.max(1, x1 - x0 - (w > 4 ? 1 : 0)), ROW - 1);
          drawn++;
          if (dim) dimmed++;
          const room = x1 - x0 - 6;
          if (room > charW * 3) {
            let label = displayName(strings[ev.n[i]]);
            const fit = Math.floor(room / charW);
            if (label.length > fit) label = label.slice(0, Math.max(1, fit - 1)) + '…';
            ctx.fillStyle = dim ? '#a0a7b0' : '#1f2328';
            ctx.fillText(label, x0 + 3, y + ROW / 2);
          }
        }
        if (runX >= 0) { ctx.fillStyle = MERGED; ctx.fillRect(runX, y, Math.max(1, runEnd - runX), ROW - 1); merged++; }
      }
      const ml = ix.mByDepth[dpt];
      if (ml) {
        // Blocks the server (or the report) merged: touching ones are drawn as one rectangle.
        const m = ix.doc.merged;
        ctx.fillStyle = MERGED;
        let lo = 0, hi = ml.length;
        while (lo < hi) { const mid = (lo + hi) >> 1; const i = ml[mid]; if (m.s[i] + m.d[i] < t0) lo = mid + 1; else hi = mid; }
        let runX = -1, runEnd = -1;
        for (let q = lo; q < ml.length; q++) {
          const i = ml[q], s = m.s[i];
          if (s > t1) break;
          const x = Math.max(-2, (s - t0) * k), e = Math.min(W + 2, (s + m.d[i] - t0) * k);
          if (x <= runEnd + 0.5) { runEnd = Math.max(runEnd, e); continue; }
          if (runX >= 0) { ctx.fillRect(runX, y, Math.max(1, runEnd - runX), ROW - 1); merged++; }
          runX = x; runEnd = e;
        }
        if (runX >= 0) { ctx.fillRect(runX, y, Math.max(1, runEnd - runX), ROW - 1); merged++; }
      }
    }
    return { drawn, merged, dimmed };
  }

  drawAxis(ctx, W, t0, t1, k) {
    ctx.fillStyle = theme.soft; ctx.fillRect(0, 0, W, AXIS - 2);
    ctx.fillStyle = theme.line; ctx.fillRect(0, AXIS - 2, W, 1);
    const step = niceStep((t1 - t0) / Math.max(1, W / 110));
    ctx.fillStyle = theme.muted; ctx.textBaseline = 'middle';
    this.ticks = []; // the labels drawn (the tests read them)
    ctx.font = '11px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
    for (let t = Math.ceil(t0 / step) * step; t <= t1; t += step) {
      const x = Math.round((t - t0) * k) + 0.5;
      ctx.fillRect(x, AXIS - 7, 1, 5);
      const label = tickLabel(t, step);
      this.ticks.push(label);
      ctx.fillText(label, x + 3, (AXIS - 4) / 2);
    }
  }

  drawOverview() {
    const ctx = this.ovCtx, dpr = this.dpr, W = this.overview.clientWidth || 1, H = this.overview.clientHeight || 1;
    const k = W / (this.end - this.start);
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    if (!this.ovImage) {
      // Activity as DevTools' overview draws it: at each moment, the category of the deepest
      // event running (of the first track) — scripting, rendering, painting, loading, GC or
      // system — sampled four times per pixel, stacked by category; idle time is empty.
      const SUB = 4, P = Math.ceil(W) * SUB, kp = k * SUB;
      const cat = new Int8Array(P).fill(-1), depth = new Int16Array(P).fill(-1);
      const ix = this.base, ev = ix.ev, strings = ix.doc.strings, types = ix.doc.types;
      for (let i = 0; i < ev.s.length; i++) {
        const c = activityOf(strings[ev.n[i]], types[ev.t[i]]);
        const d = ev.l[i];
        const p0 = Math.max(0, Math.ceil((ev.s[i] - this.start) * kp - 0.5)), p1 = Math.min(P - 1, Math.floor((ev.s[i] + ev.d[i] - this.start) * kp - 0.5));
        for (let p = p0; p <= p1; p++) if (d >= depth[p]) { depth[p] = d; cat[p] = c; }
      }
      ctx.fillStyle = theme.bg; ctx.fillRect(0, 0, W, H);
      const count = new Float64Array(ACTIVITY.length), full = H - 14;
      for (let x = 0; x < Math.ceil(W); x++) {
        count.fill(0);
        for (let p = x * SUB; p < (x + 1) * SUB; p++) if (cat[p] >= 0) count[cat[p]]++;
        let y = H;
        for (let c = 0; c < ACTIVITY.length; c++) {
          if (!count[c]) continue;
          const h = (count[c] / SUB) * full;
          ctx.fillStyle = ACTIVITY[c].color; ctx.fillRect(x, y - h, 1, h);
          y -= h;
        }
      }
      this.ovImage = ctx.getImageData(0, 0, Math.round(W * dpr), Math.round(H * dpr));
    } else {
      ctx.putImageData(this.ovImage, 0, 0);
    }
    const x0 = (this.t0 - this.start) * k, x1 = (this.t1 - this.start) * k;
    ctx.fillStyle = 'rgba(31,35,40,0.18)';
    ctx.fillRect(0, 0, Math.max(0, x0), H); ctx.fillRect(x1, 0, Math.max(0, W - x1), H);
    ctx.strokeStyle = '#0969da'; ctx.lineWidth = 1;
    ctx.strokeRect(Math.max(0, x0) + 0.5, 0.5, Math.max(2, x1 - x0) - 1, H - 1);
    if (this.range) {
      const r0 = (this.range[0] - this.start) * k, r1 = (this.range[1] - this.start) * k;
      ctx.fillStyle = 'rgba(9,105,218,0.25)'; ctx.fillRect(r0, 0, Math.max(1, r1 - r0), H);
    }
  }

  // The event under a point of the canvas (CSS px), a merged block, a track's header, or an item
  // of a page lane ({lane, item}).
  hit(x, y) {
    if (y < AXIS) return null;
    const cy = y - AXIS + this.scrollY;
    const L = this.layout();
    const lb = this.laneBoxes.find((b) => cy >= b.y && cy < b.y + b.h);
    if (lb) {
      const hy = this.headerY(lb);
      if ((y >= hy && y < hy + HEAD) || cy < lb.rowsY) return { header: true, lane: lb.lane };
      if (lb.lane.collapsed) return null;
      // The handle at its foot (a header of sorts: no item, no tooltip, no menu).
      if (cy >= lb.y + lb.h - HANDLE) return { header: true, lane: lb.lane, resize: lb.lane };
      const k = this.width / (this.t1 - this.t0);
      const item = lb.lane.hit(x, cy - lb.rowsY + laneScroll(lb.lane), this.t0 + x / k, k);
      return item ? { lane: lb.lane, item } : null;
    }
    const box = L.find((b) => cy >= b.y && cy < b.y + b.h);
    if (!box) return null;
    if (this.headers) {
      const hy = this.headerY(box);
      if (y >= hy && y < hy + HEAD) return { header: true, track: box.t.k };
    }
    if (cy < box.rowsY) return { header: true, track: box.t.k };
    const t = box.t;
    if (!t.ix || t.collapsed) return null;
    const ix = this.current(t), ev = ix.ev, dpt = Math.floor((cy - box.rowsY) / ROW);
    const k = this.width / (this.t1 - this.t0), tm = this.t0 + x / k;
    const b = ix.byDepth[dpt];
    if (b && b.n) {
      const j = firstEnding(ix, ev, b.idx, b.n, tm - 1 / k);
      for (let q = j; q < b.n; q++) {
        const i = b.idx[q];
        if (ev.s[i] > tm + 1 / k) break;
        if (ev.s[i] <= tm + 0.5 / k && ev.s[i] + ev.d[i] >= tm - 0.5 / k) return this.event(ix, i, t);
      }
    }
    const ml = ix.mByDepth[dpt];
    if (ml) {
      const m = ix.doc.merged;
      for (const i of ml) if (m.s[i] <= tm + 1 / k && m.s[i] + m.d[i] >= tm - 1 / k) return { merged: true, s: m.s[i], d: m.d[i], l: dpt, count: m.c[i], track: t.k, related: this.outlinedAt(t.id, ix, dpt, tm, k) };
    }
    const related = this.outlinedAt(t.id, ix, dpt, tm, k);
    return related ? { merged: true, s: related.s, d: related.d, l: dpt, count: 1, track: t.k, related } : null;
  }

  // The outlined event of track `id` (drawn from `ix`) in row `dpt` under time `tm` (within a
  // pixel), if any.
  outlinedAt(id, ix, dpt, tm, k) {
    const o = this.outline && this.outline.get(id);
    if (!o) return null;
    const rows = this.rowsOf(ix, o);
    return o.boxes.find((b, j) => rows[j] === dpt && b.s <= tm + 1 / k && b.s + Math.max(b.d, 2 / k) >= tm - 1 / k) || null;
  }

  // Call i's path from the root — the call around it at each depth above — as `--focus-stack`
  // takes it; null when one of them is not drawn on its own.
  stackOf(ix, i) {
    const ev = ix.ev, doc = ix.doc, labels = [];
    const label = (j) => {
      const f = ev.f[j] >= 0 ? doc.functions[ev.f[j]] : null;
      return f ? frameLabel(doc.strings[f[0]], doc.strings[f[1]], f[2], f[3]) : frameLabel(doc.strings[ev.n[j]], '', null, null);
    };
    labels.push(label(i));
    const mid = ev.s[i] + ev.d[i] / 2;
    for (let depth = ev.l[i] - 1; depth >= 0; depth--) {
      const b = ix.byDepth[depth], q = firstEnding(ix, ev, b.idx, b.n, mid);
      if (q >= b.n || ev.s[b.idx[q]] > mid) return null;
      labels.push(label(b.idx[q]));
    }
    return labels.reverse();
  }

  event(ix, i, t = this.tracks[0]) {
    const ev = ix.ev, doc = ix.doc, f = ev.f[i] >= 0 ? doc.functions[ev.f[i]] : null;
    return {
      i, s: ev.s[i], d: ev.d[i], self: ev.x[i], l: ev.l[i], type: doc.types[ev.t[i]],
      name: doc.strings[ev.n[i]],
      url: f ? doc.strings[f[1]] : '', line: f ? f[2] : null, column: f ? f[3] : null,
      fn: f ? ev.f[i] : -1, track: t.k, timeline: t.id, thread: t.name,
    };
  }

  tooltip(e) {
    const thread = this.headers ? `<div class="tt-thread">${esc(this.tracks[e.track].name || 'thread')}</div>` : '';
    if (e.related) return `<div class="tt-name">${esc(eventTitle(e.related.name) || e.related.name)}</div><div class="tt-loc">${esc(e.related.name)}${e.related.note ? ' · ' + esc(e.related.note) : ''}</div>${thread}<table><tr><td>Start</td><td>${fmtMs(e.related.s)}</td></tr><tr><td>Duration</td><td>${fmtMs(e.related.d)}</td></tr></table>`;
    if (e.merged) return `<div class="tt-name">${e.count.toLocaleString('en-US')} events under a pixel</div><div class="tt-loc">zoom in to see them</div>${thread}<table><tr><td>Start</td><td>${fmtMs(e.s)}</td></tr><tr><td>Span</td><td>${fmtMs(e.d)}</td></tr></table>`;
    const loc = fmtLocation(e.url, e.line, e.column);
    // An engine event by the Performance panel's title, its trace name beneath.
    const title = e.type !== 'JS_CALL' ? eventTitle(e.name) : null;
    return `<div class="tt-name">${esc(title || displayName(e.name))}</div>` + (title ? `<div class="tt-loc">${esc(e.name)}</div>` : '') + (loc ? `<div class="tt-loc">${esc(loc)}</div>` : '') + thread +
      `<table><tr><td>Total</td><td>${fmtMs(e.d)}</td></tr><tr><td>Self</td><td>${fmtMs(e.self)}</td></tr>` +
      `<tr><td>Start</td><td>${fmtMs(e.s)}</td></tr><tr><td>Type</td><td>${esc(typeTitle(e.type))}</td></tr></table>`;
  }

  setRange(r) {
    this.range = r && r[1] - r[0] > 0 ? r : null;
    this.redraw();
    if (this.o.onRange) this.o.onRange(this.range);
  }

  zoom(factor, atX) {
    const k = this.width / (this.t1 - this.t0);
    const tc = this.t0 + (atX ?? this.width / 2) / k;
    this.setView(tc - (tc - this.t0) * factor, tc + (this.t1 - tc) * factor);
  }

  pan(dx) {
    const k = this.width / (this.t1 - this.t0);
    this.setView(this.t0 - dx / k, this.t1 - dx / k);
  }

  bind() {
    const c = this.canvas;
    c.addEventListener('wheel', (e) => {
      e.preventDefault();
      const r = c.getBoundingClientRect();
      if (e.shiftKey) {
        const lane = this.laneAt(e.clientY - r.top);
        if (lane && lane.height() > laneRows(lane)) { lane.scroll = laneScroll({ ...lane, scroll: laneScroll(lane) + e.deltaY }); this.redraw(); return; }
        this.scrollY = Math.max(0, this.scrollY + e.deltaY); this.redraw(); return;
      }
      if (Math.abs(e.deltaX) > Math.abs(e.deltaY)) { this.pan(-e.deltaX); return; }
      const dy = e.deltaMode === 1 ? e.deltaY * 16 : e.deltaY;
      this.zoom(Math.exp(dy * 0.002), e.clientX - r.left);
    }, { passive: false });
    let drag = null;
    c.addEventListener('mousedown', (e) => {
      if (e.button !== 0) return; // the right button opens the menu (contextmenu)
      const r = c.getBoundingClientRect();
      // A drag on the time axis selects a range too (as DevTools' timeline ruler).
      drag = { x: e.clientX, y: e.clientY, lastX: e.clientX, lastY: e.clientY, moved: false, select: e.shiftKey || e.clientY - r.top < AXIS, x0: e.clientX - r.left };
      const h = this.hit(e.clientX - r.left, e.clientY - r.top);
      if (h && h.resize) { drag.resize = h.resize; drag.h0 = laneRows(h.resize); }
      c.focus();
      if (!drag.select) c.classList.add('dragging');
      e.preventDefault();
    });
    const signal = this.gone.signal;
    window.addEventListener('mousemove', (e) => {
      if (!drag) return;
      if (Math.abs(e.clientX - drag.x) + Math.abs(e.clientY - drag.y) > 3) drag.moved = true;
      const r = c.getBoundingClientRect();
      if (drag.resize) {
        this.sizeLane(drag.resize, drag.h0 + e.clientY - drag.y);
      } else if (drag.select) {
        const k = this.width / (this.t1 - this.t0);
        const a = this.t0 + drag.x0 / k, b = this.t0 + (e.clientX - r.left) / k;
        this.range = [Math.min(a, b), Math.max(a, b)];
        this.redraw();
      } else {
        this.scrollY = Math.max(0, this.scrollY - (e.clientY - drag.lastY));
        this.pan(e.clientX - drag.lastX);
      }
      drag.lastX = e.clientX; drag.lastY = e.clientY;
    }, { signal });
    window.addEventListener('mouseup', (e) => {
      if (!drag) return;
      const d = drag;
      drag = null;
      c.classList.remove('dragging');
      if (d.resize) return;
      if (d.select && d.moved) { this.setRange(this.range); return; }
      if (!d.moved) {
        const r = c.getBoundingClientRect();
        const h = this.hit(e.clientX - r.left, e.clientY - r.top);
        if (h && h.header && h.lane) { this.foldLane(h.lane); return; }
        if (h && h.header) { this.toggle(h.track); return; }
        if (h && h.lane) {
          if (h.lane.click) h.lane.click(h.item);
          if (this.o.onLaneSelect) this.o.onLaneSelect(h.lane, h.item);
          return;
        }
        this.selected = h && !h.merged ? h : null;
        this.redraw();
        if (this.selected && this.o.onTrack) this.o.onTrack(this.tracks[this.selected.track]);
        if (this.o.onSelect) this.o.onSelect(this.selected);
      }
    }, { signal });
    c.addEventListener('mousemove', (e) => {
      if (drag) return;
      const r = c.getBoundingClientRect();
      const y = e.clientY - r.top;
      if (y < AXIS && this.o.timeHover) {
        // The time axis: what the page looked like then (the filmstrip).
        const html = this.o.timeHover(this.t0 + ((e.clientX - r.left) * (this.t1 - this.t0)) / this.width);
        if (html) showTooltip(html, e.clientX, e.clientY); else hideTooltip();
        return;
      }
      this.mouse = { x: e.clientX - r.left, y, clientX: e.clientX, clientY: e.clientY };
      const h = this.hit(e.clientX - r.left, y);
      c.style.cursor = h && h.resize ? 'ns-resize' : h && h.header ? 'pointer' : '';
      if (h && h.resize) hideTooltip();
      else if (h && h.lane && !h.header) showTooltip(h.lane.tooltip(h.item), e.clientX, e.clientY);
      else if (h && !h.header) showTooltip(this.tooltip(h), e.clientX, e.clientY, h.merged ? null : h.d); else hideTooltip();
    });
    c.addEventListener('mouseleave', () => { this.mouse = null; hideTooltip(); });
    // Right-click on a call: the page's menu of transforms for its function (onContext(call, e)).
    c.addEventListener('contextmenu', (e) => {
      const r = c.getBoundingClientRect();
      const h = this.hit(e.clientX - r.left, e.clientY - r.top);
      if (!h || h.header || h.lane || h.merged || !this.o.onContext) return;
      e.preventDefault();
      hideTooltip();
      const t = this.tracks[h.track];
      this.o.onContext({ ...h, stack: t && t.ix ? this.stackOf(this.current(t), h.i) : null }, e);
    });
    c.addEventListener('dblclick', (e) => {
      const r = c.getBoundingClientRect();
      const h = this.hit(e.clientX - r.left, e.clientY - r.top);
      if (h && h.lane && !h.header && h.item.d > 0) this.setView(h.item.s - h.item.d * 0.05, h.item.s + h.item.d * 1.05);
      else if (h && !h.header && !h.lane) this.setView(h.s - h.d * 0.05, h.s + h.d * 1.05);
    });
    c.addEventListener('keydown', (e) => {
      const W = this.width;
      switch (e.key) {
        case 'w': case 'W': case '+': case '=': this.zoom(0.8); break;
        case 's': case 'S': case '-': case '_': this.zoom(1.25); break;
        case 'a': case 'A': case 'ArrowLeft': this.pan(W * 0.1); break;
        case 'd': case 'D': case 'ArrowRight': this.pan(-W * 0.1); break;
        case 'ArrowUp': this.scrollY = Math.max(0, this.scrollY - ROW * 3); this.redraw(); break;
        case 'ArrowDown': this.scrollY += ROW * 3; this.redraw(); break;
        case '0': case 'Home': this.setView(this.start, this.end); break;
        case 'Escape': this.setRange(null); this.selected = null; this.redraw(); break;
        default: return;
      }
      e.preventDefault();
    });
    // The overview: drag selects a range (and shows it), a click moves the view there.
    let ov = null;
    const ovTime = (e) => {
      const r = this.overview.getBoundingClientRect();
      return this.start + ((e.clientX - r.left) / r.width) * (this.end - this.start);
    };
    this.overview.addEventListener('mousedown', (e) => { ov = { t: ovTime(e), moved: false }; e.preventDefault(); });
    if (this.o.timeHover) {
      this.overview.addEventListener('mousemove', (e) => {
        const html = ov ? null : this.o.timeHover(ovTime(e));
        if (html) showTooltip(html, e.clientX, e.clientY); else hideTooltip();
      });
      this.overview.addEventListener('mouseleave', hideTooltip);
    }
    window.addEventListener('mousemove', (e) => {
      if (!ov) return;
      const t = ovTime(e);
      if (Math.abs(t - ov.t) > (this.end - this.start) / 500) ov.moved = true;
      if (ov.moved) { this.range = [Math.min(ov.t, t), Math.max(ov.t, t)]; this.redraw(); }
    }, { signal });
    window.addEventListener('mouseup', (e) => {
      if (!ov) return;
      const o = ov; ov = null;
      if (o.moved && this.range) {
        const [a, b] = this.range, pad = (b - a) * 0.05;
        this.setView(a - pad, b + pad);
        this.setRange(this.range);
      } else {
        const span = this.t1 - this.t0;
        this.setView(o.t - span / 2, o.t + span / 2);
      }
    }, { signal });
  }

  // Stops listening (the chart is being replaced).
  destroy() {
    this.gone.abort();
    this.ro.disconnect();
    this.unTheme();
    if (this.pending) cancelAnimationFrame(this.pending);
    this.pending = 0;
  }

  // For tests: where lane `name`'s rows are on the page ({x, y, width, height}, CSS px), and
  // the page x of time `tm` (ms).
  laneBox(name) {
    this.layout();
    const b = this.laneBoxes.find((x) => x.lane.name === name);
    if (!b) return null;
    const r = this.canvas.getBoundingClientRect();
    // y: where the lane's first row is (above the lane when its rows are scrolled); height: the
    // rows shown.
    return { x: r.left, y: r.top + AXIS + b.rowsY - this.scrollY - laneScroll(b.lane), width: this.width, height: b.h - HEAD, shown: laneRows(b.lane), scroll: laneScroll(b.lane) };
  }

  // For tests: the outlined boxes in view ({timeline, name, start, dur, depth (the row drawn),
  // kind, y: the row's top on the page}).
  outlinedBoxes() {
    const out = [];
    if (!this.outline) return out;
    const top = this.canvas.getBoundingClientRect().top + AXIS - this.scrollY;
    for (const box of this.layout()) {
      const o = this.outline.get(box.t.id);
      if (!o || box.t.collapsed || !box.t.ix) continue;
      const rows = this.rowsOf(this.current(box.t), o);
      o.boxes.forEach((b, j) => { if (b.s <= this.t1 && b.s + b.d >= this.t0) out.push({ timeline: box.t.id, name: b.name, start: b.s, dur: b.d, depth: rows[j], kind: b.kind, y: top + box.rowsY + rows[j] * ROW }); });
    }
    return out;
  }

  xOf(tm) {
    return this.canvas.getBoundingClientRect().left + ((tm - this.t0) * this.width) / (this.t1 - this.t0);
  }

  // For tests and the benchmark: where a call named `name` is drawn (its widest visible one), in
  // track `only` or in any.
  locate(name, only) {
    const k = this.width / (this.t1 - this.t0), L = this.layout();
    let best = null, bestW = 0;
    for (const box of L) {
      const t = box.t;
      if (!t.ix || t.collapsed || (only != null && t.k !== only)) continue;
      const ix = this.current(t), ev = ix.ev, strings = ix.doc.strings;
      for (let i = 0; i < ev.s.length; i++) {
        if (strings[ev.n[i]] !== name) continue;
        const x0 = Math.max(0, (ev.s[i] - this.t0) * k), x1 = Math.min(this.width, (ev.s[i] + ev.d[i] - this.t0) * k);
        const y = AXIS + box.rowsY + ev.l[i] * ROW - this.scrollY;
        const clear = this.headers ? this.headerY(box) + HEAD : AXIS;
        if (x1 - x0 > bestW && y >= clear && y + ROW <= this.height) { best = { t, ix, i, x0, x1, y }; bestW = x1 - x0; }
      }
    }
    if (!best) return null;
    const r = this.canvas.getBoundingClientRect();
    return { x: r.left + (best.x0 + best.x1) / 2, y: r.top + best.y + ROW / 2, event: this.event(best.ix, best.i, best.t) };
  }
}

// The overview's categories (DevTools' colours), bottom to top.
const ACTIVITY = [
  { name: 'scripting', color: '#f2c744' },
  { name: 'gc', color: '#c983c9' },
  { name: 'rendering', color: '#a58cf0' },
  { name: 'painting', color: '#76c366' },
  { name: 'loading', color: '#5e97f6' },
  { name: 'system', color: '#b8bcc3' },
];
// The category of an event (an index into ACTIVITY), -1 for idle.
function activityOf(name, type) {
  if (name === '(idle)') return -1;
  if (name === '(garbage collector)' || type === 'GC') return 1;
  if (name === '(program)') return 5;
  switch (type) {
    case 'JS_CALL': case 'SCRIPT_COMPILATION': case 'SCRIPT_THREAD_EVALUATION': return 0;
    case 'LAYOUT': case 'REFLOW': case 'STYLE_RECALCULATION': case 'CSS_SELECTOR_MATCHING': case 'CSS_PARSING': return 2;
    case 'PAINT': return 3;
    case 'DOCUMENT_PARSING': return 4;
    default: return 5;
  }
}

// An axis tick at `t` ms with the digits that tell ticks `step` ms apart: "24.5 s" at 0.5 s a
// tick, "24.5012 s" at 0.1 ms, "12.35 ms" at 0.01 ms; never one label repeated across ticks.
export function tickLabel(t, step) {
  const digits = (unit) => Math.max(0, Math.ceil(-Math.log10(step / unit) - 1e-9));
  if (Math.abs(t) >= 1000 || step >= 1000) return `${(t / 1000).toFixed(digits(1000))} s`;
  return `${t.toFixed(digits(1))} ms`;
}

function niceStep(raw) {
  const p = Math.pow(10, Math.floor(Math.log10(raw)));
  const m = raw / p;
  return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}
