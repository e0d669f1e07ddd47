// The page's tracks above the threads, as DevTools' Performance panel stacks them: Network (a
// waterfall lane per request), Frames (the filmstrip), Timings (marks and measures, nested),
// Interactions (input delay, processing, presentation delay) and Layout shifts. Each is a lane
// of the FlameChart (flamechart.js), so it follows the chart's zoom, pan and range selection.
// Every number drawn is read from the documents `jsprof network|timings|insights --json` print
// (and the filmstrip document): nothing here computes a metric, it only places them.
import { fmtMs, fmtBytes, esc } from 'jsprof/format.js';

const FONT = '11px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';

// DevTools' colours per resource type (its network category colours).
const TYPE_COLORS = {
  Document: '#4b8bf5', Stylesheet: '#a970e0', Script: '#f0b53d', Image: '#5fb96a', Media: '#5fb96a',
  Font: '#3dc2c2', XHR: '#e0a860', Fetch: '#e0a860', WebSocket: '#9aa4ad', Manifest: '#9aa4ad',
};
const typeColor = (t) => TYPE_COLORS[t] || '#9aa4ad';
const BLOCKING = new Set(['blocking', 'in_body_parser_blocking', 'dynamically_injected_blocking']);

// What the Insights sidebar asks to show: the requests of an insight, its phases (labelled
// windows, e.g. the LCP breakdown), its related trace events (`outline`, drawn by the flame
// chart on the threads' tracks) and its related events these lanes draw (`lanes`: {requests
// (ids), interactions, shifts, clusters (start ms), marks [{label, ts_ms}]}, each outlined in
// red with the rest of its lane dimmed). `null` sets: nothing highlighted.
export function newHighlight() {
  return { key: null, requests: null, windows: [], outline: null, lanes: null };
}

const OUTLINE = '#cf222e';
// Whether start `t` (ms) is one of `list`'s (the documents round to the µs).
const listed = (list, t) => list.some((x) => Math.abs(x - t) < 0.0015);

// A lane's count of outlined and dimmed items, reset each draw (for tests and the status).
function tally(lane) {
  lane.stats.outlined = 0; lane.stats.dimmed = 0;
  return {
    lit(n = 1) { lane.stats.outlined += n; },
    dim(n = 1) { lane.stats.dimmed += n; },
  };
}

// A label cut to fit `room` px.
function fit(ctx, text, room) {
  if (room < 12) return '';
  if (ctx.measureText(text).width <= room) return text;
  let lo = 0, hi = text.length;
  while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (ctx.measureText(text.slice(0, mid) + '…').width <= room) lo = mid; else hi = mid - 1; }
  return lo ? text.slice(0, lo) + '…' : '';
}

// `text` cut to fit `room` px, drawn at (x, y) in the text color when any of it fits.
function label(ctx, text, room, x, y) {
  const cut = fit(ctx, text, room);
  if (cut) { ctx.fillStyle = '#1f2328'; ctx.fillText(cut, x, y); }
}

// A bar's label: after its end when it fits there, else before its start, else inside the part
// of the bar in view (a request that runs past both edges of a zoomed chart keeps its name),
// else cut to the largest of the three rooms.
function sideLabel(ctx, text, xs, xe, right, y) {
  const after = right - Math.max(0, xe) - 6, before = Math.min(xs, right) - 6;
  const inside = Math.min(xe, right) - Math.max(0, xs) - 8;
  const width = ctx.measureText(text).width;
  // [room, x where the text starts]; before the start, x follows from the text's cut width.
  const places = [[after, Math.max(0, xe) + 4], [before, null], [inside, Math.max(0, xs) + 4]];
  const [room, x0] = places.find(([r]) => width <= r) ?? places.reduce((a, b) => (b[0] > a[0] ? b : a));
  const cut = fit(ctx, text, room);
  if (!cut) return;
  const x = x0 ?? Math.min(xs, right) - 4 - ctx.measureText(cut).width;
  ctx.fillStyle = '#1f2328';
  ctx.fillText(cut, x, y);
}

