import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { append, createSession, defineEvent, defineSlice, snapshotFromJSON } from '../../src/index';
import { isArrayView } from '../../src/internal/array-view';

/**
 * The JSON round trip of a snapshot copies no item array it need not (issue 36): `toJSON` hands
 * `JSON.stringify` a slice's immutable array itself (copying only a storage's read-only view,
 * which `JSON.stringify` would read through its proxy), and `snapshotFromJSON` keeps the parsed
 * array of a slice without a schema (it is the call's own), frozen.
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
  it('toJSON hands out a state slice’s frozen array itself, and a plain copy of a view', () => {
    const session = createSession({ slices: [Plan, Notes] });
    // The first read copies three items; one append after it leaves the log's items a
    // read-only view of its buffer (the next copy is due after as many appends as were copied).
    for (const text of ['one', 'two', 'three']) session.dispatch(Noted({ text }));
    void session.slice(Notes).all();
    session.dispatch(Noted({ text: 'four' }));
    const snapshot = session.snapshot({ includeLogs: true });
    const json = snapshot.toJSON();
    expect(json.slices['plan']?.items).toBe(snapshot.slices['plan']?.items);
    expect(Object.isFrozen(json.slices['plan']?.items)).toBe(true);
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
