import { INSPECTOR_TABS_SCRIPT } from './inspector-tabs-script';

/** @internal Which of the page's optional browser packages are installed beside rxslice. */
export interface InstalledBrowserPackages {
  /** `uplot`: the charts. */
  readonly uplot: boolean;
  /** `mermaid`: the statechart diagrams. */
  readonly mermaid: boolean;
  /** `@mermaid-js/layout-elk`: the diagrams' layout that keeps transition labels off the states. */
  readonly layoutElk: boolean;
}

/**
 * @internal The inspector page: one HTML document with its script, served by `serveInspector`
 * (`startInspector` for a recording, `rxslice watch --inspect` for live sessions).
 * Plain DOM (no framework); text goes in with `textContent`, never `innerHTML`, so nothing in a
 * recording runs as markup. It loads uPlot, and mermaid on the first visit to the Statecharts
 * tab, from the inspector server (`/vendor/...`). It lists the server's sessions and follows
 * them through one `EventSource` on `/api/stream` (server-sent events; no polling): new events
 * are fetched when the server says they committed, the selected event is kept, and while the
 * last event is selected the selection moves with the session.
 *
 * Only the optional packages that are installed are requested (a missing one would be a 404 and
 * an error in the browser console): where one is missing, the page says what it would show and
 * the command that installs it.
 */