// An item the insight points at, outlined in red, and counted as lit.
function outlineRect(ctx, t, x, y, w, h) {
  ctx.strokeStyle = OUTLINE; ctx.lineWidth = 2;
  ctx.strokeRect(x, y, w, h);
  t.lit();
}

// The end of a row's bar from XS to XE: opaque again, and outlined when the insight points at it.
function endBar(ctx, t, lit, xs, xe, y, h) {
  ctx.globalAlpha = 1;
  if (lit) outlineRect(ctx, t, xs - 1, y + 1, Math.max(2, xe - xs) + 2, h - 2);
}

const table = (rows) => '<table>' + rows.filter(Boolean).map(([k, v]) => `<tr><td>${esc(k)}</td><td>${v}</td></tr>`).join('') + '</table>';
const lastSegment = (url) => { try { const u = new URL(url); return u.pathname.split('/').filter(Boolean).pop() || u.host; } catch { return url; } };

// Rows for spans so that overlapping ones never share a row, in start order.
function packRows(items, start, end) {
  const ends = [];
  const row = new Int32Array(items.length);
  items.forEach((it, i) => {
    let r = ends.findIndex((e) => e <= start(it));
    if (r < 0) { r = ends.length; ends.push(0); }
    ends[r] = end(it);
    row[i] = r;
  });
  return { row, rows: ends.length };
}

// Binary search: the last index with key(i) <= t, or -1.
function atOrBefore(n, key, t) {
  let lo = 0, hi = n;
  while (lo < hi) { const mid = (lo + hi) >> 1; if (key(mid) <= t) lo = mid + 1; else hi = mid; }
  return lo - 1;
}

function networkLane(requests, hl) {
  const ROWH = 14;
  const lane = {
    name: 'Network', count: requests.length, requests, stats: { drawn: 0, outlined: 0, dimmed: 0 },
    info: `${requests.length.toLocaleString('en-US')} request${requests.length === 1 ? '' : 's'}`,
    collapsed: requests.length > 200,
    height: () => requests.length * ROWH,
    // The px offset of a request's row in the lane (-1: not drawn here).
    rowOf: (id) => requests.findIndex((r) => r.request_id === id) * ROWH,
    draw(ctx, a) {
      const { top, W, t0, k } = a, x = (t) => (t - t0) * k;
      ctx.font = FONT; ctx.textBaseline = 'middle';
      let drawn = 0;
      const t = tally(lane), related = hl.lanes && hl.lanes.requests.size ? hl.lanes.requests : null;
      const first = Math.max(0, Math.floor((22 - top) / ROWH));
      for (let i = first; i < requests.length; i++) {
        const r = requests[i], y = top + i * ROWH;
        if (y > a.chart.height) break;
        if (r.end_ms < t0 || r.start_ms > a.t1) continue;
        const lit = related && related.has(r.request_id);
        const dim = related ? !lit : hl.requests && !hl.requests.has(r.request_id);
        if (dim) t.dim();
        const color = typeColor(r.resource_type);
        ctx.globalAlpha = dim ? 0.25 : 1;
        const xs = x(r.start_ms), xq = x(r.send_start_ms), xd = x(r.download_start_ms);
        const xf = x(Math.min(r.finish_ms, r.end_ms)), xe = x(r.end_ms), mid = y + ROWH / 2 - 0.5;
        // Queueing: the whisker before the request is sent; after the network finished, the
        // whisker to the main thread's ResourceFinish.
        ctx.fillStyle = '#8c959f';
        ctx.fillRect(xs, mid, Math.max(0, xq - xs), 1);
        ctx.fillRect(xf, mid, Math.max(0, xe - xf), 1);
        ctx.fillRect(xs, mid - 3, 1, 7);
        ctx.fillRect(xe - 1, mid - 3, 1, 7);
        // Sent and waiting (light), then the download (the type's colour).
        ctx.fillStyle = color; ctx.globalAlpha = (dim ? 0.25 : 1) * 0.45;
        ctx.fillRect(xq, y + 2, Math.max(1, xd - xq), ROWH - 4);
        ctx.globalAlpha = dim ? 0.25 : 1;
        ctx.fillRect(xd, y + 2, Math.max(1, xf - xd), ROWH - 4);
        if (BLOCKING.has(r.render_blocking)) {
          // Render-blocking: DevTools' red corner.
          ctx.fillStyle = '#cf222e';
          ctx.beginPath(); ctx.moveTo(xq, y + 2); ctx.lineTo(xq + 6, y + 2); ctx.lineTo(xq, y + 8); ctx.closePath(); ctx.fill();
        }
        if (r.failed || r.status >= 400) { ctx.fillStyle = '#cf222e'; ctx.fillRect(xq, y + ROWH - 3, Math.max(1, xf - xq), 1); }
        sideLabel(ctx, lastSegment(r.url), xs, xe, Math.min(W, a.chart.width), mid);
        // The insight's request, outlined from its start to its end.
        endBar(ctx, t, lit, xs, xe, y, ROWH);
        drawn++;
      }
      lane.stats.drawn = drawn;
    },
    hit(x, y, tm, k) {
      const i = Math.floor(y / ROWH), r = requests[i];
      if (!r) return null;
      const slop = 3 / k;
      return tm >= r.start_ms - slop && tm <= r.end_ms + slop ? { r, s: r.start_ms, d: r.dur_ms } : null;
    },
    tooltip({ r }) {
      return `<div class="tt-name">${esc(r.url)}</div><div class="tt-loc">${esc([r.resource_type, r.mime_type, r.status, r.priority + ' priority', r.protocol].filter((x) => x !== '' && x != null).join(' · '))}</div>` +
        table([
          ['Start', fmtMs(r.start_ms)], ['Queueing', fmtMs(r.queueing_ms)], ['Stalled', fmtMs(r.stalled_ms)],
          ['Server response', fmtMs(r.server_response_ms)], ['Download', fmtMs(r.download_ms)], ['Total', fmtMs(r.dur_ms)],
          ['Transfer size', fmtBytes(r.transfer_size)], ['Decoded body', fmtBytes(r.decoded_body_size)],
          BLOCKING.has(r.render_blocking) ? ['Render-blocking', esc(r.render_blocking)] : null,
          r.from_cache ? ['From cache', 'yes'] : null, r.initiator_url ? ['Initiator', esc(r.initiator_url)] : null,
        ]);
    },
  };
  return lane;
}

