/**
 * The live inspector (`rxslice watch --inspect`) in headless Chromium: a writer appends transcript
 * lines to the watched file while the page is open; the page shows the new events without a
 * reload (server-sent events, no polling), follows the agent's statechart while the last event is
 * selected, and keeps a selected earlier event while new ones arrive. Every request of the page
 * goes to the inspector itself. Run by `npm run test:e2e`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onLines } from '../child-lines';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = path.join(ROOT, 'bin/rxslice.mjs');
const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
const tmp = mkdtempSync(path.join(tmpdir(), 'rxslice-e2e-live-'));
const transcript = path.join(tmp, 's1.jsonl');
const lines = readFileSync(path.join(ROOT, 'examples/data/spotter-short.jsonl'), 'utf8').split(/(?<=\n)/);

let watch: ChildProcess;
let url: string;
let browser: Browser;
let page: Page;
const requests: string[] = [];
const errors: string[] = [];

interface Cursor {
  readonly lines: number;
}
const api = async <T>(p: string): Promise<T> => (await fetch(new URL(p, url))).json() as Promise<T>;
/** An API answer that is an error: "no session" while the watch has not opened the transcript yet is "not yet"; any other error fails the test. */
function notYet(answer: unknown): boolean {
  const error = (answer as { error?: { code?: string; message?: string } }).error;
  if (error === undefined) return false;
  if (error.code === 'BAD_REQUEST' && /^no session/.test(error.message ?? '')) return true;
  throw new Error(`the inspector API answered ${JSON.stringify(error)}`);
}
/** The watch's state once it applied `n` lines: its last seq and the agent's phase then. */
async function appliedLines(n: number): Promise<{ lastSeq: number; phase: string }> {
  for (let i = 0; i < 400; i++) {
    const summary = await api<{ lastSeq: number }>('/api/summary?session=s1');
    // (The URL is printed when the server listens; the session appears when the watch opens the transcript.)
    if (notYet(summary)) {
      await new Promise((r) => setTimeout(r, 25));
      continue;
    }
    const { lastSeq } = summary;
    const state = await api<{ slices: Record<string, { items: Cursor[] }> }>(`/api/state?session=s1&seq=${lastSeq}`);
    if (!notYet(state) && state.slices['watchCursor']?.items[0]?.lines === n) {
      const machines = await api<{ basicConfiguration: string[] }[]>(`/api/machines?session=s1&seq=${lastSeq}`);
      return { lastSeq, phase: machines[0]!.basicConfiguration.join(', ') };
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`the watch did not apply ${n} lines`);
}
/** The writer: appends lines `from` to `to` (exclusive), one every 60 ms, the last one in two pieces. */
async function write(from: number, to: number): Promise<void> {
  for (let i = from; i < to; i++) {
    const line = lines[i]!;
    if (i === to - 1) {
      appendFileSync(transcript, line.slice(0, 40));
      await new Promise((r) => setTimeout(r, 60));
      appendFileSync(transcript, line.slice(40));
    } else appendFileSync(transcript, line);
    await new Promise((r) => setTimeout(r, 60));
  }
}
const shown = () => page.evaluate(() => {
  const s = (globalThis as unknown as { inspector: { selected: number; follow: boolean; updates: number; summary: { lastSeq: number } } }).inspector;
  return { selected: s.selected, follow: s.follow, updates: s.updates, lastSeq: s.summary.lastSeq, marker: (globalThis as unknown as { marker?: string }).marker };
});

beforeAll(async () => {
  writeFileSync(transcript, lines.slice(0, 8).join(''));
  watch = spawn(process.execPath, [BIN, 'watch', tmp, '--inspect', '--port', '0'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, INIT_CWD: ROOT } });
  url = await new Promise<string>((resolve, reject) => {
    onLines(watch.stderr, (line) => {
      const m = /live inspector at (http:\/\/\S+)/.exec(line);
      if (m) resolve(m[1]!);
    });
    watch.once('exit', (code) => reject(new Error(`rxslice watch exited with ${String(code)}`)));
  });
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
  await appliedLines(8);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(url);
  await page.waitForSelector('#panel[data-tab="state"]');
  // Set once: a reload would lose it.
  await page.evaluate(() => ((globalThis as unknown as { marker: string }).marker = 'no reload'));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  watch?.kill('SIGTERM');
  rmSync(tmp, { recursive: true, force: true });
});

describe('rxslice watch --inspect in headless Chromium', () => {
  it('follows the agent while the last event is selected: new events and the statechart move without a reload', async () => {
    const start = await appliedLines(8);
    await expect.poll(shown).toMatchObject({ selected: start.lastSeq, follow: true, marker: 'no reload' });
    expect(await page.locator('#session option').allTextContents()).toEqual([`s1 · ${start.lastSeq} events`]);
    await page.locator('nav button[data-tab="machines"]').click();
    await page.waitForSelector(`#panel[data-tab="machines"][data-seq="${start.lastSeq}"] .diagram[data-rendered="true"] svg`);
    await write(8, 11);
    const later = await appliedLines(11);
    expect(later.lastSeq).toBeGreaterThan(start.lastSeq);
    await page.waitForSelector(`#panel[data-tab="machines"][data-seq="${later.lastSeq}"] .diagram[data-rendered="true"] svg`);
    expect(await page.locator('[data-testid="configuration"]').textContent()).toContain(`active: ${later.phase}`);
    await expect.poll(() => page.locator('#counts').textContent()).toContain(`${later.lastSeq} events`);
    expect(await shown()).toMatchObject({ selected: later.lastSeq, follow: true, marker: 'no reload' });
    expect((await shown()).updates).toBeGreaterThan(0);
  });

  it('keeps a selected event while new ones arrive, and shows where the agent is now', async () => {
    await page.locator('#list').evaluate((list) => (list.scrollTop = 0));
    await page.locator('.row[data-seq="5"]').click();
    await page.waitForSelector('#panel[data-tab="machines"][data-seq="5"] .diagram[data-rendered="true"] svg');
    const before = (await shown()).updates;
    await write(11, lines.length);
    const end = await appliedLines(lines.length);
    await expect.poll(() => page.locator('#counts').textContent()).toContain(`${end.lastSeq} events`);
    await expect.poll(async () => (await shown()).updates).toBeGreaterThan(before);
    // The selection stayed; the statechart shows the agent's phase now beside it.
    expect(await shown()).toMatchObject({ selected: 5, follow: false, lastSeq: end.lastSeq, marker: 'no reload' });
    expect(await page.locator('[data-testid="selected-seq"]').textContent()).toBe('seq 5');
    expect(await page.locator('.row.selected').getAttribute('data-seq')).toBe('5');
    await expect.poll(() => page.locator('[data-testid="live-configuration"]').textContent()).toContain(`now (#${end.lastSeq}): ${end.phase}`);
    // The new rows are in the list.
    await page.locator('#list').evaluate((list) => (list.scrollTop = list.scrollHeight));
    await page.locator(`.row[data-seq="${end.lastSeq}"]`).waitFor();
    expect(errors).toEqual([]);
  });

  it('asked nothing of any other machine, and opened one event stream (no polling)', () => {
    const origin = new URL(url).origin;
    expect(requests.filter((r) => !r.startsWith(`${origin}/`))).toEqual([]);
    expect(requests.filter((r) => r === `${origin}/api/stream`)).toHaveLength(1);
    expect(requests.filter((r) => r.startsWith(`${origin}/api/summary`)).length).toBeLessThan(40);
  });
});
