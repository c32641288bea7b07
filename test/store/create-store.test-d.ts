import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import {
  append,
  createSession,
  createStore,
  defineEvent,
  defineSlice,
  findSnapshots,
  installEpics,
  restoreSnapshot,
  runEpic,
  snapshotLineage,
  takeSnapshot,
  transaction,
  type Epic,
  type Session,
  type Snapshot,
  type SnapshotInfo,
  type Store,
} from '../../src/index';
import { createSessionHooks } from '../../src/react/index';

const StepAdded = defineEvent('plan/stepAdded', z.object({ step: z.string() }));
const Plan = defineSlice('plan', { policy: 'state', schema: z.object({ step: z.string() }), reducers: ({ on }) => [on(StepAdded, (_v, e) => append(e.payload))] });

describe('Store: a Session without the snapshot methods and run', () => {
  const store = createStore({ slices: [Plan] });
  const session = createSession({ slices: [Plan] });

  it('calling a snapshot method or run on a store is a compile error', () => {
    // @ts-expect-error a store has no snapshot method: takeSnapshot(store)
    store.snapshot();
    // @ts-expect-error a store has no restore method: restoreSnapshot(store, s)
    store.restore(session.snapshot());
    // @ts-expect-error a store has no transaction method: transaction(store, fn)
    store.transaction(() => 1);
    // @ts-expect-error a store has no findSnapshots method: findSnapshots(store)
    void store.findSnapshots();
    // @ts-expect-error a store has no snapshotLineage method: snapshotLineage(store, s)
    void store.snapshotLineage('id');
    // @ts-expect-error a store has no run method: runEpic(store, epic)
    store.run(() => undefined as never);
    expectTypeOf(store).not.toHaveProperty('snapshot');
    expectTypeOf(store).not.toHaveProperty('run');
  });

  it('keeps the typed dispatch and the rest of the session', () => {
    store.dispatch(StepAdded({ step: 'a' }));
    // @ts-expect-error an event the store does not declare
    store.dispatch({ type: 'plan/stepAdedd', payload: { step: 'a' } });
    expectTypeOf(store.read(Plan)).toEqualTypeOf<readonly { step: string }[]>();
    expectTypeOf(store).toMatchTypeOf<Store>();
    // a session is a store (and more)
    expectTypeOf(session).toMatchTypeOf<Store>();
    const asStore: Store = session;
    void asStore;
  });

  it('the functions take either kind and answer as the methods do', () => {
    expectTypeOf(takeSnapshot(store)).toEqualTypeOf<Snapshot>();
    expectTypeOf(takeSnapshot(session, { tag: 't' })).toEqualTypeOf<Snapshot>();
    expectTypeOf(restoreSnapshot(store, takeSnapshot(store), { slices: [Plan] })).toEqualTypeOf<void>();
    expectTypeOf(transaction(store, () => 42)).toEqualTypeOf<number>();
    expectTypeOf(transaction(session, async () => 'x')).toEqualTypeOf<Promise<string>>();
    expectTypeOf(findSnapshots(store, { tag: 'v*' })).toEqualTypeOf<Promise<SnapshotInfo[]>>();
    expectTypeOf(snapshotLineage(store, 'id')).toEqualTypeOf<Promise<SnapshotInfo[]>>();
    const epic: Epic = () => undefined as never;
    runEpic(store, epic);
    installEpics(store, [epic]);
    // @ts-expect-error not a store
    takeSnapshot({ slices: [] });
    // @ts-expect-error createStore takes no epics: start them with runEpic(store, epic)
    createStore({ slices: [Plan], epics: [epic] });
  });

  it('typed React hooks take a store', () => {
    const hooks = createSessionHooks(store);
    const dispatch = hooks.useDispatch();
    dispatch(StepAdded({ step: 'b' }));
    // @ts-expect-error a typo through the typed hooks
    dispatch({ type: 'plan/stepAdedd', payload: { step: 'a' } });
    expectTypeOf<Session>().toMatchTypeOf<Store>();
  });
});

describe('the library functions that take a session take a store', () => {
  it('epics, effects, sagas, statecharts, the flight recorder, devtools and tracing', async () => {
    const { installEffects, installSagas, resumeSagas, defineMachine, installMachine } = await import('../../src/index');
    const { flightRecorder } = await import('../../src/jsonl/index');
    const { connectDevTools } = await import('../../src/devtools/index');
    const { traceSession } = await import('../../src/otel/index');
    const store = createStore({ slices: [Plan] });
    installEffects(store);
    installSagas(store, { sagas: [] });
    resumeSagas(store);
    installMachine(store, defineMachine('m', { initial: 'a', states: { a: {} } }));
    expectTypeOf(store).toMatchTypeOf<Parameters<typeof flightRecorder>[0]>();
    expectTypeOf(store).toMatchTypeOf<Parameters<typeof connectDevTools>[0]>();
    expectTypeOf(store).toMatchTypeOf<Parameters<typeof traceSession>[0]>();
  });
});