// The filmstrip: thumbnails along the axis, each slot showing the screenshot taken at or before
// its time (DevTools' Frames track). Images are fetched (or read from the report) when drawn.
function framesLane(frames, image, redraw) {
  const H = 46, cache = new Map();
  const load = (i) => {
    if (cache.has(i)) return cache.get(i);
    const entry = { img: null, url: null, failed: false };
    cache.set(i, entry);
    Promise.resolve(image(frames[i].index)).then((shot) => {
      if (!shot) { entry.failed = true; return; }
      entry.url = `data:${shot.mime};base64,${shot.data}`;
      const img = new Image();
      img.onload = () => {
        entry.img = img;
        redraw();
        // A tooltip waiting for it shows it now.
        for (const el of document.querySelectorAll(`#tooltip img[data-shot-index="${frames[i].index}"]`)) el.src = entry.url;
      };
      img.src = entry.url;
    }).catch(() => { entry.failed = true; });
    return entry;
  };
  const at = (t) => atOrBefore(frames.length, (i) => frames[i].ts_ms, t);
  const lane = {
    name: 'Frames', count: frames.length, stats: { drawn: 0 }, shown: null,
    info: `${frames.length.toLocaleString('en-US')} screenshot${frames.length === 1 ? '' : 's'}`,
    collapsed: false,
    height: () => H,
    draw(ctx, a) {
      const { top, W, t0, k } = a;
      const thumbW = 60;
      // Slots one thumbnail wide from the first screenshot on screen, each showing the page as
      // it was at the slot's start: the number of images drawn is bounded by the width.
      let drawn = 0;
      for (let x = Math.max(0, (frames[0].ts_ms - t0) * k); x < W; x += thumbW + 2) {
        const i = at(t0 + x / k);
        if (i < 0) continue;
        const e = frames[i].image ? load(i) : null;
        if (e && e.img) {
          const w = Math.min(thumbW, (e.img.width / Math.max(1, e.img.height)) * (H - 4));
          ctx.drawImage(e.img, x, top + 2, w, H - 4);
          ctx.strokeStyle = '#d0d7de'; ctx.lineWidth = 1; ctx.strokeRect(x + 0.5, top + 2.5, w - 1, H - 5);
        } else {
          ctx.fillStyle = '#eef1f4'; ctx.fillRect(x, top + 2, thumbW, H - 4);
        }
        drawn++;
      }
      // Where each screenshot was taken: a tick on the lane's floor.
      ctx.fillStyle = '#0969da';
      for (const f of frames) { const fx = (f.ts_ms - t0) * k; if (fx >= -1 && fx <= W + 1) ctx.fillRect(fx, top + H - 3, 1, 3); }
      lane.stats.drawn = drawn;
    },
    hit(x, y, tm) {
      const i = at(tm);
      return i < 0 ? null : { i, tm, s: frames[i].ts_ms, d: 0 };
    },
    // The screenshot at or before `tm` (ms): the tooltip of the Frames lane, the axis and the
    // overview.
    preview(tm) {
      const i = at(tm);
      if (i < 0) return null;
      const f = frames[i], e = f.image ? load(i) : null;
      lane.shown = { index: f.index, ts_ms: f.ts_ms, hovered_ms: tm };
      const img = f.image ? `<img class="tt-shot" alt="screenshot ${f.index}" data-shot-index="${f.index}" data-shot-ts="${f.ts_ms}"${e && e.url ? ` src="${e.url}"` : ''}>` : '<div class="tt-loc">(the image could not be read)</div>';
      return `<div class="tt-name">Screenshot ${f.index + 1} of ${frames.length}</div>${img}${table([['Taken at', fmtMs(f.ts_ms)], ['Hovered', fmtMs(tm)]])}`;
    },
    tooltip(item) { return lane.preview(item.tm); },
  };
  return lane;
}

