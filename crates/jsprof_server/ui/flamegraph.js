// The flame graph: the top-down tree with the root at the bottom, siblings heaviest first, widths
// proportional to total. Click zooms into a frame (its ancestors stay, faded); a search
// highlights matching frames and gives the share of time they cover. Stacks deeper than the
// canvas scroll (the wheel, or ↑/↓), and a zoomed frame is brought into view.
import { fmtWeight, fmtPct, fmtLocation, displayName, frameLabel, esc, hash, showTooltip, hideTooltip, el, theme, onThemeChange } from 'jsprof/format.js';

const FG_ROW = 18;

export class FlameGraph {
  constructor(root, profile, opts = {}) {
    this.o = opts;
    this.wrap = el('div', { class: 'chart-wrap' });
    this.canvas = el('canvas', { tabindex: 0, 'aria-label': 'Flame graph: click a frame to zoom, Escape to zoom out' });
    this.canvas.style.cursor = 'pointer';
    this.wrap.append(this.canvas);
    root.append(this.wrap);
    this.ctx = this.canvas.getContext('2d', { alpha: false });
    this.setProfile(profile);
    this.bind();
    this.ro = new ResizeObserver(() => this.resize());
    this.ro.observe(this.wrap);
    onThemeChange(() => this.draw());
  }

  setProfile(profile) {
    this.p = profile;
    const nodes = profile.top_down.nodes, n = nodes.p.length;
    // Layout: x (in weight units from the left) and depth, children left to right heaviest first.
    this.x = new Float64Array(n);
    this.depth = new Int32Array(n);
    const next = new Float64Array(n);
    let rootX = 0, maxDepth = 0;
    this.total = 0;
    for (let i = 0; i < n; i++) {
      const p = nodes.p[i];
      if (p < 0) { this.x[i] = rootX; rootX += nodes.t[i]; this.depth[i] = 0; }
      else { this.x[i] = this.x[p] + next[p]; next[p] += nodes.t[i]; this.depth[i] = this.depth[p] + 1; }
      if (this.depth[i] > maxDepth) maxDepth = this.depth[i];
    }
    this.total = rootX;
    this.maxDepth = maxDepth;
    this.zoomNode = -1;
    this.match = null;
    this.scrollY = 0;
    this.redraw();
  }

  // How far the rows may scroll: the deepest row's top reaches the canvas's top, a row spare.
  maxScroll() {
    return Math.max(0, (this.maxDepth + 2) * FG_ROW - this.wrap.clientHeight);
  }

  scrollTo(px) {
    this.scrollY = Math.max(0, Math.min(this.maxScroll(), px));
    this.redraw();
  }

  visibleRows() { return Math.floor(this.wrap.clientHeight / FG_ROW); }

  // The deepest frame (the heaviest of those at the largest depth).
  deepest() {
    const t = this.p.top_down.nodes.t;
    let best = -1;
    for (let i = 0; i < this.depth.length; i++) {
      if (this.depth[i] === this.maxDepth && (best < 0 || t[i] > t[best])) best = i;
    }
    return best;
  }

  // Zooms into frame i (-1: out) and scrolls so that it sits near the bottom with its callees
  // above it, as far as the rows allow.
  zoomTo(i) {
    this.zoomNode = i;
    if (i < 0) this.scrollY = 0;
    else this.scrollTo((this.depth[i] + 3) * FG_ROW - this.wrap.clientHeight / 2 - FG_ROW);
    this.redraw();
  }

  rowY(i) { return this.wrap.clientHeight - (this.depth[i] + 1) * FG_ROW + this.scrollY; }

  // Where frame i is drawn, in the page's coordinates (null when it is not drawn).
  frameBox(i) {
    if (i < 0) return null;
    const [w0, w1] = this.window(), W = this.wrap.clientWidth, k = W / Math.max(1e-9, w1 - w0);
    const r = this.canvas.getBoundingClientRect();
    const x = (this.x[i] - w0) * k, w = this.p.top_down.nodes.t[i] * k;
    return { x: r.left + x, y: r.top + this.rowY(i), w, h: FG_ROW - 1 };
  }

