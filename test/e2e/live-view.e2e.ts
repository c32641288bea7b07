/**
 * The live-view example (examples/live-view) in headless Chromium: the React page replays a bundled
 * transcript through a session in the browser; its counts must equal the demo's report for that
 * transcript (`replayTranscript`, what `npm run demo` prints), a transition button must dispatch and
 * the statechart must highlight the new state, and no panel may render more often than what it
 * reads changed. Run by `npm run test:e2e`.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { splitLines } from '../../src/transcripts/parse';
import { replayTranscript, type ReplayReport } from '../../src/transcripts/replay';
import { startLiveView, type LiveViewServer } from '../../examples/live-view/serve';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
const TRANSCRIPT = 'spotter-tool_heavy.jsonl';

interface LiveView {
  readonly renders: Record<string, number>;
  readonly changes: Record<string, number>;
  readonly dispatched: number;
  readonly rejected: number;
  readonly done: boolean;
}

let server: LiveViewServer;
let browser: Browser;
let page: Page;
let report: ReplayReport;
const errors: string[] = [];
const liveView = () => page.evaluate(() => (globalThis as unknown as { liveView: LiveView }).liveView);
const text = (selector: string) => page.locator(selector).textContent();
const n = (value: number) => value.toLocaleString('en-US');

beforeAll(async () => {
  report = replayTranscript(splitLines(readFileSync(path.join(ROOT, 'examples/data', TRANSCRIPT), 'utf8')), { source: TRANSCRIPT });
  server = await startLiveView();
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  await page.goto(`${server.url}?transcript=${TRANSCRIPT}&delayMs=5`);
  await page.waitForSelector('#progress[data-done="true"]', { timeout: 60_000 });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('the live view in headless Chromium', () => {
  it('renders every panel, without errors', async () => {
    for (const id of ['#phase', '#totals', '#tokens', '#tool-calls', '#messages']) expect(await page.locator(id).count()).toBe(1);
    expect(errors).toEqual([]);
  });

  it('shows the counts of the demo\'s report for the transcript', async () => {
    expect(report.events).toBeGreaterThan(0);
    expect(await text('#progress')).toBe(`replayed ${n(report.events)} events`);
    const live = await liveView();
    const rejected = [...report.skipped].filter(([reason]) => reason.startsWith('rejected by the session')).reduce((s, [, c]) => s + c, 0);
    expect([live.dispatched, live.rejected]).toEqual([report.events, rejected]);
    expect([await text('#calls-total'), await text('#calls-errors'), await text('#calls-pending')]).toEqual(
      [report.toolCalls.total, report.toolCalls.errors, report.toolCalls.pending].map(n),
    );
    const t = report.tokens;
    expect(
      await Promise.all(['input', 'output', 'cache-creation', 'cache-read', 'total', 'responses'].map((k) => text(`#tokens-${k}`))),
    ).toEqual([t.input, t.output, t.cacheCreation, t.cacheRead, t.total, t.responses].map(n));
    expect(await text('#messages h2')).toBe(`Messages (${n(report.windows[0]?.size ?? -1)})`);
    expect(await text('#tool-calls h2')).toBe(`Tool calls (${n(report.windows[1]?.size ?? -1)} kept)`);
    expect(await page.locator('#tool-calls tr').count()).toBe(Math.min(15, report.windows[1]?.size ?? 0));
    expect(await page.locator('#chart .state.active').allTextContents()).toEqual(['transcript', report.phases.current]);
  });

  it('no panel rendered more often than what it reads changed (plus its first render)', async () => {
    const { renders, changes } = await liveView();
    expect(Object.keys(renders).sort()).toEqual(['messages', 'phase', 'tokens', 'toolCalls', 'totals']);
    for (const [panel, count] of Object.entries(renders)) {
      expect(count, `${panel}: ${count} renders for ${changes[panel]} changes`).toBeLessThanOrEqual((changes[panel] ?? 0) + 1);
      expect(count, panel).toBeGreaterThanOrEqual(1);
    }
    expect(changes['toolCalls']).toBeGreaterThan(0); // the replay did change what the panels read
  });

  it('clicking a transition button dispatches it; the statechart highlights the new state', async () => {
    expect(report.phases.current).toBe('waitingForUser');
    const before = await liveView();
    const prompt = page.locator('button[data-event="transcript/userMessageAdded"]');
    expect(await prompt.isEnabled()).toBe(true);
    expect(await page.locator('#transitions').textContent()).toContain('transcript/userMessageAdded → thinking');
    await prompt.click();
    await page.waitForSelector('#chart [data-state="thinking"].active');
    expect(await page.locator('#chart .state.active').allTextContents()).toEqual(['transcript', 'working', 'thinking']);
    expect(await text('#messages h2')).toBe(`Messages (${n((report.windows[0]?.size ?? 0) + 1)})`); // the prompt went through the Messages reducer
    expect(await page.locator('#messages li').last().textContent()).toBe('user Please go on.');
    const after = await liveView();
    expect(after.renders['tokens']).toBe(before.renders['tokens']); // a prompt does not touch token usage
    expect(after.renders['totals']).toBe(before.renders['totals']);
    expect(after.renders['phase']).toBe((before.renders['phase'] ?? 0) + 1);
    expect(errors).toEqual([]);
  });
});
