// @vitest-environment jsdom
/// <reference lib="dom" />
import { act, cleanup, render } from '@testing-library/react';
import { createElement as h, useSyncExternalStore } from 'react';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { append, createSession, defineEvent, defineMachine, defineSlice, InvalidListenerError, none, type RxSliceError, type SubscriberError } from '../../src/index';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;
afterEach(cleanup);

const Added = defineEvent('read/added', z.object({ text: z.string() }));
const Counted = defineEvent('read/counted', z.object({ by: z.number() }));
const Ignored = defineEvent('read/ignored', z.object({}));
const Go = defineEvent('read/go', z.object({}));

const Notes = defineSlice('notes', {
  policy: 'log',
  schema: z.object({ text: z.string() }),
  reducers: ({ on }) => [on(Added, (_v, e) => append({ text: e.payload.text })), on(Ignored, () => none())],
});
const Count = defineSlice('count', {
  policy: 'state',
  initial: [{ n: 0 }],
  reducers: ({ onLatest }) => [onLatest(Counted, (c, e) => ({ n: (c?.n ?? 0) + e.payload.by }))],
});
/** Never given to a session below: it must not appear in a snapshot. */
const Stranger = defineSlice('stranger', { policy: 'state', initial: [1] });

const Light = defineMachine('light', { initial: 'off', states: { off: { on: { 'read/go': 'on' } }, on: {} } });

describe('session.getSnapshot(): one stable object for the whole session', () => {
  it('maps each registered slice to the array all() returns, frozen, and only those slices', () => {
    const session = createSession({ slices: [Notes, Count] });
    session.dispatch(Added({ text: 'a' }));
    const snap = session.getSnapshot();
    expect(Object.keys(snap)).toEqual(['notes', 'count']);
    expect(snap['notes']).toBe(session.slice(Notes).all());
    expect(snap['count']).toBe(session.slice(Count).all());
    expect(snap['notes']).toEqual([{ text: 'a' }]);
    expect(snap['count']).toEqual([{ n: 0 }]);
    expect(Stranger.name in snap).toBe(false);
    expect(Object.isFrozen(snap)).toBe(true);
    expect(() => {
      (snap as Record<string, unknown>)['notes'] = [];
    }).toThrow(TypeError);
  });

  it('is the same object on every read until a slice changes; then a new one that keeps unchanged slices\' arrays', () => {
    const session = createSession({ slices: [Notes, Count] });
    const first = session.getSnapshot();
    expect(session.getSnapshot()).toBe(first);
    expect(session.getSnapshot()).toBe(first);

    session.dispatch(Counted({ by: 2 }));
    const second = session.getSnapshot();
    expect(second).not.toBe(first);
    expect(second['count']).toEqual([{ n: 2 }]);
    expect(second['notes']).toBe(first['notes']); // Notes did not change: same array
    expect(session.getSnapshot()).toBe(second);
  });

  it('is unchanged by a committed event that changed nothing, a rejected event and an unknown one', () => {
    const session = createSession({ slices: [Notes, Count] });
    session.errors$.subscribe(() => undefined);
    const before = session.getSnapshot();
    const seq = session.dispatch(Ignored({})).seq; // committed, changed []
    expect(seq).toBe(1);
    expect(() => session.dispatch({ type: 'read/added', payload: { text: 3 } } as never)).toThrow();
    expect(() => session.dispatch({ type: 'read/nope', payload: {} } as never)).toThrow();
    expect(session.getSnapshot()).toBe(before);
  });

  it('includes a slice added later (an installed machine) from the next read', () => {
    const session = createSession({ slices: [Notes], events: [Go] });
    const before = session.getSnapshot();
    expect(Object.keys(before)).toEqual(['notes']);
    session.install(Light);
    const after = session.getSnapshot();
    expect(after).not.toBe(before);
    expect(Object.keys(after)).toEqual(['notes', 'machine/light']);
    expect(session.getSnapshot()).toBe(after);
  });

  it('follows reset, restore and seed like any commit', () => {
    const session = createSession({ slices: [Notes, Count] });
    const empty = session.snapshot({ includeLogs: true });
    session.dispatch(Added({ text: 'a' }));
    const one = session.getSnapshot();
    session.restore(empty);
    expect(session.getSnapshot()).not.toBe(one);
    expect(session.getSnapshot()['notes']).toEqual([]);
    const restored = session.getSnapshot();
    session.slice(Notes).seed([{ text: 'x' }]);
    expect(session.getSnapshot()).not.toBe(restored);
    expect(session.getSnapshot()['notes']).toEqual([{ text: 'x' }]);
  });
});

