/**
 * @internal The inspector page's tabs (State, Event, Diff, Statecharts, Effects & sagas, Charts)
 * and the drawing helpers they use (uPlot charts, mermaid diagrams): browser script text that
 * {@link inspectorPage} puts into its `<script>` after the session list and the event rows. Plain
 * DOM through the page's `el` helper; text goes in with `textContent`, never `innerHTML`.
 */
export const INSPECTOR_TABS_SCRIPT = `function jsonBlock(value, testid) {
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
}`;
