import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import * as fc from 'fast-check';
import { append, createSession, defineEvent, defineSlice, SliceWindow, type SliceUpdate } from '../../src/index';

const Said = defineEvent('chat/said', z.object({ text: z.string() }));
const Other = defineEvent('chat/other', z.object({}));
const Msg = z.object({ text: z.string() });

const Recent = defineSlice('recent', {
  policy: 'log',
  schema: Msg,
  window: SliceWindow.count(2),
  reducers: ({ on }) => [on(Said, (_v, e) => append({ text: e.payload.text }))],
});
const Untouched = defineSlice('untouched', { policy: 'state', initial: [0], reducers: ({ on }) => [on(Other, (v) => (v.size > 5 ? append(1) : append(v.size)))] });

describe('slice(def).changes$: (old, new) for each version change (seed P2 design notes)', () => {
  it('a windowed slice that evicts: previous/current are the arrays all() returned, evicted the window victims', () => {
    const session = createSession({ slices: [Recent, Untouched] });
    const recent = session.slice(Recent);
    const seen: SliceUpdate<{ text: string }>[] = [];
    const alls: (readonly { text: string }[])[] = [recent.all()];
    recent.changes$.subscribe((c) => seen.push(c));
    for (const text of ['a', 'b', 'c', 'd']) {
      session.dispatch(Said({ text }));
      alls.push(recent.all());
    }
    expect(seen.map((c) => [c.previous.map((m) => m.text), c.current.map((m) => m.text), c.evicted.map((m) => m.text), c.seq])).toEqual([
      [[], ['a'], [], 1],
      [['a'], ['a', 'b'], [], 2],
      [['a', 'b'], ['b', 'c'], ['a'], 3],
      [['b', 'c'], ['c', 'd'], ['b'], 4],
    ]);
    seen.forEach((c, i) => {
      expect(c.previous).toBe(alls[i]);
      expect(c.current).toBe(alls[i + 1]);
      expect(c.version).toBe(i + 1);
    });
    // The evicted item is the very object `previous` held.
    expect(seen[2]?.evicted[0]).toBe(seen[2]?.previous[0]);
  });

  it('agrees with session.evicted$ for the slice', () => {
    const session = createSession({ slices: [Recent] });
    const fromEvicted: unknown[][] = [];
    const fromChanges: unknown[][] = [];
    session.evicted$.subscribe((e) => fromEvicted.push([e.seq, ...e.items]));
    session.slice(Recent).changes$.subscribe((c) => {
      if (c.evicted.length > 0) fromChanges.push([c.seq, ...c.evicted]);
    });
    for (const text of ['a', 'b', 'c', 'd', 'e']) session.dispatch(Said({ text }));
    expect(fromChanges).toEqual(fromEvicted);
    expect(fromChanges).toHaveLength(3);
  });

  it('emits nothing on subscribe, nor for commits that did not change this slice or events that failed', () => {
    const session = createSession({ slices: [Recent, Untouched] });
    const seen: unknown[] = [];
    session.slice(Recent).changes$.subscribe((c) => seen.push(c));
    expect(seen).toEqual([]);
    session.dispatch(Other({}));
    expect(seen).toEqual([]);
    session.slice(Recent).use(() => {
      throw new Error('no');
    });
    expect(() => session.dispatch(Said({ text: 'x' }))).toThrow();
    expect(seen).toEqual([]);
  });

  it('in a batch: one emission after it, previous from before the batch, every eviction of the batch, the last seq', () => {
    const session = createSession({ slices: [Recent] });
    const recent = session.slice(Recent);
    session.dispatch(Said({ text: 'a' }));
    const before = recent.all();
    const seen: SliceUpdate<{ text: string }>[] = [];
    recent.changes$.subscribe((c) => seen.push(c));
    session.batch(() => {
      for (const text of ['b', 'c', 'd']) session.dispatch(Said({ text }));
      expect(seen).toEqual([]);
    });
    expect(seen).toHaveLength(1);
    expect(seen[0]?.previous).toBe(before);
    expect(seen[0]?.current).toBe(recent.all());
    expect(seen[0]?.evicted.map((m) => m.text)).toEqual(['a', 'b']);
    expect(seen[0]?.seq).toBe(4);
  });

  it('seed, clear and reset are changes too (library events)', () => {
    const session = createSession({ slices: [Recent] });
    const seen: string[] = [];
    session.slice(Recent).changes$.subscribe((c) => seen.push(`${c.previous.length}->${c.current.length} evicted ${c.evicted.length}`));
    session.slice(Recent).seed([{ text: 'a' }, { text: 'b' }, { text: 'c' }]);
    session.slice(Recent).clear();
    expect(seen).toEqual(['0->2 evicted 1', '2->0 evicted 0']);
  });

  it('a throwing subscriber is reported on errors$; the others still get the change; dispose completes it', () => {
    const session = createSession({ slices: [Recent] });
    const errors: string[] = [];
    session.errors$.subscribe((e) => errors.push(e.code));
    let got = 0;
    let completed = false;
    session.slice(Recent).changes$.subscribe(() => {
      throw new Error('bad subscriber');
    });
    session.slice(Recent).changes$.subscribe({ next: () => got++, complete: () => (completed = true) });
    session.dispatch(Said({ text: 'a' }));
    expect(got).toBe(1);
    expect(errors).toEqual(['SUBSCRIBER_FAILED']);
    session.dispose();
    expect(completed).toBe(true);
  });

  it('invariant: chaining the emissions gives every version, and previous minus evicted plus the new items is current', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.string({ maxLength: 3 }), fc.constant(null)), { maxLength: 30 }), (steps) => {
        const session = createSession({ slices: [Recent, Untouched] });
        const recent = session.slice(Recent);
        const start = recent.all();
        const seen: SliceUpdate<{ text: string }>[] = [];
        recent.changes$.subscribe((c) => seen.push(c));
        for (const step of steps) session.dispatch(step === null ? Other({}) : Said({ text: step }));
        let prev = start;
        for (const c of seen) {
          expect(c.previous).toBe(prev);
          expect([...c.previous.slice(c.evicted.length), ...c.current.slice(c.current.length - 1)]).toEqual(c.current.length === 0 ? [] : [...c.current]);
          prev = c.current;
        }
        expect(prev).toBe(recent.all());
        expect(seen).toHaveLength(steps.filter((s) => s !== null).length);
        session.dispose();
      }),
      { numRuns: 50 },
    );
  });
});
