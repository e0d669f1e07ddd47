// The source panel: a function's source with the self time V8 counted on each line (DevTools'
// Sources gutter), drawn from the server's `…/lines` answer — `jsprof lines --json`'s document,
// so every number here is the CLI's. A gutter of self ms and % with a heat bar per line,
// scrolled to the hottest line.
import { fmtMs, fmtPct, fmtLocation, displayName, el } from 'jsprof/format.js';

const STYLE = `
.source-panel { position: fixed; z-index: 15; top: 0; right: 0; bottom: 0; width: min(900px, 70vw); display: flex; flex-direction: column;
  background: var(--bg, #fff); border-left: 1px solid var(--line, #d0d7de); box-shadow: -4px 0 12px rgba(0,0,0,.12); }
.source-panel header { display: flex; align-items: baseline; gap: 10px; padding: 8px 12px; border-bottom: 1px solid var(--line, #d0d7de); }
.source-panel header h2 { font-size: 14px; margin: 0; }
.source-panel header .loc { color: var(--muted, #57606a); font-size: 12px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; flex: 1; direction: rtl; text-align: left; }
.source-panel header button { border: 0; background: none; font-size: 18px; cursor: pointer; color: inherit; }
.source-panel .sums { padding: 6px 12px; font-size: 12px; border-bottom: 1px solid var(--line, #d0d7de); }
.source-panel .why { padding: 6px 12px; font-size: 12px; color: var(--warn, #9a6700); background: #fff8c5; }
.source-panel .code { flex: 1; overflow: auto; font: 12px/1.5 ui-monospace, SFMono-Regular, Menlo, monospace; }
.source-panel table { border-collapse: collapse; width: 100%; }
.source-panel td { padding: 0 6px; white-space: pre; vertical-align: top; }
.source-panel td.ms, .source-panel td.pc { text-align: right; color: var(--muted, #57606a); width: 1%; }
.source-panel td.heat { width: 60px; padding: 3px 6px; }
.source-panel td.heat div { height: 12px; background: #e5534b; border-radius: 2px; min-width: 1px; }
.source-panel td.ln { text-align: right; color: var(--muted, #57606a); width: 1%; border-right: 1px solid var(--line, #d0d7de); }
.source-panel tr.hot td { background: #fff1e5; }
.source-panel tr.hottest td.ln { font-weight: 700; color: #bc4c00; }
@media (prefers-color-scheme: dark) { .source-panel tr.hot td { background: #3d2a1a; } .source-panel .why { background: #3a3000; } }
`;

export class SourcePanel {
  constructor() {
    if (!document.getElementById('source-panel-style')) document.head.append(el('style', { id: 'source-panel-style', text: STYLE }));
    this.title = el('h2');
    this.loc = el('span', { class: 'loc' });
    const close = el('button', { type: 'button', 'aria-label': 'Close the source', text: '×' });
    close.addEventListener('click', () => this.close());
    this.sums = el('div', { class: 'sums' });
    this.why = el('div', { class: 'why', hidden: true });
    this.code = el('div', { class: 'code' });
    this.node = el('aside', { id: 'source-panel', class: 'source-panel', role: 'dialog', 'aria-label': 'Source with per-line cost', hidden: true },
      el('header', null, this.title, this.loc, close), this.sums, this.why, this.code);
    document.body.append(this.node);
    document.addEventListener('keydown', (e) => { if (e.key === 'Escape' && !this.node.hidden) this.close(); });
    this.doc = null; // the last answer shown (the tests read it)
  }

  close() { this.node.hidden = true; }

  // Shows function `d` ({name, url, line, column}) of artifact `art` (its `lines` method asks the
  // server), on the tables' timeline.
  async open(art, d, timeline) {
    this.node.hidden = false;
    this.title.textContent = displayName(d.name);
    this.loc.textContent = fmtLocation(d.url, d.line, d.column);
    this.sums.textContent = 'Loading…';
    this.why.hidden = true;
    this.code.textContent = '';
    let doc;
    try {
      doc = await art.lines(d, timeline);
    } catch (err) {
      this.sums.textContent = '';
      this.why.hidden = false;
      this.why.textContent = String(err.message || err);
      return;
    }
    this.doc = doc;
    this.draw(doc);
  }

  draw(doc) {
    const f = doc.functions[0];
    const notes = [];
    if (doc.note) notes.push(doc.note);
    if (f.source_note) notes.push(`No source text: ${f.source_note}`);
    this.why.textContent = notes.join(' ');
    this.why.hidden = !notes.length;
    this.sums.textContent = `Self ${fmtMs(f.self_ms)} (${fmtPct(f.self_percent)}) · total ${fmtMs(f.total_ms)} (${fmtPct(f.total_percent)}) · `
      + `${f.ticks.toLocaleString('en-US')} ${doc.line_source === 'sample_lines' ? 'samples with a line' : 'line ticks'} = ${fmtMs(f.lines_self_ms)}`
      + (doc.tick_ms ? ` (one tick: ${fmtMs(doc.tick_ms)})` : '')
      + (f.source_file ? ` · ${f.source_file}` : '');
    const max = Math.max(0, ...f.lines.map((l) => l.self_ms));
    const body = el('tbody');
    let hottest = null;
    for (const l of f.lines) {
      const hot = l.ticks > 0;
      const tr = el('tr', { class: (hot ? 'hot' : '') + (l.line === f.hottest_line ? ' hottest' : ''), 'data-line': l.line });
      const bar = el('div', { style: `width:${max > 0 ? ((l.self_ms * 100) / max).toFixed(1) : 0}%` });
      tr.append(
        el('td', { class: 'ms', text: hot ? fmtMs(l.self_ms) : '' }),
        el('td', { class: 'pc', text: hot ? fmtPct(l.self_percent) : '' }),
        el('td', { class: 'heat' }, hot ? bar : ''),
        el('td', { class: 'ln', text: String(l.line) }),
        el('td', { class: 'src', text: l.text == null ? '' : l.text }),
      );
      if (l.line === f.hottest_line) hottest = tr;
      body.append(tr);
    }
    const table = el('table', null, body);
    this.code.append(table);
    if (hottest) hottest.scrollIntoView({ block: 'center' });
  }
}
