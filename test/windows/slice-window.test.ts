import { describe, expect, it } from 'vitest';
import { EvictionPolicy } from '../../src/windows/eviction-policy';
import { InvalidWindowError } from '../../src/windows/invalid-window-error';
import { SliceWindow } from '../../src/windows/slice-window';
import { call, contextOf, viewOf, type Call } from './window-fixtures';

const ids = (n: number): Call[] => Array.from({ length: n }, (_, i) => call(i));

describe('SliceWindow.count', () => {
  it('keeps everything up to the bound', () => {
    expect(SliceWindow.count(3).evict(viewOf(ids(3)), contextOf({ appended: 3 }))).toEqual({ kind: 'none' });
  });

  it('answers FIFO with a front decision of the excess', () => {
    expect(SliceWindow.count(3).evict(viewOf(ids(5)), contextOf({ appended: 5 }))).toEqual({ kind: 'front', count: 2 });
  });

  it('answers LIFO with a back decision of the excess', () => {
    const w = SliceWindow.count(3, { eviction: EvictionPolicy.lifo() });
    expect(w.evict(viewOf(ids(4)), contextOf({ appended: 4 }))).toEqual({ kind: 'back', count: 1 });
  });

  it('evicts the lowest priority, ties oldest first', () => {
    const w = SliceWindow.count<Call>(3, { eviction: EvictionPolicy.priority((c: Call) => c.priority) });
    const items = [call(0, false, 5), call(1, false, 1), call(2, false, 3), call(3, false, 1)];
    expect(w.evict(viewOf(items), contextOf())).toEqual({ kind: 'indices', indices: [1] });
    const many = [call(0, false, 2), call(1, false, 1), call(2, false, 1), call(3, false, 9), call(4, false, 0)];
    expect(w.evict(viewOf(many), contextOf())).toEqual({ kind: 'indices', indices: [1, 4] });
    const front = [call(0, false, 0), call(1, false, 0), call(2, false, 0), call(3, false, 0), call(4, false, 0)];
    expect(w.evict(viewOf(front), contextOf())).toEqual({ kind: 'front', count: 2 });
  });

  it('rejects bounds that are not integers >= 0', () => {
    expect(() => SliceWindow.count(-1)).toThrow(InvalidWindowError);
    expect(() => SliceWindow.count(1.5)).toThrow(/maxItems must be an integer >= 0/);
    try {
      SliceWindow.count(Number.NaN);
    } catch (e) {
      expect((e as InvalidWindowError).code).toBe('INVALID_WINDOW');
    }
  });
});

describe('SliceWindow.time', () => {
  it('evicts items strictly older than maxAgeMs, measured from their entry time', () => {
    const w = SliceWindow.time({ maxAgeMs: 10 });
    const ctx = contextOf({ now: 30, times: [5, 19, 20, 25] });
    // ages 25, 11, 10, 5: only ages > 10 go
    expect(w.evict(viewOf(ids(4)), ctx)).toEqual({ kind: 'front', count: 2 });
    expect(w.evict(viewOf(ids(4)), contextOf({ now: 15, times: [5, 19, 20, 25] }))).toEqual({ kind: 'none' });
    expect(w.evict(viewOf(ids(2)), contextOf({ now: 100, times: [5, 6] }))).toEqual({ kind: 'front', count: 2 });
  });

  it('rejects negative or infinite ages', () => {
    expect(() => SliceWindow.time({ maxAgeMs: -1 })).toThrow(InvalidWindowError);
    expect(() => SliceWindow.time({ maxAgeMs: Number.POSITIVE_INFINITY })).toThrow(InvalidWindowError);
  });
});

describe('SliceWindow.predicate', () => {
  const failed = (c: Call): boolean => c.failed;

  it('alone, keeps only the matching items, at most maxItems (the newest, FIFO)', () => {
    const items = [call(0, true), call(1), call(2, true), call(3), call(4, true)];
    expect(SliceWindow.predicate(failed, 2).evict(viewOf(items), contextOf())).toEqual({ kind: 'indices', indices: [0, 1, 3] });
    expect(SliceWindow.predicate(failed, 3).evict(viewOf(items), contextOf())).toEqual({ kind: 'indices', indices: [1, 3] });
    expect(SliceWindow.predicate(failed, 0).evict(viewOf(items), contextOf())).toEqual({ kind: 'front', count: 5 });
    // a run of kept items answers with a front or back decision
    expect(SliceWindow.predicate(failed, 5).evict(viewOf([call(0, true), call(1, true), call(2)]), contextOf())).toEqual({ kind: 'back', count: 1 });
    expect(SliceWindow.predicate(failed, 1).evict(viewOf([call(0, true), call(1, true)]), contextOf())).toEqual({ kind: 'front', count: 1 });
    expect(SliceWindow.predicate(failed, 1).evict(viewOf([]), contextOf())).toEqual({ kind: 'none' });
  });

  it('protects the matching items its eviction policy does not pick: LIFO keeps the oldest, priority the highest', () => {
    const items = [call(0, true, 3), call(1), call(2, true, 9), call(3), call(4, true, 1)];
    const lifo = SliceWindow.predicate(failed, 1, { eviction: EvictionPolicy.lifo() });
    expect(lifo.evict(viewOf(items), contextOf())).toEqual({ kind: 'back', count: 4 });
    const priority = SliceWindow.predicate(failed, 1, { eviction: EvictionPolicy.priority((c: Call) => c.priority) });
    expect(priority.evict(viewOf(items), contextOf())).toEqual({ kind: 'indices', indices: [0, 1, 3, 4] });
  });

  it('refuses sampling, which needs the whole slice', () => {
    expect(() => SliceWindow.predicate(failed, 1, { eviction: EvictionPolicy.sampling({ seed: 1 }) })).toThrow(/sampling needs the whole slice/);
  });
});