  resize() {
    const dpr = window.devicePixelRatio || 1;
    this.canvas.width = Math.round(this.wrap.clientWidth * dpr);
    this.canvas.height = Math.round(this.wrap.clientHeight * dpr);
    this.dpr = dpr;
    this.redraw();
  }

  redraw() {
    if (this.pending) return;
    this.pending = requestAnimationFrame(() => { this.pending = 0; this.draw(); });
  }

  search(fn) {
    this.match = fn;
    this.redraw();
    if (!fn) return null;
    // The share covered by matching frames, each sample once (outermost matches only).
    const nodes = this.p.top_down.nodes, n = nodes.p.length, hit = new Uint8Array(n);
    let covered = 0;
    // Every matching frame, left to right then root to leaf: what Enter steps through.
    this.hits = [];
    for (let i = 0; i < n; i++) {
      const p = nodes.p[i];
      const own = fn(this.label(i));
      if (own) this.hits.push(i);
      if (p >= 0 && hit[p]) { hit[i] = 1; continue; }
      if (own) { hit[i] = 1; covered += nodes.t[i]; }
    }
    this.hits.sort((a, b) => this.x[a] - this.x[b] || this.depth[a] - this.depth[b]);
    return covered;
  }

  // The function of frame i, as the tables and the chart name it.
  keyOf(i) {
    const f = this.p.functions[this.p.top_down.nodes.f[i]], s = this.p.strings;
    return { name: s[f[0]], url: s[f[1]], line: f[2], column: f[3] };
  }

  label(i) {
    const f = this.p.functions[this.p.top_down.nodes.f[i]], s = this.p.strings;
    return displayName(s[f[0]]) + ' ' + fmtLocation(s[f[1]], f[2], f[3]);
  }

  window() {
    if (this.zoomNode < 0) return [0, this.total];
    const t = this.p.top_down.nodes.t;
    return [this.x[this.zoomNode], this.x[this.zoomNode] + t[this.zoomNode]];
  }

  isAncestor(a, i) {
    const p = this.p.top_down.nodes.p;
    for (let q = p[i]; q >= 0; q = p[q]) if (q === a) return true;
    return false;
  }

  draw() {
    const ctx = this.ctx, dpr = this.dpr || 1, W = this.wrap.clientWidth, H = this.wrap.clientHeight;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = theme.bg; ctx.fillRect(0, 0, W, H);
    const nodes = this.p.top_down.nodes, s = this.p.strings, n = nodes.p.length;
    const [w0, w1] = this.window();
    const k = W / Math.max(1e-9, w1 - w0);
    ctx.font = '11px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
    ctx.textBaseline = 'middle';
    const charW = ctx.measureText('abcdefghijklmnopqrstuvwxyz').width / 26;
    const z = this.zoomNode;
    for (let i = 0; i < n; i++) {
      const ancestor = z >= 0 && (i === z || this.isAncestor(i, z));
      let x, w;
      if (ancestor && i !== z) { x = 0; w = W; }
      else {
        x = (this.x[i] - w0) * k; w = nodes.t[i] * k;
        if (x + w < 0 || x > W || w < 0.3) continue;
        if (z >= 0 && i !== z && !this.isAncestor(z, i)) continue;
      }
      const y = this.rowY(i);
      if (y + FG_ROW < 0 || y > H) continue;
      const f = this.p.functions[nodes.f[i]], name = s[f[0]], url = s[f[1]];
      let color;
      if (name.startsWith('(')) color = '#d0d5db';
      else { const h = hash(url || name); color = `hsl(${20 + (h % 35)}, ${70 + (h >> 8) % 20}%, ${58 + (h >> 12) % 16}%)`; }
      if (this.match) color = this.match(this.label(i)) ? '#e040fb' : '#e4e7eb';
      ctx.globalAlpha = ancestor && i !== z ? 0.55 : 1;
      ctx.fillStyle = color;
      ctx.fillRect(x, y, Math.max(0.5, w - (w > 3 ? 1 : 0)), FG_ROW - 1);
      if (w > charW * 4) {
        let t = displayName(name);
        const fit = Math.floor((w - 6) / charW);
        if (t.length > fit) t = t.slice(0, Math.max(1, fit - 1)) + '…';
        ctx.fillStyle = '#1f2328';
        ctx.fillText(t, Math.max(x, 0) + 3, y + FG_ROW / 2);
      }
      ctx.globalAlpha = 1;
    }
    // A scroll bar when the rows are taller than the canvas.
    const all = (this.maxDepth + 2) * FG_ROW;
    if (all > H) {
      const h = Math.max(20, (H * H) / all), top = (H - h) * (1 - this.scrollY / Math.max(1, this.maxScroll()));
      ctx.fillStyle = 'rgba(0,0,0,0.25)';
      ctx.fillRect(W - 6, top, 4, h);
    }
  }

