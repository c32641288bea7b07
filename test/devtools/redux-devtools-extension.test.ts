/**
 * The bridge's browser path: the Redux DevTools extension's documented `connect()` API
 * (`init`, `send`, `subscribe`), played by a recording stand-in, since no extension runs in Node.
 * The Node path runs against a real server in redux-devtools.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createSession, type RxSliceError } from '../../src/index';
import { connectDevTools } from '../../src/devtools/index';
import { Counter, CounterBumped, NoteAdded, Notes } from '../fixtures';

type Listener = (message: unknown) => void;

function installExtension() {
  const sent: { action: any; state: any }[] = [];
  let init: unknown;
  let listener: Listener | undefined;
  let options: any;
  (globalThis as any).__REDUX_DEVTOOLS_EXTENSION__ = {
    connect(o: unknown) {
      options = o;
      return {
        init: (s: unknown) => (init = s),
        send: (action: unknown, state: unknown) => sent.push({ action, state }),
        subscribe: (l: Listener) => {
          listener = l;
          return () => (listener = undefined);
        },
      };
    },
  };
  return {
    sent,
    init: () => init,
    options: () => options,
    message: (m: unknown) => listener?.(m),
    subscribed: () => listener !== undefined,
  };
}

afterEach(() => {
  delete (globalThis as any).__REDUX_DEVTOOLS_EXTENSION__;
});

describe('connectDevTools with the Redux DevTools extension', () => {
  it('sends the state once, then each event with only its changed slices; sanitizers apply', async () => {
    const ext = installExtension();
    const session = createSession({ slices: [Notes, Counter] });
    session.dispatch(NoteAdded({ id: 1, text: 'secret' }));
    const devtools = await connectDevTools(session, {
      name: 'app',
      maxAge: 5,
      latencyMs: 0,
      actionSanitizer: (a) => (a.type === 'notes/added' ? { ...a, payload: '<redacted>' } : a),
    });
    expect(ext.options()).toMatchObject({ name: 'app', maxAge: 5 });
    expect(ext.init()).toEqual({ notes: [{ id: 1, text: 'secret' }], counter: [{ n: 1 }] });
    session.dispatch(CounterBumped({ by: 2 }));
    session.dispatch(NoteAdded({ id: 2, text: 'also secret' }));
    expect(ext.sent.map((s) => s.action)).toEqual([
      { type: 'counter/bumped', payload: { by: 2 }, seq: 2, meta: expect.anything(), changed: ['counter'] },
      { type: 'notes/added', payload: '<redacted>', seq: 3, meta: expect.anything(), changed: ['notes', 'counter'] },
    ]);
    expect(ext.sent[0]?.state).toEqual({ counter: [{ n: 3 }] });
    devtools.disconnect();
    expect(ext.subscribed()).toBe(false);
    session.dispose();
  });

  it('collects events for latencyMs and sends them outside the dispatch', async () => {
    const ext = installExtension();
    const session = createSession({ slices: [Counter] });
    const devtools = await connectDevTools(session, { latencyMs: 20 });
    session.dispatch(CounterBumped({ by: 1 }));
    session.dispatch(CounterBumped({ by: 1 }));
    expect(ext.sent).toHaveLength(0);
    await expect.poll(() => ext.sent.length).toBe(2);
    // What is still collected when the bridge disconnects is sent, not dropped.
    session.dispatch(CounterBumped({ by: 1 }));
    expect(ext.sent).toHaveLength(2);
    devtools.disconnect();
    expect(ext.sent.map((s) => s.action.seq)).toEqual([1, 2, 3]);
    session.dispose();
  });

  it('jump, skip, rollback and import restore through audited restores; ACTION dispatches through validation', async () => {
    const ext = installExtension();
    const session = createSession({ slices: [Notes, Counter] });
    const errors: RxSliceError[] = [];
    session.errors$.subscribe((e) => errors.push(e));
    const restores: number[] = [];
    session.committed$.subscribe((c) => c.event.type === 'rxslice.session.restored' && restores.push(c.seq));
    const devtools = await connectDevTools(session, { latencyMs: 0, maxAge: 2 });
    session.dispatch(CounterBumped({ by: 1 })); // id 1: n 1
    session.dispatch(CounterBumped({ by: 10 })); // id 2: n 11
    session.dispatch(NoteAdded({ id: 7, text: 'x' })); // id 3: n 12; maxAge 2 drops id 1
    const sentBefore = ext.sent.length;

    ext.message({ type: 'DISPATCH', payload: { type: 'JUMP_TO_ACTION', actionId: 2 } });
    expect(session.slice(Counter).latest()).toEqual({ n: 11 });
    expect(session.slice(Notes).all()).toEqual([]);
    // Beyond maxAge: nothing to jump to, nothing changes.
    ext.message({ type: 'DISPATCH', payload: { type: 'JUMP_TO_ACTION', actionId: 1 } });
    expect(session.slice(Counter).latest()).toEqual({ n: 11 });
    ext.message({ type: 'DISPATCH', payload: { type: 'JUMP_TO_STATE', actionId: 3 } });
    expect(session.slice(Counter).latest()).toEqual({ n: 12 });
    ext.message({ type: 'DISPATCH', payload: { type: 'TOGGLE_ACTION', id: 3 } });
    expect(session.slice(Counter).latest()).toEqual({ n: 11 });
    ext.message({ type: 'DISPATCH', payload: { type: 'TOGGLE_ACTION', id: 3 } });
    expect(session.slice(Notes).all()).toEqual([{ id: 7, text: 'x' }]);
    // Rollback: the oldest state kept (after id 1).
    ext.message({ type: 'DISPATCH', payload: { type: 'ROLLBACK' } });
    expect(session.slice(Counter).latest()).toEqual({ n: 1 });
    expect(restores).toHaveLength(5);
    expect(devtools.restores).toBe(5);
    // The bridge's restores are not sent back.
    expect(ext.sent.length).toBe(sentBefore);

    ext.message({ type: 'DISPATCH', payload: { type: 'IMPORT_STATE', nextLiftedState: { computedStates: [{ state: { counter: [{ n: 99 }] } }], currentStateIndex: 0 } } });
    expect(session.slice(Counter).latest()).toEqual({ n: 99 });
    ext.message({ type: 'DISPATCH', payload: { type: 'IMPORT_STATE', nextLiftedState: { computedStates: [{ state: { counter: [{ n: 'x' }] } }] } } });
    expect(session.slice(Counter).latest()).toEqual({ n: 99 });
    expect(errors.map((e) => e.code)).toEqual(['INVALID_SLICE_ITEM']);

    ext.message({ type: 'ACTION', payload: '{"type":"counter/bumped","payload":{"by":1}}' });
    expect(session.slice(Counter).latest()).toEqual({ n: 100 });
    ext.message({ type: 'ACTION', payload: '{"type":"counter/bumped","payload":{}}' });
    ext.message({ type: 'ACTION', payload: 'not json' });
    expect(session.slice(Counter).latest()).toEqual({ n: 100 });
    expect(errors.map((e) => e.code)).toEqual(['INVALID_SLICE_ITEM', 'INVALID_EVENT', 'DEVTOOLS']);
    expect(devtools.dispatched).toBe(1);
    devtools.disconnect();
    session.dispose();
  });
});