function timingsLane(t) {
  const ROWH = 16;
  const marks = [...t.marks.map((m) => ({ ...m, what: 'mark' })), ...(t.console_timestamps || []).map((m) => ({ ...m, what: 'console.timeStamp' }))]
    .sort((a, b) => a.start_ms - b.start_ms);
  const spans = [...t.measures.map((m) => ({ ...m, what: 'measure' })), ...(t.console_timings || []).map((m) => ({ ...m, what: 'console.time' }))]
    .sort((a, b) => a.start_ms - b.start_ms || b.dur_ms - a.dur_ms);
  // Nested as DevTools nests them: a measure inside another goes a row below it.
  const open = [];
  let depth = 0;
  for (const m of spans) {
    while (open.length && open[open.length - 1] <= m.start_ms) open.pop();
    m.depth = open.length;
    open.push(m.start_ms + m.dur_ms);
    depth = Math.max(depth, m.depth + 1);
  }
  const lane = {
    name: 'Timings', count: marks.length + spans.length, marks: marks.length, measures: spans.length, stats: { drawn: 0 },
    info: `${marks.length} mark${marks.length === 1 ? '' : 's'} · ${spans.length} measure${spans.length === 1 ? '' : 's'}`,
    collapsed: false,
    height: () => (marks.length ? ROWH : 0) + depth * ROWH,
    draw(ctx, a) {
      const { top, W, t0, k } = a;
      ctx.font = FONT; ctx.textBaseline = 'middle';
      let drawn = 0;
      const base = top + (marks.length ? ROWH : 0);
      for (const m of spans) {
        const x0 = (m.start_ms - t0) * k, x1 = x0 + m.dur_ms * k;
        if (x1 < 0 || x0 > W) continue;
        const y = base + m.depth * ROWH;
        ctx.fillStyle = m.what === 'measure' ? '#f5d76e' : '#d9c7f5';
        ctx.fillRect(Math.max(-2, x0), y + 1, Math.max(1, Math.min(x1, W + 2) - Math.max(-2, x0)), ROWH - 2);
        label(ctx, m.name, Math.min(x1, W) - Math.max(0, x0) - 6, Math.max(0, x0) + 3, y + ROWH / 2);
        drawn++;
      }
      for (const m of marks) {
        const x = (m.start_ms - t0) * k;
        if (x < -6 || x > W + 6) continue;
        ctx.fillStyle = m.what === 'mark' ? '#bf8700' : '#8250df';
        ctx.beginPath(); ctx.moveTo(x, top + 2); ctx.lineTo(x + 4, top + ROWH / 2); ctx.lineTo(x, top + ROWH - 2); ctx.lineTo(x - 4, top + ROWH / 2); ctx.closePath(); ctx.fill();
        drawn++;
      }
      lane.stats.drawn = drawn;
    },
    hit(x, y, tm, k) {
      if (marks.length && y < ROWH) {
        let best = null, bd = 5 / k;
        for (const m of marks) { const d = Math.abs(m.start_ms - tm); if (d <= bd) { bd = d; best = m; } }
        return best && { m: best, s: best.start_ms, d: 0 };
      }
      const dpt = Math.floor((y - (marks.length ? ROWH : 0)) / ROWH);
      const m = spans.find((s) => s.depth === dpt && tm >= s.start_ms && tm <= s.start_ms + s.dur_ms);
      return m ? { m, s: m.start_ms, d: m.dur_ms } : null;
    },
    tooltip({ m }) {
      return `<div class="tt-name">${esc(m.name)}</div><div class="tt-loc">${m.what}</div>` +
        table([['Start', fmtMs(m.start_ms)], m.dur_ms != null ? ['Duration', fmtMs(m.dur_ms)] : null]);
    },
  };
  return lane;
}