  hit(mx, my) {
    const nodes = this.p.top_down.nodes, n = nodes.p.length, H = this.wrap.clientHeight, W = this.wrap.clientWidth;
    const depth = Math.floor((H + this.scrollY - my) / FG_ROW);
    const [w0, w1] = this.window(), k = W / (w1 - w0), z = this.zoomNode;
    for (let i = 0; i < n; i++) {
      if (this.depth[i] !== depth) continue;
      if (z >= 0 && i !== z && this.isAncestor(i, z)) return i;
      const x = (this.x[i] - w0) * k, w = nodes.t[i] * k;
      if (mx >= x && mx <= x + w && (z < 0 || i === z || this.isAncestor(z, i))) return i;
    }
    return -1;
  }

  // Frame i's call path from the root, as `--focus-stack` takes it.
  stackOf(i) {
    const nodes = this.p.top_down.nodes, s = this.p.strings, labels = [];
    for (let n = i; n >= 0; n = nodes.p[n]) {
      const f = this.p.functions[nodes.f[n]];
      labels.push(frameLabel(s[f[0]], s[f[1]], f[2], f[3]));
    }
    return labels.reverse();
  }

  bind() {
    const c = this.canvas;
    c.addEventListener('mousemove', (e) => {
      const r = c.getBoundingClientRect(), i = this.hit(e.clientX - r.left, e.clientY - r.top);
      if (i < 0) { hideTooltip(); return; }
      const nodes = this.p.top_down.nodes, f = this.p.functions[nodes.f[i]], s = this.p.strings, u = this.p.unit, T = this.p.total;
      const loc = fmtLocation(s[f[1]], f[2], f[3]);
      showTooltip(`<div class="tt-name">${esc(displayName(s[f[0]]))}</div>` + (loc ? `<div class="tt-loc">${esc(loc)}</div>` : '') +
        `<table><tr><td>Total</td><td>${fmtWeight(nodes.t[i], u)} (${fmtPct(nodes.t[i] * 100 / T)})</td></tr>` +
        `<tr><td>Self</td><td>${fmtWeight(nodes.s[i], u)} (${fmtPct(nodes.s[i] * 100 / T)})</td></tr></table>`, e.clientX, e.clientY);
    });
    c.addEventListener('mouseleave', hideTooltip);
    c.addEventListener('click', (e) => {
      const r = c.getBoundingClientRect(), i = this.hit(e.clientX - r.left, e.clientY - r.top);
      this.zoomTo(i);
      if (i >= 0 && this.o.onSelect) this.o.onSelect(this.keyOf(i));
    });
    // Right-click on a frame: the page's menu of transforms for its function.
    c.addEventListener('contextmenu', (e) => {
      const r = c.getBoundingClientRect(), i = this.hit(e.clientX - r.left, e.clientY - r.top);
      if (i < 0 || !this.o.onContext) return;
      e.preventDefault();
      hideTooltip();
      this.o.onContext({ ...this.keyOf(i), stack: this.stackOf(i) }, e);
    });
    c.addEventListener('wheel', (e) => {
      if (!this.maxScroll()) return;
      e.preventDefault();
      // Wheel down shows the shallower rows (the root is at the bottom), as a page scrolls.
      this.scrollTo(this.scrollY - e.deltaY);
    }, { passive: false });
    c.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') this.zoomTo(-1);
      else if (e.key === 'ArrowUp') { e.preventDefault(); this.scrollTo(this.scrollY + FG_ROW * 3); }
      else if (e.key === 'ArrowDown') { e.preventDefault(); this.scrollTo(this.scrollY - FG_ROW * 3); }
    });
  }
}
