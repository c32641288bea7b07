/**
 * The Vue example (examples/vue-todos) in headless Chromium: `rxslice/vue` composables render a
 * slice and a computed slice, a click dispatches through the typed `useDispatch`, and the text
 * follows. Run by `npm run test:e2e`.
 */
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { vueExamplePage } from '../../examples/vue-todos/build';

const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

let browser: Browser;
let page: Page;
const errors: string[] = [];
const text = (selector: string) => page.locator(selector).textContent();
const renders = () => page.evaluate(() => (globalThis as unknown as { vueExample: { renders(): number } }).vueExample.renders());

beforeAll(async () => {
  const html = await vueExamplePage();
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  page = await browser.newPage();
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  await page.setContent(html);
  await page.waitForSelector('#remaining');
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

describe('the Vue example in headless Chromium', () => {
  it('renders the slice and the computed slice, without errors', async () => {
    expect(await text('#remaining')).toBe('0 of 0 left');
    expect(await page.locator('#todos li').count()).toBe(0);
    expect(errors).toEqual([]);
  });

  it('a click dispatches and the text updates: the list (a slice) and the count left (a computed slice)', async () => {
    await page.fill('#draft', 'write the guide');
    await page.click('#add');
    await page.fill('#draft', 'test it in Chromium');
    await page.click('#add');
    await expect.poll(() => text('#remaining')).toBe('2 of 2 left');
    expect(await page.locator('#todos li').allTextContents()).toEqual(['write the guide', 'test it in Chromium']);
    expect(await page.inputValue('#draft')).toBe('');

    const before = await renders();
    await page.click('#todos li >> nth=0');
    await expect.poll(() => text('#remaining')).toBe('1 of 2 left');
    expect(await page.locator('#todos li.done').allTextContents()).toEqual(['write the guide']);
    expect((await renders()) - before).toBe(1); // one event: one render
    expect(errors).toEqual([]);
  });
});
