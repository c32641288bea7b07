/**
 * `updateAt(index, item)` through the pipeline: one item swapped, validated and frozen, all or
 * nothing with the rest of the event, the window run after it, and the same result on a backend
 * without the storage method (the session's fallback to `replace`).
 */
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import {
  append,
  createSession,
  defineEvent,
  defineSlice,
  InvalidSliceItemError,
  none,
  ReducerError,
  SliceWindow,
  updateAt,
  type StorageFactory,
} from '../../src/index';
import { CopyStorage } from '../storage/copy-storage';

const Call = z.object({ id: z.string(), status: z.enum(['pending', 'ok', 'error']) });
type Call = z.infer<typeof Call>;
const Called = defineEvent('calls/called', z.object({ id: z.string() }));
const Settled = defineEvent('calls/settled', z.object({ id: z.string(), status: z.string() }));
const At = defineEvent('calls/at', z.object({ index: z.number(), status: z.string() }));

/** Settles the newest call with the id (`status` unchecked, so a bad one reaches the schema). */
const Calls = defineSlice('calls', {
  policy: 'log',
  schema: Call,
  // Keep failures (up to 2), plus the newest 3: a settled call can become protected.
  window: SliceWindow.composite(SliceWindow.predicate((c: Call) => c.status === 'error', 2), SliceWindow.count(3)),
  reducers: ({ on }) => [
    on(Called, (_v, e) => append<Call>({ id: e.payload.id, status: 'pending' })),
    on(Settled, (v, e) => {
      for (let i = v.size - 1; i >= 0; i--) {
        const call = v.at(i) as Call;
        if (call.id === e.payload.id) return updateAt(i, { ...call, status: e.payload.status as Call['status'] });
      }
      return none();
    }),
    on(At, (v, e) => updateAt(e.payload.index, { id: 'x', status: e.payload.status as Call['status'] })),
  ],
});
/** Changed by the same events, before `calls`: proves all or nothing. */
const Seen = defineSlice('seen', {
  policy: 'state',
  schema: z.number(),
  initial: [0],
  reducers: ({ onLatest }) => [onLatest(Settled, (n) => (n ?? 0) + 1), onLatest(At, (n) => (n ?? 0) + 1)],
});

const ids = (s: ReturnType<typeof open>): string[] => s.slice(Calls).all().map((c) => `${c.id}:${c.status}`);
const open = (storage?: StorageFactory) => createSession({ slices: [Seen, Calls], validation: 'always', ...(storage === undefined ? {} : { storage }) });

/** A backend without `updateAt` (the session falls back to `replace`). */
const withoutUpdateAt: StorageFactory = (slice) => {
  const storage = new CopyStorage(slice.initial);
  const begin = storage.begin.bind(storage);
  storage.begin = () => {
    // (Each transaction of CopyStorage is a fresh object.)
    const tx = begin();
    delete (tx as { updateAt?: unknown }).updateAt;
    return tx;
  };
  return storage;
};

describe.each([
  ['memory', undefined],
  ['a backend without updateAt (fallback to replace)', withoutUpdateAt],
] as const)('updateAt on %s', (_name, storage) => {
  it('swaps one item (validated, frozen), keeps the others by reference, and commits one version', () => {
    const s = open(storage);
    s.dispatch(Called({ id: 'a' }));
    s.dispatch(Called({ id: 'b' }));
    const before = s.slice(Calls).all();
    const emitted = vi.fn();
    s.slice(Calls).all$.subscribe(emitted);
    s.dispatch(Settled({ id: 'a', status: 'ok' }));
    const after = s.slice(Calls).all();
    expect(ids(s)).toEqual(['a:ok', 'b:pending']);
    expect(after[1]).toBe(before[1]);
    expect(Object.isFrozen(after[0])).toBe(true);
    expect(before[0]).toEqual({ id: 'a', status: 'pending' });
    expect(s.slice(Calls).version).toBe(3);
    expect(emitted).toHaveBeenCalledTimes(2);
  });

  it('the same item changes nothing: no version, no emission', () => {
    const Same = defineEvent('calls/same', z.object({ index: z.number() }));
    const S = defineSlice('same', { policy: 'log', initial: [1, 2], reducers: ({ on }) => [on(Same, (v, e) => updateAt(e.payload.index, v.at(e.payload.index) as number))] });
    const s = createSession({ slices: [S], ...(storage === undefined ? {} : { storage }) });
    const emitted = vi.fn();
    s.slice(S).all$.subscribe(emitted);
    s.dispatch(Same({ index: 1 }));
    expect(s.slice(S).version).toBe(0);
    expect(emitted).toHaveBeenCalledTimes(1);
  });

  it('an index that names no item fails the whole event with a RangeError cause; nothing changes', () => {
    const s = open(storage);
    s.dispatch(Called({ id: 'a' }));
    const seen = s.slice(Seen).latest();
    for (const index of [1, -1, 0.5]) {
      let error: unknown;
      try {
        s.dispatch(At({ index, status: 'ok' }));
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ReducerError);
      expect((error as ReducerError).cause).toBeInstanceOf(RangeError);
      expect(((error as ReducerError).cause as Error).message).toMatch(/names no item: the slice holds 1 item, so the index must be an integer from 0 to 0/);
    }
    expect(s.slice(Seen).latest()).toBe(seen);
    expect(ids(s)).toEqual(['a:pending']);
    s.dispatch(Called({ id: 'b' }));
    expect(ids(s)).toEqual(['a:pending', 'b:pending']);
  });

  it('an item that fails the schema fails the whole event; nothing changes', () => {
    const s = open(storage);
    s.dispatch(Called({ id: 'a' }));
    expect(() => s.dispatch(Settled({ id: 'a', status: 'done' }))).toThrow(ReducerError);
    try {
      s.dispatch(Settled({ id: 'a', status: 'done' }));
    } catch (e) {
      expect((e as ReducerError).cause).toBeInstanceOf(InvalidSliceItemError);
    }
    expect(ids(s)).toEqual(['a:pending']);
    expect(s.slice(Seen).latest()).toBe(0);
  });

  it('runs the window after it: a failed call is protected beyond the count bound, and evicted once settled ok', () => {
    const s = open(storage);
    const evicted: string[] = [];
    s.evicted$.subscribe((e) => evicted.push(...e.items.map((c) => (c as Call).id)));
    for (const id of ['a', 'b', 'c']) s.dispatch(Called({ id }));
    s.dispatch(Settled({ id: 'a', status: 'error' }));
    s.dispatch(Called({ id: 'd' }));
    s.dispatch(Called({ id: 'e' }));
    // The newest three plus the protected failure; b went (from the middle).
    expect(ids(s)).toEqual(['a:error', 'c:pending', 'd:pending', 'e:pending']);
    expect(evicted).toEqual(['b']);
    // Settled ok, `a` loses its protection: the window evicts it in the same event.
    s.dispatch(Settled({ id: 'a', status: 'ok' }));
    expect(ids(s)).toEqual(['c:pending', 'd:pending', 'e:pending']);
    expect(evicted).toEqual(['b', 'a']);
    s.dispatch(Called({ id: 'f' }));
    expect(ids(s)).toEqual(['d:pending', 'e:pending', 'f:pending']);
  });
});
