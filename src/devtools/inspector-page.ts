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

function jsonBlock(value, testid) {
  return el('pre', testid ? { 'data-testid': testid } : {}, JSON.stringify(value, null, 2));
}

const TABS = {
  async state(seq) {
    const s = await api('/api/state?seq=' + seq);
    const box = el('div', { 'data-testid': 'state' }, el('p', { class: 'muted', text: 'Every slice after event #' + seq + '.' }));
    for (const [name, slice] of Object.entries(s.slices)) {
      const items = slice.items;
      const shown = items.length > 200 ? items.slice(-200) : items;
      const d = el('details', { 'data-slice': name },
        el('summary', { text: name + '  (' + slice.policy + ', ' + fmt(items.length) + (items.length === 1 ? ' item)' : ' items)') + (items.length > 200 ? ', last 200 shown' : '') }),
        jsonBlock(slice.policy === 'state' && shown.length === 1 ? shown[0] : shown, 'slice-' + name));
      if (slice.policy === 'state') d.open = true;
      box.append(d);
    }
    return box;
  },
  async event(seq) {
    if (seq <= state.summary.firstSeq) return el('p', { class: 'muted', text: 'The recording starts from a snapshot at seq ' + seq + '; pick a later event.' });
    const env = await api('/api/envelope?seq=' + seq);
    return el('div', {}, el('h3', { text: '#' + env.seq + '  ' + env.event.type }), el('p', { class: 'muted', text: 'at ' + new Date(env.at).toISOString() + '; changed: ' + (env.changed.join(', ') || 'nothing') }), jsonBlock(env, 'envelope'));
  },
  async diff(seq) {
    const box = el('div', {});
    const from = el('input', { type: 'number', value: String(Math.max(state.summary.firstSeq, seq - 1)), 'aria-label': 'from seq', style: 'width:90px' });
    const to = el('input', { type: 'number', value: String(seq), 'aria-label': 'to seq', style: 'width:90px' });
    const out = el('div', {});
    const run = async () => {
      out.textContent = '';
      try {
        const d = await api('/api/diff?from=' + from.value + '&to=' + to.value);
        const names = Object.keys(d.modified);
        out.append(el('p', { 'data-testid': 'diff-summary', text: names.length + ' slice(s) changed from #' + d.fromSeq + ' to #' + d.toSeq + (names.length ? ': ' + names.join(', ') : '') }));
        for (const name of names) out.append(el('details', { open: '' }, el('summary', { text: name + ' (' + d.modified[name].kind + ')' }), jsonBlock(d.modified[name], 'diff-' + name)));
      } catch (e) { out.append(el('div', { class: 'error', text: String(e.message || e) })); }
    };
    box.append(el('p', {}, 'Diff of every slice from seq ', from, ' to seq ', to, ' ', el('button', { onclick: run, text: 'compare' })), out);
    await run();
    return box;
  },
  async machines(seq) {
    const list = await api('/api/machines?seq=' + seq);
    // A live session whose selected event is not its last: show where the agent is now too.
    const me = info(), last = state.summary.lastSeq;
    const now = me && me.live && seq !== last ? await api('/api/machines?seq=' + last) : [];
    const box = el('div', {});
    if (list.length === 0) box.append(el('p', { class: 'muted', text: 'No statechart is installed in this session.' }));
    for (const m of list) {
      const current = now.find((x) => x.name === m.name);
      const section = el('div', { class: 'machine', 'data-machine': m.name },
        el('h3', { text: m.name + (m.done ? ' (done)' : '') }),
        el('p', { 'data-testid': 'configuration', text: 'active: ' + (m.basicConfiguration.join(', ') || '(not started)') + (m.configuration.length > m.basicConfiguration.length ? '   (configuration: ' + m.configuration.join(', ') + ')' : '') }),
        current ? el('p', { 'data-testid': 'live-configuration', class: 'muted', text: 'now (#' + last + '): ' + (current.basicConfiguration.join(', ') || '(not started)') + ' (outlined in blue)' }) : null);
      if (m.mermaid) {
        const lines = [m.mermaid, '  classDef active fill:#fde68a,stroke:#b45309,stroke-width:2px', '  classDef now stroke:#2563eb,stroke-width:3px,stroke-dasharray:5'];
        if (m.basicConfiguration.length) lines.push('  class ' + m.basicConfiguration.map(safeId).join(',') + ' active');
        const moved = current ? current.basicConfiguration.filter((id) => !m.basicConfiguration.includes(id)) : [];
        if (moved.length) lines.push('  class ' + moved.map(safeId).join(',') + ' now');
        section.append(el('div', { class: 'diagram', 'data-source': lines.join('\\n') }));
        // Targetless transitions run their actions and leave the states as they are: listed under
        // the diagram by state, not drawn (a self-loop would read as leaving and re-entering).
        if (m.targetless.length) {
          const byState = new Map();
          for (const t of m.targetless) byState.set(t.state, [...(byState.get(t.state) || []), t.label]);
          section.append(el('div', { 'data-testid': 'targetless' },
            el('p', { class: 'muted', text: 'Targetless transitions (they run their actions and change no state):' }),
            el('ul', {}, ...[...byState].map(([id, labels]) => el('li', {}, el('b', { text: id + ': ' }), labels.join(' · '))))));
        }
        section.append(el('details', {}, el('summary', { text: 'Mermaid source' }), el('pre', {}, m.mermaid)));
      } else {
        section.append(el('p', { class: 'muted', text: 'The definition of this statechart was not given to the inspector: only its configuration is shown.' }));
      }
      box.append(section);
    }
    return box;
  },
  async timeline() {
    const entries = await api('/api/timeline');
    const box = el('div', {});
    if (entries.length === 0) { box.append(el('p', { class: 'muted', text: 'No effect or saga ran in this recording.' })); return box; }
    const s = state.summary, span = Math.max(1, s.lastSeq - s.firstSeq);
    const table = el('table', { 'data-testid': 'timeline' }, el('tr', {}, ...['', 'kind', 'name', 'id', 'outcome', 'attempts', 'retries', 'compensations', 'seq'].map((h) => el('th', { text: h }))));
    for (const e of entries) {
      const end = e.endSeq ?? s.lastSeq;
      const bar = el('div', { style: 'position:relative;height:10px;width:160px;background:#f3f4f6' });
      bar.append(el('div', { style: 'position:absolute;top:0;height:10px;background:' + color(e.outcome) + ';left:' + ((e.startSeq - s.firstSeq) / span * 100) + '%;width:' + Math.max(1, (end - e.startSeq) / span * 100) + '%' }));
      const cls = e.outcome === 'succeeded' || e.outcome === 'completed' ? 'ok' : e.outcome === 'running' ? 'warn' : 'bad';
      table.append(el('tr', { style: 'cursor:pointer', title: e.events.map((x) => '#' + x.seq + ' ' + x.what).join('\\n'), onclick: () => select(e.startSeq, true) },
        el('td', {}, bar), el('td', { text: e.kind }), el('td', { text: e.name }), el('td', { text: e.id }), el('td', { class: cls, text: e.outcome }),
        el('td', { text: String(e.attempts) }), el('td', { text: String(e.retries) }), el('td', { text: String(e.compensations) }), el('td', { text: '#' + e.startSeq + (e.endSeq !== undefined ? '–#' + e.endSeq : '') })));
    }
    const counts = {};
    for (const e of entries) counts[e.kind + ' ' + e.outcome] = (counts[e.kind + ' ' + e.outcome] || 0) + 1;
    box.append(el('p', { text: Object.entries(counts).map(([k, v]) => v + ' ' + k).join(', ') }), table);
    return box;
  },
  async charts() {
    const box = el('div', {});
    if (!state.series) state.series = await api('/api/series?points=200');
    const sr = state.series;
    const x = sr.seqs;
    const chart = (title, names, values) => {
      if (names.length === 0) return;
      const host = el('div', { 'data-chart': title });
      box.append(el('h3', { text: title }), host);
      if (!window.uPlot) { host.append(missing('uPlot is not installed: no charts.', 'uplot')); return; }
      const opts = { width: Math.max(320, $('panel').clientWidth - 30), height: 220, scales: { x: { time: false } }, axes: [{ label: 'seq' }, {}],
        series: [{ label: 'seq' }, ...names.map((n, i) => ({ label: n, stroke: PALETTE[i % PALETTE.length], width: 1.5, spanGaps: true }))] };
      new window.uPlot(opts, [x, ...values], host);
    };
    const sizeNames = Object.keys(sr.sizes);
    chart('Slice sizes (items)', sizeNames, sizeNames.map((n) => sr.sizes[n]));
    const numNames = Object.keys(sr.numbers);
    const tokens = numNames.filter((n) => /token/i.test(n));
    chart(tokens.length ? 'Token usage' : 'Numeric state', tokens.length ? tokens : numNames, (tokens.length ? tokens : numNames).map((n) => sr.numbers[n]));
    const other = tokens.length ? numNames.filter((n) => !tokens.includes(n)) : [];
    chart('Other numeric state', other, other.map((n) => sr.numbers[n]));
    for (const [machine, phases] of Object.entries(sr.phases)) {
      const distinct = [...new Set(phases)];
      const band = el('div', { class: 'band', 'data-phases': machine });
      phases.forEach((p, i) => band.append(el('div', { title: '#' + x[i] + ': ' + p, style: 'flex:1;background:' + PALETTE[distinct.indexOf(p) % PALETTE.length] })));
      box.append(el('h3', { text: 'Phases of ' + machine }), band, el('div', { class: 'legend' }, ...distinct.map((p, i) => el('span', {}, el('i', { style: 'background:' + PALETTE[i % PALETTE.length] }), p || '(not started)'))));
    }
    if (box.childElementCount === 0) box.append(el('p', { class: 'muted', text: 'Nothing to chart.' }));
    return box;
  },
};