describe('session.subscribe(listener): once per commit that changed something', () => {
  it('calls the listener once per changing commit, not for a commit that changed nothing, and stops on unsubscribe', () => {
    const session = createSession({ slices: [Notes, Count] });
    const seen: unknown[] = [];
    const stop = session.subscribe(() => seen.push(session.getSnapshot()));
    session.dispatch(Added({ text: 'a' }));
    session.dispatch(Ignored({}));
    session.dispatch(Counted({ by: 1 }));
    expect(seen).toHaveLength(2);
    expect(seen[0]).not.toBe(seen[1]);
    expect(seen[1]).toBe(session.getSnapshot());
    stop();
    stop(); // idempotent
    session.dispatch(Added({ text: 'b' }));
    expect(seen).toHaveLength(2);
  });

  it('calls once per batch, at its end, with the state after the batch', () => {
    const session = createSession({ slices: [Notes, Count] });
    const sizes: number[] = [];
    session.subscribe(() => sizes.push(session.getSnapshot()['notes']?.length ?? -1));
    session.batch(() => {
      session.dispatch(Added({ text: 'a' }));
      session.dispatch(Added({ text: 'b' }));
      session.dispatch(Counted({ by: 1 }));
    });
    expect(sizes).toEqual([2]);
  });

  it('is a plain function (works unbound); the same listener twice is two subscriptions', () => {
    const session = createSession({ slices: [Notes] });
    const { subscribe, getSnapshot } = session;
    let calls = 0;
    const listener = (): void => void calls++;
    const a = subscribe(listener);
    const b = subscribe(listener);
    session.dispatch(Added({ text: 'a' }));
    expect(calls).toBe(2);
    a();
    session.dispatch(Added({ text: 'b' }));
    expect(calls).toBe(3);
    b();
    expect(getSnapshot()['notes']).toHaveLength(2);
  });

  it('a listener that unsubscribes another while called skips nobody else, and the removed one is not called', () => {
    const session = createSession({ slices: [Notes] });
    const calls: string[] = [];
    let stopB = (): void => undefined;
    session.subscribe(() => {
      calls.push('a');
      stopB();
    });
    stopB = session.subscribe(() => calls.push('b'));
    session.subscribe(() => calls.push('c'));
    session.dispatch(Added({ text: 'x' }));
    expect(calls).toEqual(['a', 'c']);
  });

  it('the last listener unsubscribing itself during a commit leaves other commit listeners (computed slices) untouched', () => {
    const session = createSession({ slices: [Notes] });
    const stop = session.subscribe(() => stop());
    const sizes: number[] = [];
    session.slice(Notes).all$.subscribe((n) => sizes.push(n.length));
    session.dispatch(Added({ text: 'x' }));
    session.dispatch(Added({ text: 'y' }));
    expect(sizes).toEqual([0, 1, 2]);
    let later = 0;
    session.subscribe(() => void later++);
    session.dispatch(Added({ text: 'z' }));
    expect(later).toBe(1);
  });

  it('a throwing listener is reported on errors$ (SubscriberError, source "subscribe"); the others still run', () => {
    const session = createSession({ slices: [Notes] });
    const errors: RxSliceError[] = [];
    session.errors$.subscribe((e) => errors.push(e));
    let other = 0;
    session.subscribe(() => {
      throw new Error('boom');
    });
    session.subscribe(() => void other++);
    session.dispatch(Added({ text: 'x' }));
    expect(other).toBe(1);
    expect(errors.map((e) => e.code)).toEqual(['SUBSCRIBER_FAILED']);
    expect((errors[0] as SubscriberError).source).toBe('subscribe');
    expect(session.slice(Notes).all()).toHaveLength(1);
  });

  it('rejects a listener that is not a function with InvalidListenerError, subscribing nothing', () => {
    const session = createSession({ slices: [Notes] });
    expect(() => session.subscribe(null as never)).toThrow(InvalidListenerError);
    expect(() => session.subscribe('x' as never)).toThrow(/subscribe\(\) needs a listener function/);
    try {
      session.subscribe(42 as never);
    } catch (error) {
      expect((error as RxSliceError).code).toBe('INVALID_LISTENER');
    }
  });

  it('calls nothing after dispose; getSnapshot still returns the last state', () => {
    const session = createSession({ slices: [Notes] });
    session.dispatch(Added({ text: 'x' }));
    let calls = 0;
    session.subscribe(() => void calls++);
    const last = session.getSnapshot();
    session.dispose();
    expect(calls).toBe(0);
    expect(session.getSnapshot()).toBe(last);
  });
});

