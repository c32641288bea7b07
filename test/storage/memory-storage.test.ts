import { describe, expect, it } from 'vitest';
import { MemoryStorage } from '../../src/index';
import { isArrayView } from '../../src/internal/array-view';
import { storageConformance } from './storage-conformance';

storageConformance('memory', (initial) => new MemoryStorage(initial));

describe('MemoryStorage', () => {
  it('appends into one growing buffer: no copy of the log per append', () => {
    const s = new MemoryStorage<number>();
    s.append(0, 0);
    const buffer = (s as unknown as { content: { buf: number[] } }).content.buf;
    for (let i = 1; i < 10_000; i++) s.append(i, 0);
    expect((s as unknown as { content: { buf: number[] } }).content.buf).toBe(buffer);
    expect(s.size).toBe(10_000);
  });

  it('compacts the buffer when front eviction leaves it half dead, keeping memory flat', () => {
    const s = new MemoryStorage<number>();
    let maxBuffer = 0;
    for (let i = 0; i < 100_000; i++) {
      const tx = s.begin();
      tx.append(i, 0);
      if (tx.view().size > 1000) tx.dropFront(1);
      tx.commit();
      maxBuffer = Math.max(maxBuffer, (s as unknown as { content: { buf: number[] } }).content.buf.length);
    }
    expect(s.size).toBe(1000);
    expect(s.all()[0]).toBe(99_000);
    expect(maxBuffer).toBeLessThanOrEqual(3000);
  });

  it('copies once before appending after a replace (frozen buffer), then appends in place', () => {
    const s = new MemoryStorage<number>();
    s.replace([1, 2], 0);
    const frozen = s.all();
    expect(Object.isFrozen(frozen)).toBe(true);
    s.append(3, 0);
    expect(frozen).toEqual([1, 2]);
    expect(s.all()).toEqual([1, 2, 3]);
  });

  it('hands out one capture per version, and the restored capture itself after a restore', () => {
    const s = new MemoryStorage<number>([1, 2]);
    const a = s.snapshot();
    expect(s.snapshot()).toBe(a);
    expect(Object.isFrozen(a)).toBe(true);
    s.append(3, 0);
    const b = s.snapshot();
    expect(b).not.toBe(a);
    const tx = s.begin();
    tx.restore(a, 0);
    tx.commit();
    expect(s.snapshot()).toBe(a);
    // Restoring and then changing something else in the same transaction is a new capture.
    const mixed = s.begin();
    mixed.restore(b, 0);
    mixed.append(4, 0);
    mixed.commit();
    expect(s.snapshot()).not.toBe(b);
    expect(s.snapshot().items).toEqual([1, 2, 3, 4]);
    expect(b.items).toEqual([1, 2, 3]);
  });

  it('replaceLast makes a one-item buffer that is frozen when handed out (storage and pending view), not before', () => {
    const s = new MemoryStorage<{ n: number }>([{ n: 0 }]);
    const tx = s.begin();
    tx.replaceLast?.({ n: 1 }, 1);
    const pending = tx.view().all();
    expect(Object.isFrozen(pending)).toBe(true);
    expect(() => (pending as { n: number }[]).push({ n: 9 })).toThrow(TypeError);
    tx.commit();
    const all = s.all();
    expect(all).toBe(pending);
    expect(s.all()).toBe(all);
    expect(Object.isFrozen(all)).toBe(true);
    const cap = s.snapshot();
    expect(Object.isFrozen(cap.items)).toBe(true);
    // With freeze off, nothing is frozen.
    const loose = new MemoryStorage<{ n: number }>([{ n: 0 }], 0, { freeze: false });
    const t2 = loose.begin();
    t2.replaceLast?.({ n: 1 }, 1);
    t2.commit();
    expect(Object.isFrozen(loose.all())).toBe(false);
  });

  it('one-item contents of one clock tick may share their time column; appending to one leaves the others their times', () => {
    const timesOf = (s: MemoryStorage<{ n: number }>): number[] => {
      const tx = s.begin();
      const times = Array.from({ length: tx.view().size }, (_, i) => tx.timeAt(i));
      tx.rollback();
      return times;
    };
    const a = new MemoryStorage<{ n: number }>([{ n: 0 }]);
    const b = new MemoryStorage<{ n: number }>([{ n: 0 }]);
    // Both replaced at the same time (one tick): state slices, so their contents are sealed.
    for (const s of [a, b]) {
      const tx = s.begin();
      tx.replaceLast?.({ n: 1 }, 500);
      tx.commit();
    }
    const captured = b.snapshot();
    // An append to `a` and a rolled-back append to `b` must not touch what `b` and its capture hold.
    a.append({ n: 2 }, 700);
    const tx = b.begin();
    tx.append({ n: 3 }, 800);
    tx.rollback();
    expect(timesOf(a)).toEqual([500, 700]);
    expect(timesOf(b)).toEqual([500]);
    b.append({ n: 4 }, 900);
    expect(timesOf(b)).toEqual([500, 900]);
    b.begin().restore(captured, 1_000);
    expect(timesOf(a)).toEqual([500, 700]);
    // A log slice (not sealed) keeps a column of its own: appending in place is fine.
    const log = new MemoryStorage<{ n: number }>([{ n: 0 }], 0, { sealOnReplace: false });
    const t2 = log.begin();
    t2.replaceLast?.({ n: 1 }, 500);
    t2.commit();
    log.append({ n: 2 }, 600);
    expect(timesOf(log)).toEqual([500, 600]);
    expect(timesOf(a)).toEqual([500, 700]);
  });

  it.each([
    ['state', true],
    ['log', false],
  ])('a replace (%s slice) keeps the time of each item kept at its index; changed and new items take its time', (_kind, sealOnReplace) => {
    // Enough items that the times column is in chunks (the same-length replace copies it whole).
    for (const size of [3, 5_000]) {
      const s = new MemoryStorage<{ n: number }>([], 0, { sealOnReplace });
      const items = Array.from({ length: size }, (_, n) => ({ n }));
      items.forEach((item, i) => s.append(item, 10 + i));
      const timesOf = (): number[] => {
        const tx = s.begin();
        const times = Array.from({ length: tx.view().size }, (_, i) => tx.timeAt(i));
        tx.rollback();
        return times;
      };
      // Same length, the middle item replaced.
      const mid = size >> 1;
      const same = items.slice();
      same[mid] = { n: -1 };
      let tx = s.begin();
      tx.replace(same, 99_000);
      tx.commit();
      const expected = items.map((_, i) => (i === mid ? 99_000 : 10 + i));
      expect(timesOf()).toEqual(expected);
      // Longer: the kept prefix keeps its times, the new item takes the replace's time.
      tx = s.begin();
      tx.replace([...same, { n: size }], 99_500);
      tx.commit();
      expect(timesOf()).toEqual([...expected, 99_500]);
      // Shorter, shifted by one: every item moved, so every one takes the new time.
      tx = s.begin();
      tx.replace(same.slice(1), 99_900);
      tx.commit();
      expect(timesOf()).toEqual(same.slice(1).map(() => 99_900));
    }
  });

  it('allows one open transaction at a time', () => {
    const s = new MemoryStorage<number>();
    const tx = s.begin();
    expect(() => s.begin()).toThrow(/already open/);
    tx.rollback();
    expect(() => s.begin().rollback()).not.toThrow();
  });
});