describe('SliceWindow.composite', () => {
  const failed = (c: Call): boolean => c.failed;

  it('of predicates alone: keeps what any of them protects', () => {
    const items = [call(0, true), call(1), call(2, true), call(3), call(4, true), call(5)];
    const w = SliceWindow.composite(
      SliceWindow.predicate((c: Call) => c.failed, 2),
      SliceWindow.predicate((c: Call) => !c.failed, 1),
    );
    expect(w.evict(viewOf(items), contextOf())).toEqual({ kind: 'indices', indices: [0, 1, 3] });
  });

  it('keeps what the bounding windows keep together plus what a predicate window protects', () => {
    // ids 0..9, failed: 1, 3, 8. count(3) keeps 7, 8, 9; predicate(failed, 2) protects 3 and 8.
    const items = Array.from({ length: 10 }, (_, i) => call(i, i === 1 || i === 3 || i === 8));
    const w = SliceWindow.composite(SliceWindow.predicate(failed, 2), SliceWindow.count(3));
    expect(w.evict(viewOf(items), contextOf())).toEqual({ kind: 'indices', indices: [0, 1, 2, 4, 5, 6] });
    // a failure among the newest 3 counts once toward each: the predicate's 2 are the 2 newest failures
    const recent = Array.from({ length: 6 }, (_, i) => call(i, i !== 2));
    expect(w.evict(viewOf(recent), contextOf())).toEqual({ kind: 'front', count: 3 });
    // order does not matter, and a nested composite is the same as its windows inline
    const nested = SliceWindow.composite(SliceWindow.count(3), SliceWindow.composite(SliceWindow.predicate(failed, 2)));
    expect(nested.evict(viewOf(items), contextOf())).toEqual({ kind: 'indices', indices: [0, 1, 2, 4, 5, 6] });
  });

  it('with time and count: a protected item outlives both bounds', () => {
    const times = [0, 1, 2, 3, 4, 5];
    const items = [call(0, true), call(1), call(2), call(3), call(4), call(5)];
    const w = SliceWindow.composite(SliceWindow.count(4), SliceWindow.time({ maxAgeMs: 2 }), SliceWindow.predicate(failed, 1));
    // time keeps 3, 4, 5 (ages 2, 1, 0 at now 5); count keeps 2..5; the predicate protects 0
    expect(w.evict(viewOf(items), contextOf({ now: 5, times }))).toEqual({ kind: 'indices', indices: [1, 2] });
  });

  it('applies withEviction to every bounded window inside: LIFO protects the oldest matches and bounds to the oldest items', () => {
    const items = Array.from({ length: 8 }, (_, i) => call(i, i % 3 === 0)); // failed: 0, 3, 6
    const w = SliceWindow.withEviction(SliceWindow.composite(SliceWindow.predicate(failed, 1), SliceWindow.count(2)), EvictionPolicy.lifo());
    expect(w.description).toBe('composite(predicate(failed, 1, lifo), count(2, lifo))');
    expect(w.evict(viewOf(items), contextOf())).toEqual({ kind: 'back', count: 6 });
    const priority = SliceWindow.composite(SliceWindow.predicate(failed, 1), SliceWindow.count(2, { eviction: EvictionPolicy.priority((c: Call) => c.id % 4) }));
    // count keeps the two highest id % 4 (3 and 7); the predicate protects 6
    expect(priority.evict(viewOf(items), contextOf())).toEqual({ kind: 'indices', indices: [0, 1, 2, 4, 5] });
  });

  it('refuses a sampling count window beside a predicate window', () => {
    const sampled = SliceWindow.count(2, { eviction: EvictionPolicy.sampling({ seed: 1 }) });
    expect(() => SliceWindow.composite(SliceWindow.predicate(failed, 1), sampled)).toThrow(InvalidWindowError);
    expect(() => SliceWindow.composite(SliceWindow.composite(SliceWindow.predicate(failed, 1)), sampled)).toThrow(/cannot share the slice with a predicate window/);
    expect(() => SliceWindow.composite(SliceWindow.time({ maxAgeMs: 5 }), sampled)).not.toThrow();
  });

  it('merges front decisions into the larger front and mixed decisions into indices', () => {
    const times = [0, 1, 2, 3, 4, 5];
    const w = SliceWindow.composite(SliceWindow.count(4), SliceWindow.time({ maxAgeMs: 3 }));
    expect(w.evict(viewOf(ids(6)), contextOf({ now: 5, times }))).toEqual({ kind: 'front', count: 2 });
    expect(w.evict(viewOf(ids(6)), contextOf({ now: 8, times }))).toEqual({ kind: 'front', count: 5 });
    const mixed = SliceWindow.composite(SliceWindow.count(5, { eviction: EvictionPolicy.lifo() }), SliceWindow.time({ maxAgeMs: 3 }));
    expect(mixed.evict(viewOf(ids(6)), contextOf({ now: 5, times }))).toEqual({ kind: 'indices', indices: [0, 1, 5] });
    expect(SliceWindow.composite().evict(viewOf(ids(6)), contextOf())).toEqual({ kind: 'none' });
  });

  it('describes itself from its parts', () => {
    expect(SliceWindow.composite(SliceWindow.count(3), SliceWindow.time({ maxAgeMs: 5 })).description).toBe('composite(count(3, fifo), time(5ms))');
  });
});