describe('invariant (fast-check): a new snapshot exactly when a slice version moved; one listener call per changing commit', () => {
  it('holds over random sequences of changing, empty and rejected events, batches and reads', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('add' as const), text: fc.string({ maxLength: 3 }) }),
      fc.record({ kind: fc.constant('count' as const), by: fc.integer({ min: -3, max: 3 }) }),
      fc.record({ kind: fc.constant('ignored' as const) }),
      fc.record({ kind: fc.constant('bad' as const) }),
      fc.record({ kind: fc.constant('batch' as const), n: fc.integer({ min: 0, max: 3 }) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 30 }), (ops) => {
        const session = createSession({ slices: [Notes, Count] });
        session.errors$.subscribe(() => undefined);
        let calls = 0;
        session.subscribe(() => void calls++);
        const versions = () => [session.slice(Notes).version, session.slice(Count).version].join(',');
        let snap = session.getSnapshot();
        let seen = versions();
        let expectedCalls = 0;
        for (const o of ops) {
          const before = versions();
          if (o.kind === 'add') session.dispatch(Added({ text: o.text }));
          else if (o.kind === 'count') session.dispatch(Counted({ by: o.by }));
          else if (o.kind === 'ignored') session.dispatch(Ignored({}));
          else if (o.kind === 'bad') expect(() => session.dispatch({ type: 'read/counted', payload: { by: 'x' } } as never)).toThrow();
          else session.batch(() => {
            for (let i = 0; i < o.n; i++) session.dispatch(Added({ text: String(i) }));
          });
          if (versions() !== before) expectedCalls++;
          const next = session.getSnapshot();
          expect(next === snap).toBe(versions() === seen);
          expect(next['notes']).toBe(session.slice(Notes).all());
          expect(next['count']).toBe(session.slice(Count).all());
          snap = next;
          seen = versions();
        }
        expect(calls).toBe(expectedCalls);
        session.dispose();
      }),
      { numRuns: 150 },
    );
  });
});

describe("React's useSyncExternalStore over subscribe and getSnapshot", () => {
  it('renders the state, re-renders once per changing commit, and not for a commit that changed nothing', () => {
    const session = createSession({ slices: [Notes, Count] });
    let renders = 0;
    const View = () => {
      renders++;
      const state = useSyncExternalStore(session.subscribe, session.getSnapshot);
      return h('span', { 'data-testid': 'out' }, `${state['notes']?.length}/${(state['count']?.[0] as { n: number }).n}`);
    };
    const view = render(h(View));
    expect(view.getByTestId('out').textContent).toBe('0/0');
    expect(renders).toBe(1);
    act(() => void session.dispatch(Added({ text: 'a' })));
    expect(view.getByTestId('out').textContent).toBe('1/0');
    expect(renders).toBe(2);
    act(() => void session.dispatch(Ignored({})));
    expect(renders).toBe(2);
    act(() => void session.dispatch(Counted({ by: 5 })));
    expect(view.getByTestId('out').textContent).toBe('1/5');
    expect(renders).toBe(3);
    view.unmount();
    session.dispatch(Added({ text: 'b' })); // unsubscribed: no render, no warning
    expect(renders).toBe(3);
  });
});
