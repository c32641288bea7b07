import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { append, createSession, defineEvent, defineSlice } from '../../src/index';
import { computedFamily } from '../../src/computed/computed-family';
import { InvalidComputedError } from '../../src/computed/computed-errors';
import { DEFAULT_FAMILY_CACHE_SIZE, defineComputedFamily } from '../../src/computed/define-computed-family';
import { counted } from './computed-fixtures';

const ToolCall = z.object({ tool: z.string(), ok: z.boolean() });
type ToolCall = z.infer<typeof ToolCall>;
const ToolCalled = defineEvent('tools/called', ToolCall);
const Calls = defineSlice('calls', { policy: 'log', schema: ToolCall, reducers: ({ on }) => [on(ToolCalled, (_v, e) => append(e.payload))] });

function family(cacheSize?: number) {
  const inner = counted((tool: string, calls: readonly ToolCall[]) => calls.filter((c) => c.tool === tool).length);
  const outer = counted((tool: string) => (calls: readonly ToolCall[]) => inner(tool, calls));
  const CallsOf = defineComputedFamily('callsOf', [Calls], outer, cacheSize === undefined ? {} : { cacheSize });
  return { CallsOf, inner, outer };
}

describe('computed families', () => {
  it('gives each argument its own lazy, memoized member; call and get are the same', () => {
    const { CallsOf, inner } = family();
    const session = createSession({ slices: [Calls] });
    const callsOf = computedFamily(session, CallsOf);
    expect(computedFamily(session, CallsOf)).toBe(callsOf);
    const search = callsOf('search');
    expect(callsOf.get('search')).toBe(search);
    expect(inner.calls).toBe(0);
    session.dispatch(ToolCalled({ tool: 'search', ok: true }));
    session.dispatch(ToolCalled({ tool: 'fetch', ok: false }));
    expect(search.latest()).toBe(1);
    expect(search.latest()).toBe(1);
    expect(callsOf('fetch').latest()).toBe(1);
    expect(inner.calls).toBe(2);
    expect(search.name).toBe('callsOf(search)');
  });

  it('keeps at most cacheSize members, dropping the least recently used', () => {
    const { CallsOf, outer } = family(2);
    const session = createSession({ slices: [Calls] });
    const callsOf = computedFamily(session, CallsOf);
    const a = callsOf('a');
    callsOf('b');
    callsOf('a'); // a is now the most recently used
    callsOf('c'); // evicts b
    expect(callsOf.size).toBe(2);
    expect(callsOf.has('a')).toBe(true);
    expect(callsOf.has('b')).toBe(false);
    expect(callsOf.has('c')).toBe(true);
    expect(callsOf('a')).toBe(a);
    expect(outer.calls).toBe(3);
    callsOf('b'); // a new member
    expect(outer.calls).toBe(4);
    expect(callsOf.size).toBe(2);
  });

  it('defaults to a cache of 100 members and never grows past it', () => {
    const { CallsOf } = family();
    const session = createSession({ slices: [Calls] });
    const callsOf = computedFamily(session, CallsOf);
    for (let i = 0; i < 1000; i++) callsOf(`tool${i}`).latest();
    expect(DEFAULT_FAMILY_CACHE_SIZE).toBe(100);
    expect(callsOf.size).toBe(100);
    expect(callsOf.cacheSize).toBe(100);
  });

  it('keeps an evicted member alive for its subscribers, glitch-free, until they leave', () => {
    const { CallsOf, inner } = family(1);
    const session = createSession({ slices: [Calls] });
    const callsOf = computedFamily(session, CallsOf);
    const seen: number[] = [];
    const sub = callsOf('a').value$.subscribe((v) => seen.push(v));
    callsOf('b'); // evicts a from the cache while observed
    session.dispatch(ToolCalled({ tool: 'a', ok: true }));
    expect(seen).toEqual([0, 1]);
    sub.unsubscribe();
    const before = inner.calls;
    session.dispatch(ToolCalled({ tool: 'a', ok: true }));
    expect(inner.calls).toBe(before); // detached: no longer recomputed
    expect(callsOf('a').latest()).toBe(2); // a fresh member
  });

  it('emits once per event for each observed member', () => {
    const { CallsOf } = family();
    const session = createSession({ slices: [Calls] });
    const callsOf = computedFamily(session, CallsOf);
    const seen: string[] = [];
    callsOf('a').value$.subscribe((v) => seen.push(`a${v}`));
    callsOf('b').value$.subscribe((v) => seen.push(`b${v}`));
    session.batch(() => {
      session.dispatch(ToolCalled({ tool: 'a', ok: true }));
      session.dispatch(ToolCalled({ tool: 'a', ok: true }));
    });
    session.dispatch(ToolCalled({ tool: 'b', ok: true }));
    expect(seen).toEqual(['a0', 'b0', 'a2', 'b1']);
  });

  it('keys object arguments by JSON by default, or by the key option', () => {
    const byJson = defineComputedFamily('byTool', [Calls], (q: { tool: string }) => (calls) => calls.filter((c) => c.tool === q.tool).length);
    const byKey = defineComputedFamily('byTool2', [Calls], (q: { tool: string; note?: string }) => (calls) => calls.filter((c) => c.tool === q.tool).length, {
      key: (q) => q.tool,
    });
    const session = createSession({ slices: [Calls] });
    expect(computedFamily(session, byJson)({ tool: 'x' })).toBe(computedFamily(session, byJson)({ tool: 'x' }));
    expect(computedFamily(session, byKey)({ tool: 'x', note: '1' })).toBe(computedFamily(session, byKey)({ tool: 'x', note: '2' }));
  });

  it('rejects a cache size below 1', () => {
    expect(() => defineComputedFamily('f', [Calls], () => () => 0, { cacheSize: 0 })).toThrow(InvalidComputedError);
  });
});