const PALETTE = ['#2563eb', '#dc2626', '#16a34a', '#d97706', '#7c3aed', '#0891b2', '#db2777', '#4b5563', '#65a30d', '#9333ea'];
const color = (outcome) => outcome === 'succeeded' || outcome === 'completed' ? '#16a34a' : outcome === 'running' ? '#d97706' : '#dc2626';

/**
 * mermaid (3.5 MB) is loaded on the first visit to the Statecharts tab, not at open, with the ELK
 * layout (@mermaid-js/layout-elk, 1.7 MB more) when it is installed: ELK places transition labels
 * on the edges' routes, so no label covers a state (dagre, mermaid's default, draws the labels of
 * arrows from a compound state to its own children across those children).
 */
let mermaidReady = null;
let elkLayout = false;
function loadMermaid() {
  if (!INSTALLED.mermaid) return Promise.resolve();
  return mermaidReady || (mermaidReady = new Promise((resolve) => {
    const script = document.createElement('script');
    script.src = '/vendor/mermaid.min.js';
    script.onload = async () => {
      if (INSTALLED.layoutElk) {
        try {
          const elk = await import('/vendor/layout-elk/mermaid-layout-elk.esm.min.mjs');
          window.mermaid.registerLayoutLoaders(elk.default);
          elkLayout = true;
        } catch (e) {
          console.warn('rxslice inspector: the ELK layout did not load, drawing with dagre', e);
        }
      }
      window.mermaid.initialize({ startOnLoad: false, securityLevel: 'strict', ...(elkLayout ? { layout: 'elk' } : {}) });
      resolve();
    };
    script.onerror = () => resolve();
    document.head.append(script);
  }));
}

