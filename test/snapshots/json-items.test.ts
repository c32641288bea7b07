import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { append, createSession, defineEvent, defineSlice, snapshotFromJSON } from '../../src/index';
import { isArrayView } from '../../src/internal/array-view';
import { outcome, snapshotText } from './snapshot-text';

/**
 * The JSON round trip of a snapshot (issue 36): `toJSON` hands `JSON.stringify` plain arrays it
 * walks on its fast path (a spread copy of a slice's frozen array, a `slice()` of a storage's
 * read-only view, which `JSON.stringify` would read through its proxy), and `snapshotFromJSON`
 * keeps the parsed array of a slice without a schema (it is the call's own), frozen.
 */
const Noted = defineEvent('json-items/noted', z.object({ text: z.string() }));
const Plan = defineSlice('plan', {
  policy: 'state',
  initial: [{ step: 'a' }, { step: 'b' }],
});
const Notes = defineSlice('notes', {
  policy: 'log',
  schema: z.object({ text: z.string() }),
  reducers: ({ on }) => [on(Noted, (_view, e) => append({ text: e.payload.text }))],
});

describe('snapshot JSON item arrays', () => {
  it('toJSON hands out a plain copy of a state slice’s frozen array and of a view, and leaves the snapshot’s arrays as they are', () => {
    const session = createSession({ slices: [Plan, Notes] });
    // The first read copies three items; one append after it leaves the log's items a
    // read-only view of its buffer (the next copy is due after as many appends as were copied).
    for (const text of ['one', 'two', 'three']) session.dispatch(Noted({ text }));
    void session.slice(Notes).all();
    session.dispatch(Noted({ text: 'four' }));
    const snapshot = session.snapshot({ includeLogs: true });
    const json = snapshot.toJSON();
    // A copy (JSON.stringify reads a frozen array on V8's generic path), with the same items.
    const planItems = snapshot.slices['plan']?.items;
    expect(Object.isFrozen(planItems)).toBe(true);
    expect(json.slices['plan']?.items).not.toBe(planItems);
    expect(Object.isFrozen(json.slices['plan']?.items)).toBe(false);
    expect(json.slices['plan']?.items).toEqual(planItems);
    json.slices['plan']?.items.forEach((item, i) => expect(item).toBe(planItems?.[i]));
    expect(snapshot.slices['plan']?.items).toBe(planItems);
    const logItems = snapshot.slices['notes']?.items;
    expect(isArrayView(logItems)).toBe(true);
    expect(isArrayView(json.slices['notes']?.items)).toBe(false);
    const texts = ['one', 'two', 'three', 'four'].map((text) => ({ text }));
    expect(json.slices['notes']?.items).toEqual(texts);
    expect(JSON.parse(JSON.stringify(snapshot)).slices.notes.items).toEqual(texts);
  });

  it('snapshotFromJSON freezes a schema-less slice’s items, and never the caller’s parsed object', () => {
    const session = createSession({ slices: [Plan, Notes] });
    const text = JSON.stringify(session.snapshot());
    const read = snapshotFromJSON(text, [Plan, Notes]);
    expect(read.slices['plan']?.items).toEqual([{ step: 'a' }, { step: 'b' }]);
    expect(Object.isFrozen(read.slices['plan']?.items)).toBe(true);
    expect(Object.isFrozen(read.slices['plan']?.items[0])).toBe(true);
    const parsed = JSON.parse(text) as { slices: { plan: { items: object[] } } };
    const fromObject = snapshotFromJSON(parsed, [Plan, Notes]);
    expect(fromObject.slices['plan']?.items).not.toBe(parsed.slices.plan.items);
    expect(Object.isFrozen(parsed.slices.plan.items)).toBe(false);
    session.restore(read);
    expect(session.slice(Plan).all()).toEqual([{ step: 'a' }, { step: 'b' }]);
  });

  it('guard: the items of a schema-less slice read from JSON are frozen at every level (frozen while their depth is checked)', () => {
    const Deep = defineSlice('deep', { policy: 'state' });
    const item = { step: 'a', sub: { list: [1, { y: [2, { z: 3 }] }] } };
    const text = JSON.stringify({ format: 'rxslice.snapshot', formatVersion: 3, seq: 0, at: 0, slices: { deep: { policy: 'state', items: [item, [item]] } } });
    const read = snapshotFromJSON(text, [Deep]);
    const unfrozen: string[] = [];
    const walk = (value: unknown, path: string): void => {
      if (value === null || typeof value !== 'object') return;
      if (!Object.isFrozen(value)) unfrozen.push(path);
      for (const [key, child] of Object.entries(value)) walk(child, `${path}.${key}`);
    };
    walk(read.slices['deep']?.items, 'items');
    expect(unfrozen).toEqual([]);
    expect(read.slices['deep']?.items).toEqual([item, [item]]);
    expect(() => snapshotFromJSON(text, [Deep], { maxDepth: 8 })).toThrow(/nests deeper than 8 levels/);
  });
});