function interactionsLane(all, hl) {
  const ROWH = 16;
  // DevTools' Interactions track leaves out the ones nested in a longer one of their kind (the
  // document marks them).
  const list = all.filter((i) => !i.nested).sort((a, b) => a.start_ms - b.start_ms);
  const { row, rows } = packRows(list, (i) => i.start_ms, (i) => i.start_ms + i.dur_ms);
  const hidden = all.length - list.length;
  const lane = {
    name: 'Interactions', count: list.length, stats: { drawn: 0, outlined: 0, dimmed: 0 },
    info: `${list.length} interaction${list.length === 1 ? '' : 's'}${hidden ? ` (${hidden} nested in them not shown)` : ''}`,
    collapsed: false,
    height: () => rows * ROWH,
    draw(ctx, a) {
      const { top, W, t0, k } = a;
      ctx.font = FONT; ctx.textBaseline = 'middle';
      let drawn = 0;
      const t = tally(lane), related = hl.lanes && hl.lanes.interactions.length ? hl.lanes.interactions : null;
      list.forEach((it, n) => {
        const x = (t) => (t - t0) * k, y = top + row[n] * ROWH, mid = y + ROWH / 2 - 0.5;
        const xs = x(it.start_ms), xp = x(it.processing_start_ms), xe = x(it.processing_end_ms), xz = x(it.start_ms + it.dur_ms);
        if (xz < 0 || xs > W) return;
        const lit = related && listed(related, it.start_ms);
        const dim = related ? !lit : hl.key && hl.interaction != null && hl.interaction !== it.interaction_id;
        if (dim) t.dim();
        ctx.globalAlpha = dim ? 0.3 : 1;
        // Input delay and presentation delay as whiskers, processing as the box.
        ctx.fillStyle = '#6e7781';
        ctx.fillRect(xs, mid, Math.max(0, xp - xs), 1); ctx.fillRect(xs, mid - 3, 1, 7);
        ctx.fillRect(xe, mid, Math.max(0, xz - xe), 1); ctx.fillRect(xz - 1, mid - 3, 1, 7);
        ctx.fillStyle = it.long ? '#f28b82' : '#a8c7fa';
        ctx.fillRect(xp, y + 2, Math.max(1, xe - xp), ROWH - 4);
        label(ctx, it.type, xe - xp - 6, xp + 3, mid);
        endBar(ctx, t, lit, xs, xz, y, ROWH);
        drawn++;
      });
      lane.stats.drawn = drawn;
    },
    hit(x, y, tm, k) {
      const r = Math.floor(y / ROWH), slop = 2 / k;
      const n = list.findIndex((it, j) => row[j] === r && tm >= it.start_ms - slop && tm <= it.start_ms + it.dur_ms + slop);
      return n < 0 ? null : { it: list[n], s: list[n].start_ms, d: list[n].dur_ms };
    },
    tooltip({ it }) {
      return `<div class="tt-name">${esc(it.type)}${it.long ? ' · long' : ''}</div><div class="tt-loc">interaction ${it.interaction_id}</div>` +
        table([['Start', fmtMs(it.start_ms)], ['Total', fmtMs(it.dur_ms)], ['Input delay', fmtMs(it.input_delay_ms)], ['Processing', fmtMs(it.processing_ms)], ['Presentation delay', fmtMs(it.presentation_delay_ms)]]);
    },
  };
  return lane;
}

