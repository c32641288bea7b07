import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  append,
  createSession,
  defineEvent,
  defineSlice,
  InvalidSliceDefinitionError,
  InvalidSliceItemError,
  isRxSliceError,
  snapshotFromJSON,
  SliceWindow,
  UnknownSliceError,
  type EvictedItems,
  type Snapshot,
} from '../../src/index';
import { Counter, CounterBumped, Notes } from '../fixtures';

const handMade = (slices: unknown, rest: Record<string, unknown> = {}): Snapshot =>
  ({ formatVersion: 1, seq: 0, at: 0, tag: undefined, slices, toJSON: () => ({}) as never, ...rest }) as unknown as Snapshot;

/** Runs `fn`, expects a library error with a code, and checks that the session did not change. */
function expectTypedAndUnchanged(session: ReturnType<typeof createSession>, fn: () => void): string {
  const before = session.snapshot({ includeLogs: true });
  const seq = session.lastSeq;
  let error: unknown;
  try {
    fn();
  } catch (e) {
    error = e;
  }
  expect(isRxSliceError(error), `expected a library error, got ${String(error)}`).toBe(true);
  expect(session.lastSeq).toBe(seq);
  expect(session.snapshot({ includeLogs: true }).toJSON().slices).toEqual(before.toJSON().slices);
  return (error as { code: string }).code;
}

describe('slice names', () => {
  it.each(['__proto__', 'constructor', 'prototype', '', 'a\\b', '../etc', 'a/../b', 'a/./b', '/abs', 'trail/', 'a//b', 'nul\u0000', 'tab\tname', 'x/__proto__'])(
    'rejects %j in defineSlice',
    (name) => {
      expect(() => defineSlice(name, { policy: 'state' })).toThrow(InvalidSliceDefinitionError);
    },
  );

  it('a definition made without defineSlice is checked when registered', () => {
    const forged = { ...defineSlice('ok', { policy: 'state' }), name: '__proto__' };
    expect(() => createSession({ slices: [forged] })).toThrow(InvalidSliceDefinitionError);
  });

  it('accepts ordinary names and machine-style paths', () => {
    for (const name of ['plan', 'machine/agent', 'a.b', 'chat-messages', 'Plan_2', 'ns/sub/leaf']) {
      expect(defineSlice(name, { policy: 'state' }).name).toBe(name);
    }
  });

  it('snapshot JSON naming an unsafe slice is rejected with UnknownSliceError', () => {
    const text = '{"format":"rxslice.snapshot","formatVersion":1,"seq":0,"at":0,"slices":{"__proto__":{"policy":"state","items":[]}}}';
    expect(() => snapshotFromJSON(text, [Counter])).toThrow(UnknownSliceError);
    const ctor = '{"format":"rxslice.snapshot","formatVersion":1,"seq":0,"at":0,"slices":{"constructor":{"policy":"state","items":[]}}}';
    expect(() => snapshotFromJSON(ctor, [Counter])).toThrow(UnknownSliceError);
  });

  it('a hand-made snapshot naming __proto__ or constructor is UnknownSliceError', () => {
    const s = createSession({ slices: [Counter] });
    const slices = Object.create(null) as Record<string, unknown>;
    slices['__proto__'] = { policy: 'state', items: [] };
    expect(expectTypedAndUnchanged(s, () => s.restore(handMade(slices)))).toBe('UNKNOWN_SLICE');
    expect(expectTypedAndUnchanged(s, () => s.restore(handMade({}), { slices: ['constructor'] }))).toBe('UNKNOWN_SLICE');
  });
});

describe('restore applies the slice window', () => {
  it('a count(5) slice keeps its newest 5 items after restoring 1,000, and reports the evictions', () => {
    const Added = defineEvent('n/added', z.number());
    const Recent = defineSlice('recent', { policy: 'state', schema: z.number(), window: SliceWindow.count(5), reducers: ({ on }) => [on(Added, (_v, e) => append(e.payload))] });
    const s = createSession({ slices: [Recent] });
    const evicted: EvictedItems[] = [];
    s.evicted$.subscribe((e) => evicted.push(e));
    const items = Array.from({ length: 1000 }, (_, i) => i);
    const text = JSON.stringify({ format: 'rxslice.snapshot', formatVersion: 1, seq: 0, at: 0, slices: { recent: { policy: 'state', items } } });
    s.restore(snapshotFromJSON(text, [Recent]));
    expect(s.slice(Recent).all()).toEqual([995, 996, 997, 998, 999]);
    expect(evicted).toHaveLength(1);
    expect(evicted[0]?.items).toHaveLength(995);
    expect(evicted[0]?.slice).toBe('recent');
    s.restore(handMade({ recent: { policy: 'state', version: 0, items } }));
    expect(s.slice(Recent).all()).toEqual([995, 996, 997, 998, 999]);
  });
});

