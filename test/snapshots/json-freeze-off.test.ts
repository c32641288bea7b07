import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { append, createSession, defineEvent, defineSlice, InvalidSnapshotError, snapshotFromJSON, UnknownSliceError } from '../../src/index';
import { outcome, snapshotText } from './snapshot-text';

/**
 * `snapshotFromJSON(text, slices, { freeze: false })` (the default under `NODE_ENV=production`,
 * issue 36's 7j): the snapshot, its entries and items arrays are frozen, the items are not; the
 * checks of untrusted input are the same (depth, shape, names), and a session that freezes its
 * items freezes them as it restores them.
 */
const Added = defineEvent('json-freeze-off/added', z.object({ text: z.string() }));
const Plan = defineSlice('plan', { policy: 'state', initial: [{ step: 'a', sub: { n: 1 } }] });
const Notes = defineSlice('notes', {
  policy: 'log',
  reducers: ({ on }) => [on(Added, (_view, e) => append({ text: e.payload.text }))],
});

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('snapshotFromJSON without freezing the items', () => {
  it('freezes the snapshot’s arrays and not its items, which read as with freezing', () => {
    const text = snapshotText({ plan: { policy: 'state', items: [{ step: 'x', sub: { n: 2 } }, [1, { y: 2 }]] } });
    const read = snapshotFromJSON(text, [Plan], { freeze: false });
    const items = read.slices['plan']?.items as [{ sub: object }, [number, object]];
    expect(Object.isFrozen(read.slices)).toBe(true);
    expect(Object.isFrozen(read.slices['plan'])).toBe(true);
    expect(Object.isFrozen(items)).toBe(true);
    for (const value of [items[0], items[0].sub, items[1], items[1][1]]) expect(Object.isFrozen(value)).toBe(false);
    expect(items).toEqual(snapshotFromJSON(text, [Plan], { freeze: true }).slices['plan']?.items);
    const frozen = snapshotFromJSON(text, [Plan]).slices['plan']?.items as [{ sub: object }];
    expect([Object.isFrozen(frozen[0]), Object.isFrozen(frozen[0].sub)]).toEqual([true, true]);
  });

  it('follows NODE_ENV by default, as a session’s freeze does', () => {
    const text = snapshotText({ plan: { policy: 'state', items: [{ step: 'x' }] } });
    vi.stubEnv('NODE_ENV', 'production');
    expect(Object.isFrozen(snapshotFromJSON(text, [Plan]).slices['plan']?.items[0])).toBe(false);
    expect(Object.isFrozen(snapshotFromJSON(text, [Plan], { freeze: true }).slices['plan']?.items[0])).toBe(true);
    vi.stubEnv('NODE_ENV', 'test');
    expect(Object.isFrozen(snapshotFromJSON(text, [Plan]).slices['plan']?.items[0])).toBe(true);
  });

  it('refuses exactly what the freezing walk refuses, at every depth limit', () => {
    const lists: unknown[][] = [[1, 'x', null], [{}], [[]], [{ a: 1 }, { b: {} }], [[[]]], [{ a: [{ b: [1] }] }], [3, { deep: { er: { still: {} } } }]];
    for (const list of lists) {
      const text = snapshotText({ plan: { policy: 'state', items: list } });
      for (let maxDepth = 3; maxDepth <= 9; maxDepth++) {
        const off = outcome(() => snapshotFromJSON(text, [Plan], { maxDepth, freeze: false }));
        expect(off, `${JSON.stringify(list)} at maxDepth ${maxDepth}`).toBe(outcome(() => snapshotFromJSON(text, [Plan], { maxDepth, freeze: true })));
        if (off !== 'read') expect(off).toMatch(new RegExp(`nests deeper than ${maxDepth} levels`));
      }
    }
  });

  it('an untrusted snapshot that is too deep, names __proto__ or is malformed applies nothing', () => {
    const session = createSession({ slices: [Plan, Notes] });
    session.dispatch(Added({ text: 'kept' }));
    const before = JSON.stringify(session.snapshot({ includeLogs: true }).slices);
    const lastSeq = session.lastSeq;
    let deep: unknown = 1;
    for (let i = 0; i < 600; i++) deep = [deep];
    const bad = [
      [snapshotText({ plan: { policy: 'state', items: [deep] } }), InvalidSnapshotError, /nests deeper than/],
      ['{"format":"rxslice.snapshot","formatVersion":3,"seq":0,"at":0,"slices":{"__proto__":{"policy":"state","items":[]}}}', UnknownSliceError, /__proto__/],
      [snapshotText({ plan: { policy: 'state', items: { 0: { step: 'x' } } } }), InvalidSnapshotError, /envelope is malformed/],
      [snapshotText({ plan: { policy: 'state', items: [{ step: 'x' }] }, notes: { policy: 'nope', items: [] } }), InvalidSnapshotError, /envelope is malformed/],
    ] as const;
    for (const [text, type, message] of bad) {
      for (const freeze of [false, true]) {
        let thrown: unknown;
        try {
          session.restore(snapshotFromJSON(text, [Plan, Notes], { freeze }));
        } catch (error) {
          thrown = error;
        }
        expect(thrown).toBeInstanceOf(type);
        expect((thrown as Error).message).toMatch(message);
      }
    }
    expect(JSON.stringify(session.snapshot({ includeLogs: true }).slices)).toBe(before);
    expect(session.lastSeq).toBe(lastSeq);
    expect(({} as Record<string, unknown>)['policy']).toBeUndefined();
  });

  it('keeps an item’s own "__proto__" key as data, never as a prototype', () => {
    const text = '{"format":"rxslice.snapshot","formatVersion":3,"seq":0,"at":0,"slices":{"plan":{"policy":"state","items":[{"__proto__":{"polluted":true},"step":"x"}]}}}';
    const session = createSession({ slices: [Plan], freeze: false });
    session.restore(snapshotFromJSON(text, [Plan], { freeze: false }));
    const [item] = session.slice(Plan).all() as unknown as [Record<string, unknown>];
    expect(Object.getPrototypeOf(item)).toBe(Object.prototype);
    expect(Object.hasOwn(item, '__proto__')).toBe(true);
    expect(item['polluted']).toBeUndefined();
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(JSON.parse(JSON.stringify(session.snapshot())).slices.plan.items).toEqual(JSON.parse(text).slices.plan.items);
  });

  it('a session with freeze on deep-freezes the items it restores; one without leaves them', () => {
    const text = snapshotText({ plan: { policy: 'state', items: [{ step: 'x', sub: { n: 2 } }] } });
    const frozenSession = createSession({ slices: [Plan], freeze: true });
    frozenSession.restore(snapshotFromJSON(text, [Plan], { freeze: false }));
    const [kept] = frozenSession.slice(Plan).all() as unknown as [{ sub: object }];
    expect([Object.isFrozen(kept), Object.isFrozen(kept.sub)]).toEqual([true, true]);
    const plainSession = createSession({ slices: [Plan], freeze: false });
    plainSession.restore(snapshotFromJSON(text, [Plan], { freeze: false }));
    const [plain] = plainSession.slice(Plan).all() as unknown as [{ sub: object }];
    expect([Object.isFrozen(plain), Object.isFrozen(plain.sub)]).toEqual([false, false]);
  });

  it('appending after restoring a log slice never changes the snapshot it was restored from', () => {
    const session = createSession({ slices: [Plan, Notes], freeze: false });
    const text = snapshotText({ notes: { policy: 'log', items: [{ text: 'one' }, { text: 'two' }] } });
    const read = snapshotFromJSON(text, [Plan, Notes], { freeze: false });
    session.restore(read);
    session.dispatch(Added({ text: 'three' }));
    expect(read.slices['notes']?.items).toEqual([{ text: 'one' }, { text: 'two' }]);
    session.restore(read);
    expect(session.slice(Notes).all()).toEqual([{ text: 'one' }, { text: 'two' }]);
    expect(JSON.parse(JSON.stringify(read)).slices.notes.items).toEqual([{ text: 'one' }, { text: 'two' }]);
  });
});
