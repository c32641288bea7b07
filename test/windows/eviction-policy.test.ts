import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSession, type SliceWindowPolicy } from '../../src/index';
import { EvictionPolicy } from '../../src/windows/eviction-policy';
import { InvalidWindowError } from '../../src/windows/invalid-window-error';
import { SliceWindow } from '../../src/windows/slice-window';
import { call, CallFinished, CallsFinished, callsSlice, contextOf, viewOf, type Call } from './window-fixtures';

/** A batch of calls per dispatch: `[priority, failed][]`; one element dispatches CallFinished, more dispatch CallsFinished. */
const batches = fc.array(fc.array(fc.tuple(fc.integer({ min: 0, max: 4 }), fc.boolean()), { minLength: 1, maxLength: 4 }), {
  maxLength: 60,
});

/** Runs the batches through a session whose slice has `window`; returns the ids after each dispatch and every id evicted. */
function run(window: SliceWindowPolicy<Call>, input: readonly (readonly [number, boolean])[][]) {
  const Calls = callsSlice(window);
  const session = createSession({ slices: [Calls] });
  const evicted: number[] = [];
  session.evicted$.subscribe((e) => evicted.push(...(e.items as Call[]).map((c) => c.id)));
  const states: number[][] = [];
  const appended: Call[] = [];
  for (const batch of input) {
    const calls = batch.map(([p, failed], i) => call(appended.length + i, failed, p));
    appended.push(...calls);
    if (calls.length === 1) session.dispatch(CallFinished(calls[0] as Call));
    else session.dispatch(CallsFinished({ calls }));
    states.push(session.read(Calls).map((c) => c.id));
  }
  return { states, evicted, appended, final: session.read(Calls) };
}

const isSubsequence = (sub: readonly number[], of: readonly number[]): boolean => {
  let j = 0;
  for (const x of of) if (j < sub.length && sub[j] === x) j++;
  return j === sub.length;
};