describe('restore of bad input is a typed error and changes nothing', () => {
  const session = () => {
    const s = createSession({ slices: [Counter, Notes] });
    s.dispatch(CounterBumped({ by: 2 }));
    return s;
  };

  it('null, undefined, a number, {} and a snapshot without slices', () => {
    const s = session();
    for (const bad of [null, undefined, 42, 'text', {}, { slices: null }, { slices: 7 }]) {
      expect(expectTypedAndUnchanged(s, () => s.restore(bad as never))).toBe('INVALID_SNAPSHOT');
    }
  });

  it('bad restore options', () => {
    const s = session();
    const snap = s.snapshot();
    expectTypedAndUnchanged(s, () => s.restore(snap, { slices: 'counter' as never }));
    expectTypedAndUnchanged(s, () => s.restore(snap, { slices: [7 as never] }));
  });

  it('a hand-made snapshot holding a function, a BigInt, a cycle or a class instance', () => {
    const s = session();
    const cycle: Record<string, unknown> = { n: 1 };
    cycle['self'] = cycle;
    for (const item of [{ n: () => 1 }, { n: 1, f: () => 1 }, { n: 1n }, cycle, { n: 1, d: new Date(0) }]) {
      expect(expectTypedAndUnchanged(s, () => s.restore(handMade({ counter: { policy: 'state', version: 0, items: [item] } })))).toBe(
        'INVALID_SLICE_ITEM',
      );
    }
    const Free = defineSlice('free', { policy: 'state' });
    const f = createSession({ slices: [Free] });
    for (const item of [() => 1, { a: 1n }, cycle, new Map()]) {
      expectTypedAndUnchanged(f, () => f.restore(handMade({ free: { policy: 'state', version: 0, items: [item] } })));
    }
  });

  it('a 100,000-deep hand-made item, with and without a schema', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = { d: deep };
    const Free = defineSlice('free', { policy: 'state' });
    const Lazy: z.ZodType<unknown> = z.lazy(() => z.union([z.number(), z.object({ d: Lazy })]));
    const Typed = defineSlice('typed', { policy: 'state', schema: Lazy });
    const s = createSession({ slices: [Free, Typed] });
    expect(expectTypedAndUnchanged(s, () => s.restore(handMade({ free: { policy: 'state', version: 0, items: [deep] } })))).toBe('INVALID_SLICE_ITEM');
    expect(expectTypedAndUnchanged(s, () => s.restore(handMade({ typed: { policy: 'state', version: 0, items: [deep] } })))).toBe('INVALID_SLICE_ITEM');
    expect(expectTypedAndUnchanged(s, () => s.slice(Free).seed([deep]))).toBe('INVALID_SLICE_ITEM');
  });

  it('throwing getters and proxies anywhere in a hand-made snapshot', () => {
    const s = session();
    const thrower = { get() { throw new Error('getter'); }, enumerable: true };
    const trap = new Proxy({}, { get() { throw new Error('trap'); }, ownKeys() { throw new Error('trap'); } });
    const cases: unknown[] = [
      Object.defineProperty({}, 'slices', thrower),
      handMade(Object.defineProperty({}, 'counter', thrower)),
      handMade({ counter: Object.defineProperty({ policy: 'state' }, 'items', thrower) }),
      handMade({ counter: { policy: 'state', items: [Object.defineProperty({}, 'n', thrower)] } }),
      handMade(trap),
      handMade({ counter: trap }),
      handMade({ counter: { policy: 'state', items: trap } }),
      handMade({ counter: { policy: 'state', items: [trap] } }),
      trap,
      Object.defineProperty({ ...handMade({ counter: { policy: 'state', items: [{ n: 1 }] } }), seq: undefined }, 'seq', thrower),
    ];
    for (const bad of cases) expectTypedAndUnchanged(s, () => s.restore(bad as never));
  });

  it('a seed holding a non-JSON value is rejected even with validation off', () => {
    const Free = defineSlice('free', { policy: 'state' });
    const s = createSession({ slices: [Free], validation: 'off' });
    expect(expectTypedAndUnchanged(s, () => s.slice(Free).seed([{ f: () => 1 }]))).toBe('INVALID_SLICE_ITEM');
    expect(() => s.slice(Free).seed([{ ok: 1 }])).not.toThrow();
  });

  it('still restores a valid hand-made snapshot (schema output kept)', () => {
    const s = session();
    s.restore(handMade({ counter: { policy: 'state', version: 0, items: [{ n: 9, extra: 1 }] } }));
    expect(s.slice(Counter).all()).toEqual([{ n: 9 }]);
    expect(() => s.restore(handMade({ counter: { policy: 'state', version: 0, items: [{ n: 'x' }] } }))).toThrow(InvalidSliceItemError);
  });
});
