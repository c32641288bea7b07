// @vitest-environment jsdom
/// <reference lib="dom" />
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { compile } from 'svelte/compiler';
import { derived, get, readable, type Readable } from 'svelte/store';
import type { Observable } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countSubscriptions, makeSession, MessageAdded, Messages, TokensUsed, TotalHundreds, Usage } from '../react/fixtures';

/**
 * rxslice's slice and computed observables (`all$`, `latest$`, `value$`) are Svelte stores: Svelte's
 * `$store` calls `subscribe(run)` and accepts an RxJS `Subscription` back (it calls its
 * `unsubscribe`), and they emit their current value synchronously on subscribe, as the store
 * contract requires. A real component is compiled with the `svelte` compiler and mounted in jsdom
 * with Svelte's client runtime (bundled by esbuild with the `browser` condition, as a bundler does).
 */
const COMPONENT = `<script>
  let { session, Messages, Usage, TotalHundreds } = $props();
  const messages = session.slice(Messages).all$;
  const usage = session.slice(Usage).latest$;
  const hundreds = session.computed(TotalHundreds).value$;
</script>

<p>{$messages.length} messages, {$usage.output} out, {$hundreds} hundreds</p>
<ul>{#each $messages as m}<li>{m.text}</li>{/each}</ul>
`;

interface SvelteRuntime {
  mount(component: unknown, options: { target: Element; props: Record<string, unknown> }): Record<string, unknown>;
  unmount(instance: Record<string, unknown>): void;
  flushSync(): void;
  Chat: unknown;
}

const root = resolve(__dirname, '../..');
let dir: string;
let svelte: SvelteRuntime;

beforeAll(async () => {
  const { js } = compile(COMPONENT, { filename: 'Chat.svelte', generate: 'client', runes: true });
  // Inside node_modules, so the bundle resolves svelte from the repository; esbuild runs as its
  // command (its API refuses jsdom's TextEncoder).
  dir = mkdtempSync(join(root, 'node_modules', '.svelte-'));
  writeFileSync(join(dir, 'Chat.svelte.js'), js.code);
  writeFileSync(join(dir, 'entry.mjs'), "export { mount, unmount, flushSync } from 'svelte';\nexport { default as Chat } from './Chat.svelte.js';\n");
  const out = join(dir, 'chat.mjs');
  execFileSync(join(root, 'node_modules/.bin/esbuild'), [join(dir, 'entry.mjs'), '--bundle', '--format=esm', '--platform=browser', '--conditions=browser', `--outfile=${out}`, '--log-level=warning']);
  svelte = (await import(/* @vite-ignore */ pathToFileURL(out).href)) as SvelteRuntime;
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('Svelte stores', () => {
  it('$slice and $computed render the current state and update on dispatch; unmounting unsubscribes', () => {
    const session = makeSession();
    const all = countSubscriptions(session.slice(Messages).all$);
    const value = countSubscriptions(session.computed(TotalHundreds).value$);
    session.dispatch(MessageAdded({ role: 'user', text: 'hi' }));
    const target = document.createElement('div');
    const app = svelte.mount(svelte.Chat, { target, props: { session, Messages, Usage, TotalHundreds } });
    svelte.flushSync();
    expect(target.querySelector('p')?.textContent).toBe('1 messages, 0 out, 0 hundreds');
    expect([all.live, value.live]).toEqual([1, 1]);

    session.dispatch(MessageAdded({ role: 'assistant', text: 'hello' }));
    session.dispatch(TokensUsed({ input: 150, output: 60 }));
    svelte.flushSync();
    expect(target.querySelector('p')?.textContent).toBe('2 messages, 60 out, 2 hundreds');
    expect(Array.from(target.querySelectorAll('li'), (li) => li.textContent)).toEqual(['hi', 'hello']);

    svelte.unmount(app);
    expect([all.live, value.live]).toEqual([0, 0]);
  });

  it("svelte/store's readable adapts an observable to the Readable type (get, derived)", () => {
    const session = makeSession();
    const toReadable = <T>(value$: Observable<T>): Readable<T> =>
      readable<T>(undefined as T, (set) => {
        const subscription = value$.subscribe(set);
        return () => subscription.unsubscribe();
      });
    const messages = toReadable(session.slice(Messages).all$);
    const count = derived(messages, (m) => m.length);
    const seen: number[] = [];
    const stop = count.subscribe((n) => seen.push(n));
    session.dispatch(MessageAdded({ role: 'user', text: 'a' }));
    expect(get(messages)).toBe(session.slice(Messages).all());
    expect(seen).toEqual([0, 1]);
    stop();
  });
});