describe('eviction policies (properties over random append sequences)', () => {
  const bound = fc.integer({ min: 0, max: 8 });

  it('FIFO: never exceeds the bound and keeps the newest items', () => {
    fc.assert(
      fc.property(bound, batches, (k, input) => {
        const { states, appended, evicted } = run(SliceWindow.count(k), input);
        let total = 0;
        input.forEach((batch, t) => {
          total += batch.length;
          const expected = appended.slice(0, total).slice(Math.max(0, total - k)).map((c) => c.id);
          expect(states[t]).toEqual(expected);
        });
        expect(evicted).toEqual(appended.slice(0, Math.max(0, total - k)).map((c) => c.id));
      }),
    );
  });

  it('LIFO: never exceeds the bound and keeps the first items', () => {
    fc.assert(
      fc.property(bound, batches, (k, input) => {
        const { states, appended } = run(SliceWindow.count(k, { eviction: EvictionPolicy.lifo() }), input);
        let total = 0;
        input.forEach((batch, t) => {
          total += batch.length;
          expect(states[t]).toEqual(appended.slice(0, Math.min(total, k)).map((c) => c.id));
        });
      }),
    );
  });

  it('PRIORITY: keeps the highest priorities, evicting the oldest among equals', () => {
    fc.assert(
      fc.property(bound, batches, (k, input) => {
        const { states, appended } = run(SliceWindow.count(k, { eviction: EvictionPolicy.priority((c: Call) => c.priority) }), input);
        let model: Call[] = [];
        let total = 0;
        input.forEach((batch, t) => {
          model = [...model, ...appended.slice(total, total + batch.length)];
          total += batch.length;
          while (model.length > k) {
            let min = 0;
            for (let i = 1; i < model.length; i++) if ((model[i] as Call).priority < (model[min] as Call).priority) min = i;
            model.splice(min, 1);
          }
          expect(states[t]).toEqual(model.map((c) => c.id));
        });
      }),
    );
  });

  it('SAMPLING: never exceeds the bound, keeps arrival order, and is reproducible from its seed', () => {
    fc.assert(
      fc.property(bound, batches, fc.integer(), (k, input, seed) => {
        const window = (): SliceWindowPolicy<Call> => SliceWindow.count(k, { eviction: EvictionPolicy.sampling({ seed }) });
        const a = run(window(), input);
        const b = run(window(), input);
        expect(a.states).toEqual(b.states);
        expect(a.evicted).toEqual(b.evicted);
        const all = a.appended.map((c) => c.id);
        for (const s of a.states) {
          expect(s.length).toBeLessThanOrEqual(k);
          expect(isSubsequence(s, all)).toBe(true);
        }
        expect(a.final.length).toBe(Math.min(k, all.length));
      }),
    );
  });

  it('SAMPLING: every item is kept with probability k/N (Algorithm R), checked over 4,000 seeds', () => {
    const k = 5;
    const n = 20;
    const seeds = 4000;
    const kept = new Array<number>(n).fill(0);
    for (let seed = 0; seed < seeds; seed++) {
      // the window alone, as the session drives it: append one item, apply the decision
      const window = SliceWindow.count<number>(k, { eviction: EvictionPolicy.sampling({ seed }) });
      let items: number[] = [];
      for (let id = 0; id < n; id++) {
        items.push(id);
        const d = window.evict(viewOf(items), contextOf({ appended: id + 1 }));
        if (d.kind === 'back') items = items.slice(0, items.length - d.count);
        else if (d.kind === 'indices') items = items.filter((_, i) => !d.indices.includes(i));
        else if (d.kind === 'front') items = items.slice(d.count);
      }
      for (const id of items) kept[id] = (kept[id] ?? 0) + 1;
    }
    // expected 1000 per item; the standard deviation is sqrt(4000 * 0.25 * 0.75) ≈ 27
    for (const count of kept) expect(Math.abs(count - (seeds * k) / n)).toBeLessThan(120);
    // an extend (several newcomers in one decision) evicts exactly what one-by-one appends evict
    const oneByOne = run(SliceWindow.count(k, { eviction: EvictionPolicy.sampling({ seed: 3 }) }), Array.from({ length: n }, () => [[0, false]]));
    const inBatches = run(SliceWindow.count(k, { eviction: EvictionPolicy.sampling({ seed: 3 }) }), [
      Array.from({ length: 7 }, () => [0, false] as const),
      Array.from({ length: 13 }, () => [0, false] as const),
    ]);
    expect(inBatches.final.map((c) => c.id)).toEqual(oneByOne.final.map((c) => c.id));
  });

  it('SAMPLING: different seeds give different samples', () => {
    const input = Array.from({ length: 50 }, () => [[0, false] as const]);
    const a = run(SliceWindow.count(5, { eviction: EvictionPolicy.sampling({ seed: 1 }) }), input);
    const b = run(SliceWindow.count(5, { eviction: EvictionPolicy.sampling({ seed: 2 }) }), input);
    expect(a.final.map((c) => c.id)).not.toEqual(b.final.map((c) => c.id));
  });

  it('composite of predicates keeps every failed call up to m plus the newest n others', () => {
    fc.assert(
      fc.property(bound, bound, batches, (m, n, input) => {
        const window = SliceWindow.composite(
          SliceWindow.predicate((c: Call) => c.failed, m),
          SliceWindow.predicate((c: Call) => !c.failed, n),
        );
        const { final, appended } = run(window, input);
        const newest = (items: Call[], count: number): Call[] => (count === 0 ? [] : items.slice(-count));
        const failed = newest(appended.filter((c) => c.failed), m);
        const others = newest(appended.filter((c) => !c.failed), n);
        const expected = appended.filter((c) => failed.includes(c) || others.includes(c));
        expect(final.map((c) => c.id)).toEqual(expected.map((c) => c.id));
      }),
    );
  });

  it('rejects a seed that is not an integer', () => {
    expect(() => EvictionPolicy.sampling({ seed: 0.5 })).toThrow(InvalidWindowError);
  });
});
