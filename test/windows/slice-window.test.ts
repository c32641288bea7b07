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
    const w = SliceWindow.time(10);
    const ctx = contextOf({ now: 30, times: [5, 19, 20, 25] });
    // ages 25, 11, 10, 5: only ages > 10 go
    expect(w.evict(viewOf(ids(4)), ctx)).toEqual({ kind: 'front', count: 2 });
    expect(w.evict(viewOf(ids(4)), contextOf({ now: 15, times: [5, 19, 20, 25] }))).toEqual({ kind: 'none' });
    expect(w.evict(viewOf(ids(2)), contextOf({ now: 100, times: [5, 6] }))).toEqual({ kind: 'front', count: 2 });
  });

  it('rejects negative or infinite ages', () => {
    expect(() => SliceWindow.time(-1)).toThrow(InvalidWindowError);
    expect(() => SliceWindow.time(Number.POSITIVE_INFINITY)).toThrow(InvalidWindowError);
  });
});

describe('SliceWindow.predicate', () => {
  const failed = (c: Call): boolean => c.failed;

  it('bounds only the matching items and leaves the others alone', () => {
    const items = [call(0, true), call(1), call(2, true), call(3), call(4, true)];
    expect(SliceWindow.predicate(failed, 2).evict(viewOf(items), contextOf())).toEqual({ kind: 'indices', indices: [0] });
    expect(SliceWindow.predicate(failed, 3).evict(viewOf(items), contextOf())).toEqual({ kind: 'none' });
  });

  it('applies its eviction policy among the matching items', () => {
    const items = [call(0, true), call(1), call(2, true), call(3), call(4, true)];
    const lifo = SliceWindow.predicate(failed, 1, { eviction: EvictionPolicy.lifo() });
    expect(lifo.evict(viewOf(items), contextOf())).toEqual({ kind: 'indices', indices: [2, 4] });
  });

  it('refuses sampling, which needs the whole slice', () => {
    expect(() => SliceWindow.predicate(failed, 1, { eviction: EvictionPolicy.sampling({ seed: 1 }) })).toThrow(/sampling needs the whole slice/);
  });
});

describe('SliceWindow.composite', () => {
  it('keeps an item only if every window keeps it', () => {
    const items = [call(0, true), call(1), call(2, true), call(3), call(4, true), call(5)];
    const w = SliceWindow.composite(
      SliceWindow.predicate((c: Call) => c.failed, 2),
      SliceWindow.predicate((c: Call) => !c.failed, 1),
    );
    expect(w.evict(viewOf(items), contextOf())).toEqual({ kind: 'indices', indices: [0, 1, 3] });
  });

  it('merges front decisions into the larger front and mixed decisions into indices', () => {
    const times = [0, 1, 2, 3, 4, 5];
    const w = SliceWindow.composite(SliceWindow.count(4), SliceWindow.time(3));
    expect(w.evict(viewOf(ids(6)), contextOf({ now: 5, times }))).toEqual({ kind: 'front', count: 2 });
    expect(w.evict(viewOf(ids(6)), contextOf({ now: 8, times }))).toEqual({ kind: 'front', count: 5 });
    const mixed = SliceWindow.composite(SliceWindow.count(5, { eviction: EvictionPolicy.lifo() }), SliceWindow.time(3));
    expect(mixed.evict(viewOf(ids(6)), contextOf({ now: 5, times }))).toEqual({ kind: 'indices', indices: [0, 1, 5] });
    expect(SliceWindow.composite().evict(viewOf(ids(6)), contextOf())).toEqual({ kind: 'none' });
  });

  it('describes itself from its parts', () => {
    expect(SliceWindow.composite(SliceWindow.count(3), SliceWindow.time(5)).description).toBe('composite(count(3, fifo), time(5ms))');
  });
});