function shiftsLane(shifts, clusters, hl) {
  const H = 18;
  const lane = {
    name: 'Layout shifts', count: shifts.length, stats: { drawn: 0, outlined: 0, dimmed: 0 },
    info: `${shifts.length} shift${shifts.length === 1 ? '' : 's'} · ${clusters.length} cluster${clusters.length === 1 ? '' : 's'}`,
    collapsed: false,
    height: () => H,
    draw(ctx, a) {
      const { top, W, t0, k } = a;
      let drawn = 0;
      const t = tally(lane), rel = hl.lanes && hl.lanes.shifts.length + hl.lanes.clusters.length ? hl.lanes : null;
      // The clusters (session windows) under the shifts.
      for (const c of clusters) {
        const x0 = (c.start_ms - t0) * k, x1 = x0 + c.dur_ms * k;
        if (x1 < 0 || x0 > W) continue;
        const lit = rel && listed(rel.clusters, c.start_ms);
        ctx.fillStyle = rel && !lit ? 'rgba(130,80,223,0.05)' : 'rgba(130,80,223,0.12)';
        const xa = Math.max(-2, x0), w = Math.max(1, Math.min(W + 2, x1) - xa);
        ctx.fillRect(xa, top + 1, w, H - 2);
        if (lit) outlineRect(ctx, t, xa, top + 1, w, H - 2);
      }
      for (const s of shifts) {
        const x = (s.ts_ms - t0) * k;
        if (x < -8 || x > W + 8) continue;
        const lit = rel && listed(rel.shifts, s.ts_ms), dim = rel && !lit;
        // Bigger shifts, bigger diamonds (as DevTools sizes them by score).
        const r = 3 + Math.min(5, Math.sqrt(s.score) * 10);
        ctx.globalAlpha = dim ? 0.25 : 1;
        ctx.fillStyle = '#8250df';
        ctx.beginPath(); ctx.moveTo(x, top + H / 2 - r); ctx.lineTo(x + r, top + H / 2); ctx.lineTo(x, top + H / 2 + r); ctx.lineTo(x - r, top + H / 2); ctx.closePath(); ctx.fill();
        ctx.globalAlpha = 1;
        if (lit) { ctx.strokeStyle = OUTLINE; ctx.lineWidth = 2; ctx.stroke(); t.lit(); }
        if (dim) t.dim();
        drawn++;
      }
      lane.stats.drawn = drawn;
    },
    hit(x, y, tm, k) {
      let best = null, bd = 8 / k;
      for (const s of shifts) { const d = Math.abs(s.ts_ms - tm); if (d <= bd) { bd = d; best = s; } }
      if (best) return { shift: best, s: best.ts_ms, d: 0 };
      const c = clusters.find((c) => tm >= c.start_ms && tm <= c.start_ms + c.dur_ms);
      return c ? { cluster: c, s: c.start_ms, d: c.dur_ms } : null;
    },
    tooltip(h) {
      if (h.cluster) return `<div class="tt-name">Layout shift cluster</div>${table([['Start', fmtMs(h.cluster.start_ms)], ['Duration', fmtMs(h.cluster.dur_ms)], ['Score', h.cluster.score.toFixed(4)], ['Shifts', h.cluster.shifts]])}`;
      const s = h.shift;
      return `<div class="tt-name">Layout shift</div>${table([['At', fmtMs(s.ts_ms)], ['Score', s.score.toFixed(4)], ['Weighted score', s.weighted_score_delta.toFixed(4)], ['Cluster', s.cluster + 1]])}`;
    },
  };
  return lane;
}