describe('MemoryStorage without sealOnReplace (log slices)', () => {
  storageConformance('memory (log)', (initial) => new MemoryStorage(initial, 0, { sealOnReplace: false }));

  it('keeps appending in place after a replace: no copy of the whole log on the next append', () => {
    const s = new MemoryStorage<number>([], 0, { sealOnReplace: false });
    s.extend([1, 2, 3], 0);
    s.replace([1, 20, 3], 0);
    const buffer = (s as unknown as { content: { buf: number[] } }).content.buf;
    const before = s.all();
    s.append(4, 0);
    expect((s as unknown as { content: { buf: number[] } }).content.buf).toBe(buffer);
    expect(before).toEqual([1, 20, 3]);
    expect(s.all()).toEqual([1, 20, 3, 4]);
    expect(() => (before as number[]).push(9)).toThrow(TypeError);
  });
});

describe('MemoryStorage.all(): a frozen copy once the appends since the last copy reach the size', () => {
  const isView = (items: readonly unknown[]): boolean => isArrayView(items);

  it('a log read after many appends is a real frozen array (array-speed index reads)', () => {
    const s = new MemoryStorage<number>();
    s.extend(
      Array.from({ length: 10_000 }, (_, i) => i),
      0,
    );
    const all = s.all();
    expect(isView(all)).toBe(false);
    expect(Object.isFrozen(all)).toBe(true);
    expect(all.length).toBe(10_000);
    expect(all[9_999]).toBe(9_999);
    expect(s.all()).toBe(all);
  });

  it('reading after every append copies O(n) items in total (doubling), and every read is right', () => {
    const s = new MemoryStorage<number>();
    let copies = 0;
    let copied = 0;
    const reads: (readonly number[])[] = [];
    for (let i = 0; i < 1_000; i++) {
      s.append(i, 0);
      const all = s.all();
      if (!isView(all)) {
        copies++;
        copied += all.length;
      }
      expect(all.length).toBe(i + 1);
      expect(all[i]).toBe(i);
      reads.push(all);
    }
    // Copies at sizes 1, 2, 4, ..., 512: ten copies, 1,023 items, against 500,500 for a copy per read.
    expect(copies).toBe(10);
    expect(copied).toBe(1_023);
    // Every version's array still holds what it held (views and copies alike).
    reads.forEach((all, i) => expect(all.length).toBe(i + 1));
    expect(reads[499]?.[499]).toBe(499);
  });

  it('a bounded log (evictions) copies once per `size` appends', () => {
    const s = new MemoryStorage<number>();
    let copies = 0;
    for (let i = 0; i < 1_000; i++) {
      const tx = s.begin();
      tx.append(i, 0);
      if (tx.view().size > 100) tx.dropFront(1);
      tx.commit();
      const all = s.all();
      if (!isView(all)) copies++;
      expect(all[all.length - 1]).toBe(i);
      expect(all.length).toBe(Math.min(i + 1, 100));
    }
    // Doubling at 1, 2, ..., 64 (7 copies), then one per 100 appends once full (128, 228, ..., 928: 9).
    expect(copies).toBe(16);
  });
});
