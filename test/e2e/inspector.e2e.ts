/**
 * The inspector page in a real browser (Debian's headless Chromium, driven by playwright-core):
 * `rxslice replay --record` on the bundled transcripts, `rxslice inspect` on the recording, then
 * click an event and check the state shown against the recording, the statechart diagram, the
 * diff, the filter, the timeline and the charts, and take a screenshot.
 * Run by `npm run test:e2e` (which installs Chromium when it is missing), and by `.ci/run`.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inspectorPage } from '../../src/devtools/inspector-page';
import { readRecording, type Recording } from '../../src/jsonl/index';
import { transcriptDefinitions } from '../../src/transcripts/durable';
import { onLines } from '../child-lines';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = path.join(ROOT, 'bin/rxslice.mjs');
const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
const tmp = mkdtempSync(path.join(tmpdir(), 'rxslice-e2e-'));
const recordingFile = path.join(tmp, 'r.jsonl');

let inspect: ChildProcess;
let url: string;
let browser: Browser;
let page: Page;
let recording: Recording;
/** Every message the page logs at level error (console.error, failed loads, CSP refusals) and every uncaught error. */
const consoleErrors: string[] = [];

beforeAll(async () => {
  // The README's commands: replay every bundled transcript into one recording, then inspect it.
  const data = path.join(ROOT, 'examples/data');
  const replay = spawnSync(process.execPath, [BIN, 'replay', data, '--record', recordingFile], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, INIT_CWD: ROOT } });
  expect(replay.stderr).toBe('');
  expect(replay.status).toBe(0);
  recording = readRecording(recordingFile, transcriptDefinitions());
  inspect = spawn(process.execPath, [BIN, 'inspect', recordingFile, '--port', '0'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, INIT_CWD: ROOT } });
  let stderr = '';
  inspect.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const first = await new Promise<string>((resolve, reject) => {
    onLines(inspect.stdout, resolve);
    inspect.once('exit', (code) => reject(new Error(`rxslice inspect exited with ${String(code)}: ${stderr}`)));
  });
  url = /at (http:\/\/\S+)/.exec(first)?.[1] ?? '';
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(`${m.text()} (${m.location().url})`);
  });
  page.on('pageerror', (e) => consoleErrors.push(e.message));
  await page.goto(url);
  await page.waitForSelector('#panel[data-tab="state"]');
  expect(consoleErrors).toEqual([]);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  inspect?.kill();
  rmSync(tmp, { recursive: true, force: true });
});

const slicesOf = (seq: number) => recording.stateAt(seq).toJSON().slices;