describe('snapshotFromJSON: the walk that freezes kept items checks depth as the plain walk does', () => {
  // The root is at depth 0, `slices` at 1, the slice at 2, `items` at 3, an item at 4.
  const Kept = defineSlice('kept', { policy: 'state' });
  const Checked = defineSlice('checked', { policy: 'state', schema: z.unknown() });
  const items: unknown[][] = [[1, 'x', null], [{}], [[]], [{ a: 1 }, { b: {} }], [[[]]], [{ a: [{ b: [1] }] }], [3, { deep: { er: { still: {} } } }]];
  const text = (name: string, list: unknown[]) => snapshotText({ [name]: { policy: 'state', items: list } });

  it('refuses exactly what a slice with a schema (not frozen by the walk) is refused, at every limit', () => {
    for (const list of items) {
      for (let maxDepth = 3; maxDepth <= 9; maxDepth++) {
        const kept = outcome(() => snapshotFromJSON(text('kept', list), [Kept], { maxDepth }));
        const checked = outcome(() => snapshotFromJSON(text('checked', list), [Checked], { maxDepth }));
        expect(kept, `${JSON.stringify(list)} at maxDepth ${maxDepth}`).toBe(checked);
        if (kept !== 'read') expect(kept).toMatch(new RegExp(`nests deeper than ${maxDepth} levels`));
      }
    }
    // An item object at depth 4 is refused by a limit of 4, a primitive item is not.
    expect(() => snapshotFromJSON(text('kept', [{}]), [Kept], { maxDepth: 4 })).toThrow(/nests deeper than 4 levels/);
    expect(() => snapshotFromJSON(text('kept', [1]), [Kept], { maxDepth: 4 })).not.toThrow();
    // An item's child at depth 5 is refused by a limit of 5.
    expect(() => snapshotFromJSON(text('kept', [{ a: {} }]), [Kept], { maxDepth: 5 })).toThrow(/nests deeper than 5 levels/);
    expect(() => snapshotFromJSON(text('kept', [{ a: 1 }]), [Kept], { maxDepth: 5 })).not.toThrow();
  });

  it('freezes every level of items given as an object whose copy shares a sub-object', () => {
    const shared = { tag: { name: 't' } };
    const data = { format: 'rxslice.snapshot', formatVersion: 3, seq: 0, at: 0, slices: { kept: { policy: 'state', items: [shared, { again: shared }, [shared]] } } };
    const read = snapshotFromJSON(data, [Kept]);
    const [first, second, third] = read.slices['kept']?.items as [typeof shared, { again: typeof shared }, (typeof shared)[]];
    for (const value of [first, first.tag, second, second.again, second.again.tag, third, third[0], third[0]?.tag]) expect(Object.isFrozen(value)).toBe(true);
    expect(Object.isFrozen(shared)).toBe(false);
  });
});
