// The Performance panel's bottom panel for a trace: the details drawer of what was clicked in
// the chart (a network request, a trace event, a JS call) and the Summary of a selection (its
// time by DevTools' categories). Every number is one the documents carry — `jsprof network
// --json`'s request, the chart document's event, the profile document's function row, the
// service's `…/summary` (`jsprof summary --range --json`) — formatted with the CLI's formatters;
// nothing is computed here.
import { fmtMs, fmtBytes, fmtPct, fmtLocation, displayName, esc, eventTitle, typeTitle } from 'jsprof/format.js';
import { treeNodes } from 'jsprof/calltree.js';

// DevTools' colours of its categories (the Performance panel's `--app-color-*`).
const CATEGORY_COLORS = {
  loading: '#4e85ec', experience: '#e9a9a3', messaging: '#d2b2f4', scripting: '#f2c14c', rendering: '#a887e0',
  painting: '#6fbf73', gpu: '#6fbf73', async: '#9da1a6', other: '#c4c6c9', idle: '#eef0f2',
};

// A two-column table of [label, value html, field] rows; `field` names the row for tests.
function fields(rows) {
  return '<table class="drawer-fields">' + rows.filter(Boolean).map(([k, v, f]) =>
    `<tr${f ? ` data-field="${esc(f)}"` : ''}><th>${esc(k)}</th><td>${v}</td></tr>`).join('') + '</table>';
}

// A request of the network document, as its lane's click shows it.
export function requestDetails(r) {
  const head = `<span class="name">${esc(r.url)}</span>`;
  return head + fields([
    ['Method', esc(r.method || ''), 'method'], ['Status', esc(String(r.status ?? '')), 'status'],
    ['Protocol', esc(r.protocol || ''), 'protocol'], ['Priority', esc(r.priority || ''), 'priority'],
    ['Type', esc([r.resource_type, r.mime_type].filter(Boolean).join(' · ')), 'type'],
    r.render_blocking ? ['Render-blocking', esc(r.render_blocking), 'render_blocking'] : null,
    ['Start', fmtMs(r.start_ms), 'start_ms'], ['Queueing', fmtMs(r.queueing_ms), 'queueing_ms'],
    ['Stalled', fmtMs(r.stalled_ms), 'stalled_ms'], ['Request sent at', fmtMs(r.send_start_ms), 'send_start_ms'],
    ['Waiting', fmtMs(r.waiting_ms), 'waiting_ms'], ['Server response', fmtMs(r.server_response_ms), 'server_response_ms'],
    ['Download', fmtMs(r.download_ms), 'download_ms'], ['Total', fmtMs(r.dur_ms), 'dur_ms'],
    ['Transfer size', fmtBytes(r.transfer_size), 'transfer_size'], ['Decoded body', fmtBytes(r.decoded_body_size), 'decoded_body_size'],
    r.from_cache ? ['From cache', 'yes', 'from_cache'] : null,
    r.initiator_url ? ['Initiator', esc(r.initiator_url), 'initiator_url'] : null,
  ]);
}

// A call or event of the chart (`e`: the chart document's {name, type, url, line, column, s, d,
// self}); `fn`: a JS function's row of the Functions table in the selection ({self, total} in the
// profile's unit), `link`: whether its location opens the source panel.
export function eventDetails(e, fn, link, unit) {
  const loc = fmtLocation(e.url, e.line, e.column);
  const title = e.type !== 'JS_CALL' ? eventTitle(e.name) : null;
  const locHtml = link && loc ? `<a href="#" class="loc srclink" title="Show the source with line costs">${esc(loc)}</a>` : loc ? `<span class="loc">${esc(loc)}</span>` : '';
  const head = `<span class="name">${esc(title || displayName(e.name))}</span> ${title ? `<span class="loc">${esc(e.name)}</span> ` : ''}${locHtml}` +
    ` · start ${fmtMs(e.s)} · total ${fmtMs(e.d)} · self ${fmtMs(e.self)} · ${esc(typeTitle(e.type))}`;
  const weight = (v) => (unit === 'bytes' ? fmtBytes(v) : fmtMs(v));
  return head + fields([
    ['Title', esc(title || displayName(e.name)), 'title'], title ? ['Event', esc(e.name), 'name'] : null,
    ['Start', fmtMs(e.s), 'start_ms'], ['Duration', fmtMs(e.d), 'dur_ms'], ['Self time', fmtMs(e.self), 'self_ms'],
    ['Type', esc(typeTitle(e.type)), 'type'],
    loc ? ['Location', locHtml, 'location'] : null,
    fn ? ['Function self in the selection', weight(fn.self), 'fn_self'] : null,
    fn ? ['Function total in the selection', weight(fn.total), 'fn_total'] : null,
  ]);
}

// The Functions table's row of a function (the bottom-up roots of the profile document), or null.
export function functionRow(profile, f) {
  if (!profile || !profile.bottom_up) return null;
  return treeNodes(profile, profile.bottom_up).find((n) => n.name === f.name && (n.url || '') === (f.url || '') && n.line === f.line && n.column === f.column) || null;
}

// The Summary of a selection (`SelectionSummaryReport`): a stacked bar and a table, ms and % of
// each category, Idle last.
export function renderSummary(node, doc) {
  node.textContent = '';
  const wrap = document.createElement('div');
  wrap.className = 'summary-panel';
  const bar = doc.categories.map((c) => `<span class="summary-seg" style="flex:${Math.max(c.ms, 0)} 0 0;background:${CATEGORY_COLORS[c.category] || '#ccc'}" title="${esc(c.title)} ${fmtMs(c.ms)}"></span>`).join('');
  const rows = doc.categories.map((c) => `<tr data-category="${esc(c.category)}"><td><span class="summary-swatch" style="background:${CATEGORY_COLORS[c.category] || '#ccc'}"></span>${esc(c.title)}</td>` +
    `<td class="num" data-ms>${fmtMs(c.ms)}</td><td class="num">${fmtPct(c.percent)}</td></tr>`).join('');
  wrap.innerHTML = `<div class="summary-head">Range ${fmtMs(doc.start_ms)} – ${fmtMs(doc.end_ms)} · <span data-total>${fmtMs(doc.total_ms)}</span> on ${esc(doc.thread)}</div>` +
    `<div class="summary-bar">${bar}</div><table class="summary-table"><tbody>${rows}</tbody><tfoot><tr><td>Total</td><td class="num">${fmtMs(doc.total_ms)}</td><td></td></tr></tfoot></table>`;
  node.append(wrap);
}
