import { map, skip } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { createSession, type EvictedItems } from '../../src/index';
import { dispatchFrom } from '../../src/testing/index';
import { EvictionPolicy } from '../../src/windows/eviction-policy';
import { InvalidWindowError } from '../../src/windows/invalid-window-error';
import { SliceWindow } from '../../src/windows/slice-window';
import { call, CallFinished, CallsFinished, callsSlice, type Call } from './window-fixtures';

/**
 * The seed's own window calls ("State Management Abstractions", Proposal 2, refactorings 2 and 5),
 * as written there, in a session. The seed writes times in seconds (`max_age_seconds=7200`):
 * `SliceWindow.time({ maxAgeSeconds: 7200 })` (a bare number is refused: its unit would be a guess).
 */

const ids = (calls: readonly Call[]): number[] => calls.map((c) => c.id);
const failed = (c: Call): boolean => c.failed;
const isError = failed;

describe("the seed's window calls", () => {
  it('time(max_age_seconds=3600) with eviction=OLDEST_FIRST, given to configure: an hour, not 3.6 s', () => {
    const scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
    scheduler.run(({ cold, expectObservable }) => {
      const Calls = callsSlice(undefined);
      const session = createSession({ slices: [Calls], scheduler });
      session.slice(Calls).configure({ window: SliceWindow.time({ maxAgeSeconds: 3600 }), eviction: EvictionPolicy.oldestFirst() });
      // a@0, b@3.6 s, c@1 h + 1 ms: only a is older than an hour when c arrives.
      const input = cold('a 3599ms b 3596401ms c', { a: CallFinished(call(1)), b: CallFinished(call(2)), c: CallFinished(call(3)) });
      expectObservable(session.slice(Calls).all$.pipe(skip(1), map((c) => ids(c).join(',')))).toBe('a 3599ms b 3596401ms c', { a: '1', b: '1,2', c: '2,3' });
      dispatchFrom(session, input).subscribe();
    });
  });

  it('refuses a bare number for a time window, naming both units', () => {
    expect(() => SliceWindow.time(3600 as never)).toThrow(InvalidWindowError);
    expect(() => SliceWindow.time(3600 as never)).toThrow('SliceWindow.time({ maxAgeSeconds: 3600 }) or SliceWindow.time({ maxAgeMs: 3600 })');
    expect(() => SliceWindow.time({ maxAgeSeconds: 1, maxAgeMs: 1000 } as never)).toThrow(/exactly one of maxAgeSeconds and maxAgeMs/);
    expect(SliceWindow.time({ maxAgeSeconds: 3600 }).description).toBe('time(3600000ms)');
    expect(SliceWindow.time({ maxAgeMs: 3600 }).description).toBe('time(3600ms)');
    expect(() => SliceWindow.time({ maxAgeSeconds: 60, eviction: EvictionPolicy.lifo() })).toThrow(/evicts by its own rule/);
    expect(EvictionPolicy.oldestFirst()).toBe(EvictionPolicy.fifo());
  });

  it('predicate(isError, maxItems) alone keeps only errors, at most maxItems ("keep errors, evict successes")', () => {
    const Calls = callsSlice(SliceWindow.predicate(isError, 3));
    const session = createSession({ slices: [Calls] });
    const evicted: EvictedItems[] = [];
    session.evicted$.subscribe((e) => evicted.push(e));
    for (let id = 0; id < 20; id++) session.dispatch(CallFinished(call(id, id % 4 === 0)));
    // errors: 0, 4, 8, 12, 16; the newest 3 stay; every success went
    expect(ids(session.read(Calls))).toEqual([8, 12, 16]);
    expect(evicted.flatMap((e) => ids(e.items as Call[])).sort((a, b) => a - b)).toEqual([0, ...Array.from({ length: 19 }, (_, i) => i + 1).filter((i) => i !== 8 && i !== 12 && i !== 16)]);
  });

  it('composite(count(10000), time(7200 s)) enforces both limits', () => {
    const scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
    scheduler.run(({ cold, expectObservable }) => {
      const Calls = callsSlice(SliceWindow.composite(SliceWindow.count(10_000), SliceWindow.time({ maxAgeSeconds: 7200 })));
      const session = createSession({ slices: [Calls], scheduler });
      const batch = (from: number, n: number) => CallsFinished({ calls: Array.from({ length: n }, (_, i) => call(from + i)) });
      // a@0: 6,000 calls; b@1h: 6,000 more (count keeps the newest 10,000); c@2h+1ms: a's calls are
      // older than 7200 s (time evicts them), 1 more call.
      const input = cold('a 3599999ms b 3600000ms c', { a: batch(0, 6000), b: batch(6000, 6000), c: batch(12_000, 1) });
      expectObservable(session.slice(Calls).all$.pipe(skip(1), map((c) => `${c.length}:${c[0]?.id}`))).toBe('a 3599999ms b 3600000ms c', {
        a: '6000:0',
        b: '10000:2000',
        c: '6001:6000',
      });
      dispatchFrom(session, input).subscribe();
    });
  });

  it('composite(predicate(failed, 100), count(900)) keeps every failure (up to 100) plus the newest 900 ("always keep failures, plus recent 900")', () => {
    const Calls = callsSlice(SliceWindow.composite(SliceWindow.predicate(failed, 100), SliceWindow.count(900)));
    const session = createSession({ slices: [Calls] });
    // 5,000 calls, every 50th failed (100 failures: 0, 50, ..., 4950)
    for (let id = 0; id < 5000; id++) session.dispatch(CallFinished(call(id, id % 50 === 0)));
    const kept = session.read(Calls);
    const newest900 = Array.from({ length: 900 }, (_, i) => 4100 + i);
    const olderFailures = Array.from({ length: 82 }, (_, i) => i * 50); // 0..4050: the 18 failures from 4100 on are among the newest 900
    expect(ids(kept)).toEqual([...olderFailures, ...newest900]);
    expect(kept.filter(failed)).toHaveLength(100);
  });

  it('composite(predicate(isError, 100), count(500)) likewise: the newest 100 errors survive any number of successes', () => {
    const Calls = callsSlice(SliceWindow.composite(SliceWindow.predicate(isError, 100), SliceWindow.count(500)));
    const session = createSession({ slices: [Calls] });
    for (let id = 0; id < 150; id++) session.dispatch(CallFinished(call(id, true)));
    for (let id = 150; id < 3000; id++) session.dispatch(CallFinished(call(id, false)));
    const kept = session.read(Calls);
    expect(ids(kept.filter(isError))).toEqual(Array.from({ length: 100 }, (_, i) => 50 + i));
    expect(ids(kept.filter((c) => !c.failed))).toEqual(Array.from({ length: 500 }, (_, i) => 2500 + i));
    expect(kept).toHaveLength(600);
  });
});