let diagramCount = 0;
async function renderDiagrams(panel) {
  if (panel.querySelector('.diagram')) await loadMermaid();
  for (const host of panel.querySelectorAll('.diagram')) {
    if (!window.mermaid) { host.append(missing('mermaid is not installed: no diagram, the Mermaid source is below.', 'mermaid')); continue; }
    try {
      const { svg } = await window.mermaid.render('statechart-' + (++diagramCount), host.dataset.source);
      // mermaid's SVG holds HTML labels (foreignObject, <br>): parse it as HTML. mermaid
      // sanitised it (securityLevel 'strict', DOMPurify), and scripts never run from DOMParser.
      const doc = new DOMParser().parseFromString(svg, 'text/html');
      const node = doc.body.querySelector('svg');
      if (!node) throw new Error('no SVG in the rendering');
      host.append(document.importNode(node, true));
      host.dataset.rendered = 'true';
      host.dataset.layout = elkLayout ? 'elk' : 'dagre';
      if (!elkLayout) host.append(missing('Transition labels may cover states in this layout: @mermaid-js/layout-elk lays the diagram out without that.', '@mermaid-js/layout-elk'));
    } catch (e) {
      host.append(el('div', { class: 'error', text: 'mermaid: ' + (e.message || e) }));
    }
  }
}

start().catch((e) => { $('panel').append(el('div', { class: 'error', text: String(e.message || e) })); });
</script>
</body>
</html>
`;