export const inspectorPage = (installed: InstalledBrowserPackages): string => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>rxslice inspector</title>
<link rel="icon" href="data:,">
${installed.uplot ? '<link rel="stylesheet" href="/vendor/uPlot.min.css">\n' : ''}<style>
  :root { --row: 24px; --fg: #1d2330; --muted: #6b7280; --line: #e5e7eb; --sel: #dbeafe; --accent: #2563eb; }
  * { box-sizing: border-box; }
  body { margin: 0; font: 13px/1.4 system-ui, sans-serif; color: var(--fg); height: 100vh; display: flex; flex-direction: column; }
  header { padding: 8px 12px; border-bottom: 1px solid var(--line); display: flex; gap: 16px; align-items: baseline; flex-wrap: wrap; }
  header h1 { font-size: 15px; margin: 0; }
  header .muted, .muted { color: var(--muted); }
  main { flex: 1; display: grid; grid-template-columns: minmax(320px, 40%) 1fr; min-height: 0; }
  #left { border-right: 1px solid var(--line); display: flex; flex-direction: column; min-height: 0; }
  #filters { display: flex; gap: 6px; padding: 6px; border-bottom: 1px solid var(--line); align-items: center; }
  #filters select, #filters input { font: inherit; padding: 2px 4px; }
  #filters input { flex: 1; min-width: 60px; }
  #list { flex: 1; overflow-y: auto; position: relative; min-height: 0; }
  #spacer { position: relative; }
  .row { position: absolute; left: 0; right: 0; height: var(--row); line-height: var(--row); padding: 0 8px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; cursor: pointer; border-bottom: 1px solid #f3f4f6; font-family: ui-monospace, monospace; font-size: 12px; }
  .row:hover { background: #f9fafb; }
  .row.selected { background: var(--sel); }
  .row .seq { display: inline-block; width: 64px; color: var(--muted); }
  .row .chg { color: var(--muted); }
  #travel { padding: 6px; border-top: 1px solid var(--line); display: flex; gap: 8px; align-items: center; }
  #slider { flex: 1; }
  #right { display: flex; flex-direction: column; min-height: 0; }
  nav { display: flex; border-bottom: 1px solid var(--line); }
  nav button { font: inherit; border: 0; background: none; padding: 8px 12px; cursor: pointer; border-bottom: 2px solid transparent; }
  nav button.active { border-bottom-color: var(--accent); color: var(--accent); }
  #panel { flex: 1; overflow: auto; padding: 10px 12px; min-height: 0; }
  pre { margin: 4px 0; padding: 6px; background: #f8fafc; border: 1px solid var(--line); border-radius: 4px; overflow: auto; max-height: 360px; font-size: 12px; }
  details { margin-bottom: 6px; }
  summary { cursor: pointer; }
  table { border-collapse: collapse; width: 100%; }
  td, th { text-align: left; padding: 3px 6px; border-bottom: 1px solid var(--line); font-size: 12px; }
  .ok { color: #15803d; } .bad { color: #b91c1c; } .warn { color: #b45309; }
  .machine svg { max-width: 100%; height: auto; }
  .band { display: flex; height: 18px; border: 1px solid var(--line); margin: 2px 0 8px; }
  .band div { height: 100%; }
  .legend span { display: inline-block; margin-right: 10px; }
  .legend i { display: inline-block; width: 10px; height: 10px; margin-right: 4px; vertical-align: middle; }
  .error { color: #b91c1c; white-space: pre-wrap; }
  #session { font: inherit; padding: 2px 4px; max-width: 420px; }
  #live.on { color: #15803d; } #live.off { color: #b91c1c; }
</style>
</head>
<body>
<header>
  <h1>rxslice inspector</h1>
  <select id="session" aria-label="session" hidden></select>
  <span id="file" class="muted"></span>
  <span id="counts"></span>
  <span id="timing" class="muted"></span>
  <span id="live" data-testid="live"></span>
</header>
<main>
  <section id="left">
    <div id="filters">
      <select id="type" aria-label="event type"><option value="">all types</option></select>
      <input id="text" type="search" placeholder="filter: text in event or meta" aria-label="text filter">
      <span id="matches" class="muted"></span>
    </div>
    <div id="list" tabindex="0"><div id="spacer"></div></div>
    <div id="travel">
      <input id="slider" type="range" min="0" max="0" value="0" aria-label="time travel">
      <span id="at" data-testid="selected-seq"></span>
    </div>
  </section>
  <section id="right">
    <nav>
      <button data-tab="state" class="active">State</button>
      <button data-tab="event">Event</button>
      <button data-tab="diff">Diff</button>
      <button data-tab="machines">Statecharts</button>
      <button data-tab="timeline">Effects &amp; sagas</button>
      <button data-tab="charts">Charts</button>
    </nav>
    <div id="panel"></div>
  </section>
</main>
${installed.uplot ? '<script src="/vendor/uPlot.iife.min.js"></script>\n' : ''}<script>
'use strict';
/** The optional packages installed beside rxslice (the server looked): only these are loaded. */
const INSTALLED = ${JSON.stringify(installed)};
/** What the page says where an optional package is missing: what it would show, and the command that installs it. */
const missing = (what, pkg) => el('p', { class: 'muted', 'data-testid': 'missing-package', text: what + ' Install it beside rxslice with: npm i ' + pkg + ' (then restart the inspector).' });
const ROW = 24, PAGE = 200;
const $ = (id) => document.getElementById(id);
const el = (tag, attrs, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'text') e.textContent = v; else if (k === 'class') e.className = v; else if (k.startsWith('on')) e.addEventListener(k.slice(2), v); else e.setAttribute(k, v);
  }
  for (const k of kids) if (k != null) e.append(k);
  return e;
};
const api = async (path) => {
  const url = state.session === null ? path : path + (path.includes('?') ? '&' : '?') + 'session=' + encodeURIComponent(state.session);
  const res = await fetch(url);
  const body = await res.json();
  if (!res.ok) throw new Error(body.error ? body.error.name + ' (' + body.error.code + '): ' + body.error.message : res.statusText);
  return body;
};
const fmt = (n) => n.toLocaleString('en-US');
const safeId = (id) => id.replace(/[^A-Za-z0-9_]/g, '_');
// follow: the last event is selected, and the selection moves with new events (live sessions).
// updates: live refreshes applied (new events shown without a reload).
const state = { sessions: [], session: null, summary: null, total: 0, pages: new Map(), filter: { type: '', text: '' }, selected: null, follow: true, tab: 'state', seqs: null, series: null, renders: 0, updates: 0 };
window.inspector = state;

async function start() {
  const slider = $('slider');
  slider.addEventListener('input', () => select(Number(slider.value), false));
  document.querySelectorAll('nav button').forEach((b) => b.addEventListener('click', () => showTab(b.dataset.tab)));
  $('list').addEventListener('scroll', renderRows);
  $('type').addEventListener('change', () => setFilter());
  let t; $('text').addEventListener('input', () => { clearTimeout(t); t = setTimeout(setFilter, 250); });
  $('list').addEventListener('keydown', (e) => {
    const s = state.summary;
    if (!s || (e.key !== 'ArrowDown' && e.key !== 'ArrowUp')) return;
    e.preventDefault();
    select(Math.min(s.lastSeq, Math.max(s.firstSeq, (state.selected ?? s.firstSeq) + (e.key === 'ArrowDown' ? 1 : -1))), true);
  });
  $('type').addEventListener('focus', loadTypes);
  $('type').addEventListener('mousedown', loadTypes);
  $('session').addEventListener('change', () => { location.hash = 'session=' + encodeURIComponent($('session').value); openSession($('session').value); });
  const sessions = await api('/api/sessions');
  showSessions(sessions);
  const wanted = new URLSearchParams(location.hash.slice(1)).get('session');
  const first = sessions.find((x) => x.id === wanted) || sessions[0];
  if (first) await openSession(first.id); else $('panel').append(el('p', { class: 'muted', text: 'No session yet: waiting for a transcript to be written.' }));
  listen();
}

const info = () => state.sessions.find((x) => x.id === state.session);

// The type list needs a scan of every envelope (seconds for a million): only when asked for.
let typesLoaded = null;
function loadTypes() {
  return typesLoaded || (typesLoaded = api('/api/types').then((types) => {
    const menu = $('type'), value = menu.value;
    while (menu.options.length > 1) menu.remove(1);
    for (const t of types) menu.append(el('option', { value: t.type, text: t.type + ' (' + fmt(t.count) + ')' }));
    menu.value = value;
    menu.dataset.loaded = 'true';
  }));
}

function showSessions(list) {
  state.sessions = list;
  const menu = $('session');
  menu.hidden = !(list.length > 1 || list.some((x) => x.live));
  menu.textContent = '';
  for (const x of list) {
    menu.append(el('option', { value: x.id, text: x.label + (x.parent ? '  (subagent of ' + x.parent + ')' : '') + ' · ' + fmt(x.size) + ' events' + (x.closed ? ' · closed' : '') }));
  }
  if (state.session !== null) menu.value = state.session;
}

function showSummary() {
  const s = state.summary, me = info();
  $('file').textContent = me && me.live ? me.file : s.file + (s.label ? '  (' + s.label + ')' : '');
  $('counts').textContent = fmt(s.size) + ' events, seq ' + s.firstSeq + '–' + s.lastSeq + ', ' + s.snapshotSeqs.length + ' snapshots, ' + s.slices.length + ' slices' + (s.tornTail ? ', torn tail dropped' : '');
  const slider = $('slider');
  slider.min = String(s.firstSeq); slider.max = String(s.lastSeq);
}

/** Shows session \`id\` from its last event. */
async function openSession(id) {
  state.session = id;
  state.pages = new Map();
  state.series = null;
  typesLoaded = null;
  $('type').dataset.loaded = '';
  showSessions(state.sessions);
  state.summary = await api('/api/summary');
  showSummary();
  state.follow = true;
  await loadList();
  await select(state.summary.lastSeq, true);
}

/** The server's event stream: the session list, and a message per commit (no polling). */
function listen() {
  if (!window.EventSource) return;
  const stream = new EventSource('/api/stream');
  const status = (on, text) => { $('live').className = on ? 'on' : 'off'; $('live').textContent = text; };
  stream.onopen = () => status(true, state.sessions.some((x) => x.live) ? '● live' : '');
  stream.onerror = () => status(false, state.sessions.some((x) => x.live) ? '○ disconnected: reconnecting' : '');
  stream.addEventListener('sessions', (m) => {
    showSessions(JSON.parse(m.data));
    if (state.sessions.some((x) => x.live)) status(true, '● live');
    if (state.session === null && state.sessions.length > 0) { openSession(state.sessions[0].id); return; }
    const me = info();
    if (me && state.summary && me.lastSeq !== state.summary.lastSeq) refreshSoon();
  });
  stream.addEventListener('events', (m) => {
    const change = JSON.parse(m.data);
    const x = state.sessions.find((y) => y.id === change.session);
    if (x) { x.size = change.size; x.lastSeq = change.lastSeq; showSessions(state.sessions); }
    if (change.session === state.session) refreshSoon();
  });
  stream.addEventListener('reset', (m) => {
    if (JSON.parse(m.data).session === state.session) openSession(state.session);
  });
}

// One refresh at a time; messages arriving meanwhile are folded into one more.
let refreshing = null, refreshAgain = false;
function refreshSoon() {
  if (refreshing) { refreshAgain = true; return; }
  refreshing = refresh().catch((e) => $('timing').textContent = String(e.message || e)).finally(() => {
    refreshing = null;
    if (refreshAgain) { refreshAgain = false; refreshSoon(); }
  });
}

/** New events of the open session: the summary, the stale end of the list, and the selection (kept, or moved when following). */
async function refresh() {
  const id = state.session, oldTotal = state.total;
  const s = await api('/api/summary');
  if (id !== state.session) return;
  state.summary = s;
  state.series = null;
  typesLoaded = null;
  showSummary();
  const stale = Math.floor(Math.max(0, oldTotal - 1) / PAGE);
  const page = await api(query(stale * PAGE));
  if (id !== state.session) return;
  for (const k of [...state.pages.keys()]) if (k >= stale) state.pages.delete(k);
  state.pages.set(stale, page.rows);
  state.total = page.total;
  $('spacer').style.height = (state.total * ROW) + 'px';
  if (state.filter.type || state.filter.text) $('matches').textContent = fmt(state.total) + ' match';
  state.updates++;
  if (state.follow) return select(s.lastSeq, true, true);
  $('slider').value = String(state.selected);
  renderRows();
  // The selection is kept; views of the whole session (and the statechart's "now") move on.
  if (state.tab === 'machines' || state.tab === 'timeline' || state.tab === 'charts') await showTab(state.tab);
}

function query(offset) {
  const q = new URLSearchParams({ offset: String(offset), limit: String(PAGE) });
  if (state.filter.type) q.set('type', state.filter.type);
  if (state.filter.text) q.set('text', state.filter.text);
  return '/api/events?' + q;
}

async function loadList() {
  state.pages = new Map();
  const first = await api(query(0));
  state.pages.set(0, first.rows);
  state.total = first.total;
  $('spacer').style.height = (state.total * ROW) + 'px';
  $('matches').textContent = state.filter.type || state.filter.text ? fmt(state.total) + ' match' : '';
  $('list').scrollTop = 0;
  renderRows();
}

async function setFilter() {
  state.filter = { type: $('type').value, text: $('text').value.trim() };
  await loadList();
}

const loading = new Set();
function renderRows() {
  const list = $('list'), spacer = $('spacer');
  const first = Math.max(0, Math.floor(list.scrollTop / ROW) - 10);
  const last = Math.min(state.total, first + Math.ceil(list.clientHeight / ROW) + 20);
  spacer.textContent = '';
  for (let i = first; i < last; i++) {
    const page = Math.floor(i / PAGE);
    const rows = state.pages.get(page);
    if (!rows) {
      if (!loading.has(page)) {
        loading.add(page);
        api(query(page * PAGE)).then((r) => { state.pages.set(page, r.rows); loading.delete(page); renderRows(); });
      }
      continue;
    }
    const r = rows[i - page * PAGE];
    if (!r) continue;
    const row = el('div', { class: 'row' + (r.seq === state.selected ? ' selected' : ''), 'data-seq': String(r.seq), title: r.type + (r.source ? '  source: ' + r.source : ''), onclick: () => select(r.seq, false) },
      el('span', { class: 'seq', text: '#' + r.seq }), r.type + ' ', el('span', { class: 'chg', text: r.changed.length ? '→ ' + r.changed.join(', ') : '' }));
    row.style.top = (i * ROW) + 'px';
    spacer.append(row);
  }
}

async function select(seq, scroll, following) {
  state.selected = seq;
  state.follow = following === true || seq === state.summary.lastSeq;
  $('slider').value = String(seq);
  $('at').textContent = 'seq ' + seq;
  if (scroll && !state.filter.type && !state.filter.text) {
    const index = seq - state.summary.firstSeq - 1;
    const list = $('list');
    if (index >= 0 && (index * ROW < list.scrollTop || index * ROW > list.scrollTop + list.clientHeight - ROW)) list.scrollTop = Math.max(0, index * ROW - list.clientHeight / 2);
  }
  renderRows();
  await showTab(state.tab);
}

let renderToken = 0;
async function showTab(tab) {
  state.tab = tab;
  document.querySelectorAll('nav button').forEach((b) => b.classList.toggle('active', b.dataset.tab === tab));
  const token = ++renderToken;
  const panel = $('panel');
  const t0 = performance.now();
  try {
    const content = await TABS[tab](state.selected);
    if (token !== renderToken) return;
    panel.textContent = '';
    panel.append(content);
    panel.dataset.tab = tab;
    panel.dataset.seq = String(state.selected);
    if (tab === 'machines') await renderDiagrams(panel);
    $('timing').textContent = tab + ' at seq ' + state.selected + ' in ' + (performance.now() - t0).toFixed(1) + ' ms';
    state.renders++;
  } catch (e) {
    if (token !== renderToken) return;
    panel.textContent = '';
    panel.append(el('div', { class: 'error', text: String(e.message || e) }));
  }
}

${INSPECTOR_TABS_SCRIPT}

start().catch((e) => { $('panel').append(el('div', { class: 'error', text: String(e.message || e) })); });
</script>
</body>
</html>
`;
