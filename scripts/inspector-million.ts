/**
 * `npm run inspector:million`: records 1,000,000 events (a windowed log slice and a counter,
 * snapshot every 1,000), then measures what opening it in the inspector costs: the model's open
 * (readRecording's index), the first page of the event list, and `stateAt` / the State tab's
 * query at random points. Prints wall-clock figures; nothing here is a test.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { z } from 'zod';
import { append, createSession, defineEvent, defineSlice, SliceWindow } from '../src/index';
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { InspectorModel, startInspector } from '../src/devtools/index';
import { flightRecorder } from '../src/jsonl/index';

const N = Number(process.env['EVENTS'] ?? 1_000_000);
const Added = defineEvent('log/added', z.object({ i: z.number(), text: z.string() }));
const Log = defineSlice('log', { policy: 'log', schema: z.object({ i: z.number(), text: z.string() }), window: SliceWindow.count(1000), reducers: ({ on }) => [on(Added, (_v, e) => append(e.payload))] });
const Total = defineSlice('total', { policy: 'state', schema: z.object({ n: z.number() }), initial: [{ n: 0 }], reducers: ({ onLatest }) => [onLatest(Added, (c) => ({ n: (c?.n ?? 0) + 1 }))] });
const slices = [Log, Total];

const dir = mkdtempSync(path.join(tmpdir(), 'rxslice-million-'));
const file = path.join(dir, 'million.jsonl');
try {
  let t = performance.now();
  const session = createSession({ slices, validation: 'off' });
  const recorder = flightRecorder(session, { file, snapshotEvery: 1000 });
  for (let i = 1; i <= N; i++) session.dispatch(Added({ i, text: `event ${i}` }));
  recorder.close();
  session.dispose();
  console.log(`recorded ${N.toLocaleString('en-US')} events in ${((performance.now() - t) / 1000).toFixed(1)} s: ${(statSync(file).size / 1e6).toFixed(0)} MB`);

  t = performance.now();
  const model = new InspectorModel(file, { slices });
  const open = performance.now() - t;
  t = performance.now();
  const page = model.events({ offset: 0, limit: 200 });
  const firstPage = performance.now() - t;
  t = performance.now();
  model.events({ offset: Math.floor(N / 2), limit: 200 });
  const midPage = performance.now() - t;
  console.log(`inspector open: ${open.toFixed(0)} ms; first page (200 rows of ${page.total.toLocaleString('en-US')}): ${firstPage.toFixed(1)} ms; a page mid-list: ${midPage.toFixed(1)} ms`);
  t = performance.now();
  const types = model.types();
  console.log(`event types (a scan of every envelope, for the filter menu): ${(performance.now() - t).toFixed(0)} ms (${types.length} types)`);
  const times: number[] = [];
  for (let k = 0; k < 50; k++) {
    const seq = 1 + Math.floor(Math.random() * N);
    t = performance.now();
    model.state(seq);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  console.log(`state at a random event (50 picks): median ${times[25]?.toFixed(1)} ms, p90 ${times[45]?.toFixed(1)} ms, max ${times[49]?.toFixed(1)} ms`);

  // The page in headless Chromium (when /usr/bin/chromium is there): from the server's start to
  // the first rows of the list, then a jump of the scroll bar to the middle of the list.
  const chromiumPath = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
  if (existsSync(chromiumPath)) {
    const browser = await chromium.launch({ executablePath: chromiumPath, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    t = performance.now();
    const inspector = await startInspector({ file, definitions: { slices } });
    await page.goto(inspector.url);
    await page.waitForSelector('.row');
    await page.waitForSelector('#panel[data-tab="state"]');
    const pageOpen = performance.now() - t;
    t = performance.now();
    await page.locator('#list').evaluate((list) => (list.scrollTop = list.scrollHeight / 2));
    await page.waitForSelector(`.row[data-seq="${N / 2}"]`);
    const scroll = performance.now() - t;
    console.log(`page in Chromium: server start to the list and state shown ${pageOpen.toFixed(0)} ms; scroll to the middle of the list and its rows shown ${scroll.toFixed(0)} ms`);
    await browser.close();
    await inspector.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