// The phases of the insight selected in the sidebar (e.g. the LCP breakdown), labelled, on the
// chart's axis: shown only while an insight with phases is selected.
function insightLane(hl) {
  const H = 18;
  const colors = ['#b6e3ff', '#ffd8b5', '#d8b9ff', '#aceebb', '#ffcecb'];
  const marks = () => (hl.lanes ? hl.lanes.marks : []);
  const lane = {
    name: 'Insight', count: 0, stats: { drawn: 0, outlined: 0, dimmed: 0 },
    get info() { return hl.title || ''; },
    collapsed: false,
    hidden: () => !hl.windows.length && !marks().length,
    height: () => H,
    draw(ctx, a) {
      const { top, W, t0, k } = a;
      ctx.font = FONT; ctx.textBaseline = 'middle';
      hl.windows.forEach((w, i) => {
        const x0 = (w.start_ms - t0) * k, x1 = (w.end_ms - t0) * k;
        if (x1 < 0 || x0 > W) return;
        ctx.fillStyle = colors[i % colors.length];
        ctx.fillRect(Math.max(-2, x0), top + 1, Math.max(1, Math.min(W + 2, x1) - Math.max(-2, x0)), H - 2);
        label(ctx, `${w.label} ${fmtMs(w.end_ms - w.start_ms)}`, Math.min(x1, W) - Math.max(0, x0) - 6, Math.max(0, x0) + 3, top + H / 2);
      });
      // The instants the insight points at (the LCP candidate): a red line and its label.
      const t = tally(lane);
      for (const m of marks()) {
        const x = (m.ts_ms - t0) * k;
        if (x < -2 || x > W + 2) continue;
        ctx.fillStyle = OUTLINE;
        ctx.fillRect(x - 1, top + 1, 2, H - 2);
        ctx.fillText(m.label, x + 3, top + H / 2);
        t.lit();
      }
    },
    hit(x, y, tm, k) {
      const m = marks().find((m) => Math.abs(m.ts_ms - tm) <= 4 / k);
      if (m) return { m, s: m.ts_ms, d: 0 };
      const w = hl.windows.find((w) => tm >= w.start_ms && tm <= w.end_ms);
      return w ? { w, s: w.start_ms, d: w.end_ms - w.start_ms } : null;
    },
    tooltip({ w, m }) {
      if (m) return `<div class="tt-name">${esc(m.label)} candidate</div>${table([['At', fmtMs(m.ts_ms)]])}`;
      return `<div class="tt-name">${esc(w.label)}</div>${table([['Start', fmtMs(w.start_ms)], ['End', fmtMs(w.end_ms)], ['Duration', fmtMs(w.end_ms - w.start_ms)]])}`;
    },
  };
  return lane;
}

// The lanes of a page-load trace, from its documents ({insights, network, timings, filmstrip,
// image(index) -> Promise<{mime, data}>}); a lane with nothing in it is left out. `redraw` is
// called when an image arrives.
export function pageLanes(page, hl, redraw) {
  const lanes = [insightLane(hl)];
  if (page.network && page.network.requests.length) lanes.push(networkLane(page.network.requests, hl));
  const frames = page.filmstrip ? page.filmstrip.frames : [];
  if (frames.length) lanes.push(framesLane(frames, page.image, redraw));
  const t = page.timings;
  if (t && t.marks.length + t.measures.length + (t.console_timings || []).length + (t.console_timestamps || []).length) lanes.push(timingsLane(t));
  const ins = page.insights;
  if (ins && ins.interactions.some((i) => !i.nested)) lanes.push(interactionsLane(ins.interactions, hl));
  if (ins && ins.layout_shifts.length) lanes.push(shiftsLane(ins.layout_shifts, ins.clusters, hl));
  return lanes.length > 1 ? lanes : [];
}