describe('rxslice inspect in headless Chromium', () => {
  it('shows the recording and a virtualised event list', async () => {
    await expect.poll(() => page.locator('#counts').textContent()).toContain(`${recording.size.toLocaleString('en-US')} events`);
    const rows = await page.locator('.row').count();
    // Only the rows in view (plus a margin) are in the page, not the thousands recorded.
    expect(rows).toBeGreaterThan(10);
    expect(rows).toBeLessThan(120);
  });

  it('clicking an event shows every slice at that point, as the recording rebuilds it', async () => {
    // The page opens at the last event; scroll to the top of the list, as a user would.
    await page.locator('#list').evaluate((list) => (list.scrollTop = 0));
    await page.locator('.row[data-seq="25"]').click();
    await page.waitForSelector('#panel[data-tab="state"][data-seq="25"]');
    await expect.poll(() => page.locator('[data-testid="selected-seq"]').textContent()).toBe('seq 25');
    const expected = slicesOf(25);
    for (const name of ['messages', 'toolCalls', 'tokenUsage', 'plan']) {
      const items = expected[name]?.items ?? [];
      const shown = JSON.parse((await page.locator(`[data-testid="slice-${name}"]`).textContent()) ?? 'null');
      expect(shown).toEqual(expected[name]?.policy === 'state' && items.length === 1 ? items[0] : items.slice(-200));
    }
    // The slider travels too.
    const later = 1500;
    await page.locator('#slider').fill(String(later));
    await page.waitForSelector(`#panel[data-tab="state"][data-seq="${later}"]`);
    const tokens = JSON.parse((await page.locator('[data-testid="slice-tokenUsage"]').textContent()) ?? 'null');
    expect(tokens).toEqual(slicesOf(later)['tokenUsage']?.items[0]);
  });

  it('draws the statechart with Mermaid and highlights the active configuration', async () => {
    await page.locator('nav button[data-tab="machines"]').click();
    const diagram = page.locator('.machine[data-machine="agentPhase"] .diagram[data-rendered="true"] svg');
    await diagram.waitFor();
    const machine = slicesOf(1500)['machine/agentPhase']?.items[0] as { basicConfiguration: string[] };
    await expect.poll(() => page.locator('.machine[data-machine="agentPhase"] [data-testid="configuration"]').textContent()).toContain(`active: ${machine.basicConfiguration.join(', ')}`);
    // The active state carries the class the page added (classDef active).
    expect(await diagram.locator('g.active').count()).toBe(machine.basicConfiguration.length);
    expect(await diagram.locator('g.node, g.statediagram-state').count()).toBeGreaterThan(5);
  });

  it('lays the statechart out so that no transition label covers a state, a note or another label', async () => {
    const diagram = page.locator('.machine[data-machine="agentPhase"] .diagram[data-rendered="true"] svg');
    // Boxes as the browser draws them: every transition label with text, every state and note
    // box (compound states by their title, whose box holds their children by design).
    const boxes = await diagram.evaluate((svg) => {
      type Box = { what: string; x: number; y: number; w: number; h: number };
      const box = (what: string, e: Element): Box => {
        const r = e.getBoundingClientRect();
        return { what, x: r.x, y: r.y, w: r.width, h: r.height };
      };
      const text = (e: Element) => (e.textContent ?? '').trim().replace(/\s+/g, ' ');
      const labels = Array.from(svg.querySelectorAll('g.edgeLabel')).filter((e) => text(e) !== '').map((e) => box(`label "${text(e)}"`, e.querySelector('.label') ?? e));
      const states = Array.from(svg.querySelectorAll('g.node')).map((e) => box(`state "${text(e) || e.id}"`, e.querySelector('rect, circle, path') ?? e));
      const titles = Array.from(svg.querySelectorAll('g.cluster .cluster-label, g.cluster-label')).map((e) => box(`title "${text(e)}"`, e));
      return { labels, others: [...states, ...titles] };
    });
    expect(boxes.labels.length).toBeGreaterThanOrEqual(11);
    expect(boxes.others.length).toBeGreaterThan(6);
    const overlaps = (a: { x: number; y: number; w: number; h: number }, b: typeof a) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
    const covered: string[] = [];
    boxes.labels.forEach((label, i) => {
      for (const other of [...boxes.labels.slice(i + 1), ...boxes.others]) if (overlaps(label, other)) covered.push(`${label.what} covers ${other.what}`);
    });
    expect(covered).toEqual([]);
  });

  it('diffs two points', async () => {
    await page.locator('nav button[data-tab="diff"]').click();
    await page.waitForSelector('[data-testid="diff-summary"]');
    const diff = (await import('../../src/index')).Snapshot.diff(recording.stateAt(1499), recording.stateAt(1500));
    await expect.poll(() => page.locator('[data-testid="diff-summary"]').textContent()).toContain(`${Object.keys(diff.modified).length} slice(s) changed from #1499 to #1500`);
  });

  it('filters by type', async () => {
    const failed = [...recording.envelopes()].filter((e) => e.event.type === 'transcript/toolFailed');
    // The type menu is filled when it gets focus (its scan is not paid at open).
    expect(await page.locator('#type option').count()).toBe(1);
    await page.locator('#type').focus();
    await page.waitForSelector('#type[data-loaded="true"]');
    await page.locator('#type').selectOption('transcript/toolFailed');
    await expect.poll(() => page.locator('#matches').textContent()).toBe(`${failed.length} match`);
    const seqs = await page.locator('.row').evaluateAll((rows) => rows.map((r) => Number((r as unknown as { dataset: Record<string, string> }).dataset['seq'])));
    expect(seqs).toEqual(failed.map((e) => e.seq).slice(0, seqs.length));
    await page.locator('#type').selectOption('');
  });

  it('shows the effects timeline and the charts, and takes a screenshot', async () => {
    await page.locator('nav button[data-tab="timeline"]').click();
    const rows = page.locator('[data-testid="timeline"] tr');
    await rows.first().waitFor();
    const notifyRuns = [...recording.envelopes()].filter((e) => e.event.type === 'rxslice.effect.started' && (e.event.payload as { attempt: number }).attempt === 1).length;
    expect((await rows.count()) - 1).toBe(notifyRuns);
    await page.locator('nav button[data-tab="charts"]').click();
    await page.waitForSelector('[data-chart="Slice sizes (items)"] canvas');
    await page.waitForSelector('[data-chart="Token usage"] canvas');
    expect(await page.locator('.band[data-phases="agentPhase"] div').count()).toBeGreaterThan(10);
    // Back to the statechart for the picture.
    await page.locator('.row[data-seq="25"]').click();
    await page.locator('nav button[data-tab="machines"]').click();
    await page.waitForSelector('#panel[data-tab="machines"][data-seq="25"] .diagram[data-rendered="true"] svg');
    const shot = process.env['RXSLICE_SCREENSHOT'] ?? path.join(tmp, 'inspector.png');
    await page.screenshot({ path: shot });
    expect(statSync(shot).size).toBeGreaterThan(10_000);
    expect(readFileSync(shot).subarray(1, 4).toString()).toBe('PNG');
  });

  it('logs no error to the browser console on any tab', async () => {
    // Runs last: the tabs above loaded mermaid, uPlot, the diff and the timeline.
    expect(consoleErrors).toEqual([]);
  });

  it('without the optional packages, requests none of them and names the command that installs each', async () => {
    // The page as the server writes it where uplot, mermaid and @mermaid-js/layout-elk are not
    // installed (as in a project that installed rxslice alone); the API is the real server's.
    const bare = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const errors: string[] = [];
    const vendorRequests: string[] = [];
    bare.on('console', (m) => void (m.type() === 'error' && errors.push(m.text())));
    bare.on('pageerror', (e) => errors.push(e.message));
    await bare.route(url, (route) => route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: inspectorPage({ uplot: false, mermaid: false, layoutElk: false }) }));
    await bare.route('**/vendor/**', (route) => {
      vendorRequests.push(route.request().url());
      return route.fulfill({ status: 404, contentType: 'text/plain', body: 'not installed' });
    });
    try {
      await bare.goto(url);
      await bare.waitForSelector('#panel[data-tab="state"]');
      await bare.locator('nav button[data-tab="machines"]').click();
      await expect.poll(() => bare.locator('.machine[data-machine="agentPhase"] [data-testid="missing-package"]').textContent()).toContain('npm i mermaid');
      await bare.locator('nav button[data-tab="charts"]').click();
      await expect.poll(() => bare.locator('[data-chart="Token usage"] [data-testid="missing-package"]').textContent()).toContain('npm i uplot');
      expect(vendorRequests).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await bare.close();
    }
  });
});
