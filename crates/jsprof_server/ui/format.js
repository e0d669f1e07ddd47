// Units everywhere: times as the CLI prints them, sizes in KB/MB/GB (1 KB = 1024 B).

export function fmtMs(v) {
  if (v == null || !isFinite(v)) return '–';
  const a = Math.abs(v);
  if (a >= 1000) return (v / 1000).toFixed(a >= 100000 ? 0 : a >= 10000 ? 1 : 2) + ' s';
  if (a >= 100) return v.toFixed(1) + ' ms';
  if (a >= 10) return v.toFixed(1) + ' ms';
  if (a >= 1) return v.toFixed(2) + ' ms';
  if (a === 0) return '0 ms';
  if (a >= 0.001) return v.toFixed(3) + ' ms';
  return (v * 1000).toFixed(2) + ' µs';
}

export function fmtBytes(v) {
  if (v == null || !isFinite(v)) return '–';
  const a = Math.abs(v);
  if (a < 1024) return v + ' B';
  if (a < 1024 * 1024) return (v / 1024).toFixed(a < 10240 ? 1 : 0) + ' KB';
  if (a < 1024 ** 3) return (v / 1024 ** 2).toFixed(a < 10 * 1024 ** 2 ? 2 : 1) + ' MB';
  return (v / 1024 ** 3).toFixed(2) + ' GB';
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

export function displayName(name) {
  return name === '' ? '(anonymous)' : name;
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
