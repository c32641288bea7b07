import { describe, expect, it } from 'vitest';
import type { SliceStorage } from '../../src/index';

/**
 * The shared conformance suite every SliceStorage backend runs (memory now; files and
 * databases later): transactions are all-or-nothing, views never change, versions count commits.
 */
export function storageConformance(name: string, make: (initial?: readonly unknown[]) => SliceStorage<unknown>): void {
  describe(`SliceStorage conformance: ${name}`, () => {
    it('starts with the initial items at version 0', () => {
      const s = make([{ a: 1 }]);
      expect(s.version).toBe(0);
      expect(s.size).toBe(1);
      expect(s.all()).toEqual([{ a: 1 }]);
      expect(s.latest()).toEqual({ a: 1 });
    });

    it('commits appends, extends, replaces and clears, one version each', () => {
      const s = make();
      s.append(1, 0);
      s.extend([2, 3], 0);
      expect(s.all()).toEqual([1, 2, 3]);
      expect(s.version).toBe(2);
      s.replace([9], 0);
      expect(s.all()).toEqual([9]);
      s.append(10, 0);
      s.clear((x) => x === 9);
      expect(s.all()).toEqual([10]);
      s.clear();
      expect(s.all()).toEqual([]);
      expect(s.latest()).toBeUndefined();
      expect(s.version).toBe(6);
    });

    it('a clear whose predicate throws changes nothing and leaves no transaction open', () => {
      const s = make([1, 2, 3]);
      const boom = new Error('predicate failed');
      expect(() =>
        s.clear((x) => {
          if (x === 2) throw boom;
          return true;
        }),
      ).toThrow(boom);
      expect(s.all()).toEqual([1, 2, 3]);
      expect(s.version).toBe(0);
      // The next write opens its own transaction (it used to find the failed one still open).
      s.append(4, 0);
      s.clear((x) => x === 1);
      expect(s.all()).toEqual([2, 3, 4]);
      expect(s.version).toBe(2);
    });

    it('replaceLast (where the backend has it) replaces the newest item, or appends to an empty slice; rollback undoes it', () => {
      const probe = make();
      const probeTx = probe.begin();
      const has = probeTx.replaceLast !== undefined;
      probeTx.rollback();
      probe.dispose();
      // Without it, the session falls back to replace for this backend.
      if (!has) return;
      const t = make();
      const first = t.begin();
      first.replaceLast?.({ n: 1 }, 5);
      expect(first.view().all()).toEqual([{ n: 1 }]);
      first.commit();
      const v1 = t.all();
      const one = t.begin();
      one.replaceLast?.({ n: 2 }, 6);
      expect(one.view().latest()).toEqual({ n: 2 });
      expect(one.timeAt(0)).toBe(6);
      one.commit();
      expect(t.all()).toEqual([{ n: 2 }]);
      expect(t.version).toBe(2);
      expect(v1).toEqual([{ n: 1 }]);
      const gone = t.begin();
      gone.replaceLast?.({ n: 3 }, 7);
      gone.rollback();
      expect(t.all()).toEqual([{ n: 2 }]);
      expect(t.version).toBe(2);
      t.extend([{ n: 4 }, { n: 5 }], 8);
      const many = t.begin();
      many.replaceLast?.({ n: 6 }, 9);
      expect(many.timeAt(0)).toBe(6);
      expect(many.timeAt(2)).toBe(9);
      many.commit();
      expect(t.all()).toEqual([{ n: 2 }, { n: 4 }, { n: 6 }]);
    });

    it('updateAt replaces one item in place: the others keep their identity, index and time; views and captures keep the old item', () => {
      const a = { n: 'a' };
      const b = { n: 'b' };
      const c = { n: 'c' };
      const s = make();
      s.extend([a, b, c], 10);
      const before = s.all();
      const cap = s.snapshot();
      const tx = s.begin();
      // Every backend of this suite has it (the session's fallback is for backends of others).
      expect(typeof tx.updateAt).toBe('function');
      const B = { n: 'B' };
      tx.updateAt?.(1, B, 20);
      expect(tx.changed).toBe(true);
      expect(tx.view().all()).toEqual([a, B, c]);
      expect(tx.view().size).toBe(3);
      expect(tx.view().at(1)).toBe(B);
      expect([tx.timeAt(0), tx.timeAt(1), tx.timeAt(2)]).toEqual([10, 20, 10]);
      expect(tx.appended).toBe(3);
      // Not visible before the commit.
      expect(s.all()[1]).toBe(b);
      tx.commit();
      expect(s.version).toBe(2);
      const after = s.all();
      expect(after[0]).toBe(a);
      expect(after[1]).toBe(B);
      expect(after[2]).toBe(c);
      expect(after.length).toBe(3);
      expect(before).toEqual([a, b, c]);
      expect(before[1]).toBe(b);
      expect(cap.items[1]).toBe(b);
      // Appends go on after it; the updated content is intact.
      s.append({ n: 'd' }, 30);
      expect(s.all()).toEqual([a, B, c, { n: 'd' }]);
      expect(after).toEqual([a, B, c]);
      // The same item changes nothing.
      const same = s.begin();
      same.updateAt?.(1, B, 40);
      expect(same.changed).toBe(false);
      expect(same.timeAt(1)).toBe(20);
      same.commit();
      expect(s.version).toBe(3);
      // Restoring the capture brings the old item back.
      const back = s.begin();
      back.restore(cap, 50);
      back.commit();
      expect(s.all()[1]).toBe(b);
    });

    it('updateAt refuses an index that names no item, changing nothing, and rolls back completely', () => {
      const s = make([1, 2, 3]);
      const tx = s.begin();
      for (const bad of [3, -1, 1.5, Number.NaN]) expect(() => tx.updateAt?.(bad, 9, 5)).toThrow(RangeError);
      expect(tx.changed).toBe(false);
      expect(tx.view().all()).toEqual([1, 2, 3]);
      tx.rollback();
      const empty = make();
      const none = empty.begin();
      expect(() => none.updateAt?.(0, 9, 5)).toThrow(RangeError);
      none.rollback();
      const rolled = s.begin();
      rolled.append(4, 1);
      rolled.updateAt?.(0, 10, 1);
      rolled.updateAt?.(3, 40, 1);
      expect(rolled.view().all()).toEqual([10, 2, 3, 40]);
      expect(rolled.dropFront(1)).toEqual([10]);
      rolled.rollback();
      expect(s.all()).toEqual([1, 2, 3]);
      expect(s.version).toBe(0);
      s.append(5, 2);
      expect(s.all()).toEqual([1, 2, 3, 5]);
    });

    it('rolls back a transaction completely', () => {
      const s = make([1, 2]);
      const before = s.all();
      const tx = s.begin();
      tx.append(3, 0);
      tx.dropFront(1);
      expect(tx.view().all()).toEqual([2, 3]);
      tx.rollback();
      expect(s.all()).toEqual([1, 2]);
      expect(s.version).toBe(0);
      expect(before).toEqual([1, 2]);
      s.append(4, 0);
      expect(s.all()).toEqual([1, 2, 4]);
    });

    it('hands out views that never change afterwards', () => {
      const s = make();
      s.append(1, 0);
      const v1 = s.all();
      s.append(2, 0);
      const v2 = s.all();
      const tx = s.begin();
      tx.append(3, 0);
      tx.rollback();
      s.append(4, 0);
      s.replace([7], 0);
      expect(v1).toEqual([1]);
      expect(v2).toEqual([1, 2]);
      expect(s.all()).toEqual([7]);
    });

    it('restores a capture, and appends after a restore do not disturb later views', () => {
      const s = make();
      s.extend([1, 2], 0);
      const cap = s.snapshot();
      s.extend([3, 4], 0);
      const later = s.all();
      const tx = s.begin();
      tx.restore(cap, 0);
      tx.commit();
      expect(s.all()).toEqual([1, 2]);
      s.append(5, 0);
      expect(s.all()).toEqual([1, 2, 5]);
      expect(later).toEqual([1, 2, 3, 4]);
      expect(cap.items).toEqual([1, 2]);
    });

    it('keeps every capture intact when the content shrinks after a restore', () => {
      const s = make();
      s.extend([1, 2], 0);
      const short = s.snapshot();
      s.append(3, 0);
      const long = s.snapshot();
      const restore = s.begin();
      restore.restore(short, 0);
      restore.commit();
      // Evicting from the back, then appending, must not truncate what `long` holds.
      const tx = s.begin();
      expect(tx.dropBack(1)).toEqual([2]);
      tx.commit();
      s.append(4, 0);
      expect(s.all()).toEqual([1, 4]);
      expect(long.items).toEqual([1, 2, 3]);
      expect(short.items).toEqual([1, 2]);
      const back = s.begin();
      back.restore(long, 0);
      back.commit();
      expect(s.all()).toEqual([1, 2, 3]);
    });

    it('captures the same content as often as asked, and restores a capture exactly', () => {
      const s = make();
      s.extend([1, 2], 0);
      const a = s.snapshot();
      expect(s.snapshot().items).toEqual(a.items);
      s.extend([3, 4], 0);
      const tx = s.begin();
      tx.restore(a, 0);
      tx.commit();
      expect(s.version).toBe(3);
      const again = s.snapshot();
      expect(again.items).toEqual([1, 2]);
      expect(again.appended).toBe(a.appended);
      s.append(5, 0);
      expect(s.snapshot().items).toEqual([1, 2, 5]);
      expect(again.items).toEqual([1, 2]);
    });

    it('leaves a capture intact when the transaction that restored it goes on changing, or rolls back', () => {
      const s = make();
      s.extend([1, 2, 3, 4], 0);
      const cap = s.snapshot();
      s.append(5, 0);
      const tx = s.begin();
      tx.restore(cap, 0);
      expect(tx.dropFront(1)).toEqual([1]);
      expect(tx.dropBack(1)).toEqual([4]);
      tx.append(6, 0);
      expect(tx.view().all()).toEqual([2, 3, 6]);
      tx.commit();
      expect(s.all()).toEqual([2, 3, 6]);
      expect(cap.items).toEqual([1, 2, 3, 4]);
      const discarded = s.begin();
      discarded.restore(cap, 0);
      discarded.append(7, 0);
      discarded.rollback();
      expect(s.all()).toEqual([2, 3, 6]);
      const back = s.begin();
      back.restore(cap, 0);
      back.commit();
      expect(s.all()).toEqual([1, 2, 3, 4]);
      s.append(8, 0);
      expect(s.all()).toEqual([1, 2, 3, 4, 8]);
      expect(cap.items).toEqual([1, 2, 3, 4]);
    });

    it('drops from the front, the back and by index, returning what it dropped', () => {
      const s = make([1, 2, 3, 4, 5]);
      const tx = s.begin();
      expect(tx.dropFront(2)).toEqual([1, 2]);
      expect(tx.dropBack(1)).toEqual([5]);
      expect(tx.dropIndices([1])).toEqual([4]);
      tx.commit();
      expect(s.all()).toEqual([3]);
    });

    it('records item times and the appended counter', () => {
      const s = make();
      s.append('a', 10);
      s.append('b', 20);
      const tx = s.begin();
      expect(tx.timeAt(0)).toBe(10);
      expect(tx.timeAt(1)).toBe(20);
      expect(tx.appended).toBe(2);
      tx.rollback();
    });
  });
}
