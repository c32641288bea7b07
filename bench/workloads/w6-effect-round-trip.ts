/**
 * Workload 6 — effect round trip: `ping/sent { id }` is reduced into a `pings` slice, and an
 * effect reacting to it dispatches `ping/answered { id }`, reduced into a `pongs` slice.
 * 200,000 round trips; checks both counts and the last id answered. Each contender uses its
 * documented effect mechanism (see the functions below).
 */
import { BehaviorSubject, Subject, filter, map, of, skip, type SchedulerLike } from 'rxjs';
import { applyMiddleware, combineReducers, legacy_createStore as createReduxStore, type Middleware } from 'redux';
import { configureStore, createAction, createListenerMiddleware, createSlice } from '@reduxjs/toolkit';
import { createStore as createElfStore, enableElfProdMode, select, withProps } from '@ngneat/elf';
import { createStore as createZustandStore } from 'zustand/vanilla';
import { subscribeWithSelector } from 'zustand/middleware';
import { z } from 'zod';
import { createSession, defineEvent, defineSlice, listen, ofType, replace, withEffects } from '../../src/index';
import { defineEffect } from '../../src/effects/define-effect';
import { runEpic, type Epic } from '../../src/effects/epic';
import { handleEffect } from '../../src/effects/handle-effect';
import { checkEqual, measure, nowMs, type Impl, type Ready, type RunResult } from '../lib/measure';
import type { Workload } from './workload';
import { coarseClock } from './coarse-clock';

/** Round trips in the timed run. */
export const ROUND_TRIPS = 200_000;

/** A counter slice's state: how many events it saw, and the last id. */
interface Tally {
  readonly count: number;
  readonly lastId: number;
}
const EMPTY: Tally = { count: 0, lastId: -1 };
const tally = (state: Tally, id: number): Tally => ({ count: state.count + 1, lastId: id });
const PING = 'ping/sent';
const PONG = 'ping/answered';

/** What each contender's round trip exposes: send a ping, and read both tallies. */
interface RoundTrip {
  ping(id: number): void;
  pings(): Tally;
  pongs(): Tally;
}

async function roundTripRun(make: () => RoundTrip, ops: number, ready: Ready): Promise<RunResult> {
  const rt = make();
  await ready();
  const t0 = nowMs();
  for (let k = 0; k < ops; k++) rt.ping(k);
  // Let effects that finish on a microtask or a later turn complete (included in the time).
  await new Promise((resolve) => setImmediate(resolve));
  const ms = nowMs() - t0;
  checkEqual(rt.pings().count, ops, 'pings reduced');
  checkEqual(rt.pongs().count, ops, 'follow-ups reduced');
  checkEqual(rt.pongs().lastId, ops - 1, 'id of the last follow-up');
  return { ms, store: rt };
}

/** The floor: dispatch reduces, then runs the effect, which dispatches the follow-up. */
function plain(): RoundTrip {
  type Action = { type: string; payload: { id: number } };
  let pings = EMPTY;
  let pongs = EMPTY;
  const effect = (action: Action): void => {
    if (action.type === PING) dispatch({ type: PONG, payload: { id: action.payload.id } });
  };
  const dispatch = (action: Action): void => {
    if (action.type === PING) pings = tally(pings, action.payload.id);
    else if (action.type === PONG) pongs = tally(pongs, action.payload.id);
    effect(action);
  };
  return { ping: (id) => dispatch({ type: PING, payload: { id } }), pings: () => pings, pongs: () => pongs };
}

const Ping = defineEvent(PING, z.object({ id: z.number() }));
const Pong = defineEvent(PONG, z.object({ id: z.number() }));
const Pings = defineSlice('pings', {
  policy: 'state',
  initial: [EMPTY],
  reducers: ({ onLatest }) => [onLatest(Ping, (t, e) => tally(t ?? EMPTY, e.payload.id))],
});
const Pongs = defineSlice('pongs', {
  policy: 'state',
  initial: [EMPTY],
  reducers: ({ onLatest }) => [onLatest(Pong, (t, e) => tally(t ?? EMPTY, e.payload.id))],
});

/**
 * rxslice with an epic (`runEpic`): `(events$) => events$.pipe(ofType(Ping), map(...))` over the
 * committed stream; the session dispatches what it emits (queued, run after the current commit).
 */
function rxslice(): RoundTrip {
  const session = createSession({ slices: [Pings, Pongs] });
  const answer: Epic = (events$) => events$.pipe(ofType(Ping), map((env) => Pong({ id: env.event.payload.id })));
  runEpic(session, answer);
  const pings = session.slice(Pings);
  const pongs = session.slice(Pongs);
  return { ping: (id) => void session.dispatch(Ping({ id })), pings: () => pings.latest()!, pongs: () => pongs.latest()! };
}

/**
 * rxslice with a listener-style handler: `listen(session, Ping, handler)`, which dispatches the
 * follow-up after each committed ping (the session queues the dispatch and runs it after the
 * current commit, FIFO), what RTK's `startListening` and Elf's subscription do. No epic, no operators.
 */
function rxsliceListener(scheduler?: SchedulerLike): RoundTrip {
  const session = createSession({ slices: [Pings, Pongs], ...(scheduler === undefined ? {} : { scheduler }) });
  listen(session, Ping, (committed, api) => api.dispatch(Pong({ id: committed.event.payload.id })));
  const pings = session.slice(Pings);
  const pongs = session.slice(Pongs);
  return { ping: (id) => void session.dispatch(Ping({ id })), pings: () => pings.latest()!, pongs: () => pongs.latest()! };
}

const AnswerPing = defineEffect('ping/answer', z.object({ id: z.number() }), {
  onSuccess: (effect, _result: number) => Pong({ id: effect.payload.id }),
});
const PingsWithEffect = defineSlice('pings', {
  policy: 'state',
  initial: [EMPTY],
  reducers: ({ on }) => [
    on(Ping, (view, e) => withEffects(replace([tally(view.latest() ?? EMPTY, e.payload.id)]), [AnswerPing({ id: e.payload.id })])),
  ],
});

/**
 * rxslice with effects as data: the ping reducer returns `withEffects(op, [AnswerPing])`, a
 * handler registered with `handleEffect` answers (a synchronous observable), and the effect's
 * `onSuccess` event is the follow-up. Each round trip also dispatches the effect's lifecycle
 * events (`rxslice.effect.started`, `rxslice.effect.succeeded`).
 */
function rxsliceEffect(): RoundTrip {
  const session = createSession({ slices: [PingsWithEffect, Pongs] });
  handleEffect(session, AnswerPing, (effect) => of(effect.payload.id));
  const pings = session.slice(PingsWithEffect);
  const pongs = session.slice(Pongs);
  return { ping: (id) => void session.dispatch(Ping({ id })), pings: () => pings.latest()!, pongs: () => pongs.latest()! };
}

/** Raw RxJS: an actions Subject, a BehaviorSubject per slice, an effect stream fed back into actions. */
function rxjs(): RoundTrip {
  type Action = { type: string; payload: { id: number } };
  const actions$ = new Subject<Action>();
  const pings$ = new BehaviorSubject(EMPTY);
  const pongs$ = new BehaviorSubject(EMPTY);
  actions$.pipe(filter((a) => a.type === PING)).subscribe((a) => pings$.next(tally(pings$.value, a.payload.id)));
  actions$.pipe(filter((a) => a.type === PONG)).subscribe((a) => pongs$.next(tally(pongs$.value, a.payload.id)));
  actions$
    .pipe(
      filter((a) => a.type === PING),
      map((a): Action => ({ type: PONG, payload: { id: a.payload.id } })),
    )
    .subscribe((a) => actions$.next(a));
  return { ping: (id) => actions$.next({ type: PING, payload: { id } }), pings: () => pings$.value, pongs: () => pongs$.value };
}

/** Redux 5: an effect middleware that dispatches the follow-up after the ping was reduced. */
function redux(): RoundTrip {
  type Action = { type: string; payload: { id: number } };
  const reducerFor =
    (type: string) =>
    (state: Tally = EMPTY, action: { type: string; payload?: { id: number } }): Tally =>
      action.type === type ? tally(state, action.payload!.id) : state;
  const effects: Middleware = (api) => (next) => (action) => {
    const result = next(action);
    const a = action as Action;
    if (a.type === PING) api.dispatch({ type: PONG, payload: { id: a.payload.id } });
    return result;
  };
  const store = createReduxStore(combineReducers({ pings: reducerFor(PING), pongs: reducerFor(PONG) }), applyMiddleware(effects));
  return {
    ping: (id) => void store.dispatch({ type: PING, payload: { id } }),
    pings: () => store.getState().pings,
    pongs: () => store.getState().pongs,
  };
}

/** Redux Toolkit 2: createListenerMiddleware, the effect mechanism RTK recommends. */
function rtk(): RoundTrip {
  const ping = createAction<{ id: number }>(PING);
  const pong = createAction<{ id: number }>(PONG);
  const pings = createSlice({
    name: 'pings',
    initialState: EMPTY,
    reducers: {},
    extraReducers: (b) => b.addCase(ping, (s, a) => tally(s, a.payload.id)),
  });
  const pongs = createSlice({
    name: 'pongs',
    initialState: EMPTY,
    reducers: {},
    extraReducers: (b) => b.addCase(pong, (s, a) => tally(s, a.payload.id)),
  });
  const listener = createListenerMiddleware();
  listener.startListening({ actionCreator: ping, effect: (action, api) => void api.dispatch(pong({ id: action.payload.id })) });
  const store = configureStore({
    reducer: { pings: pings.reducer, pongs: pongs.reducer },
    middleware: (getDefault) => getDefault().prepend(listener.middleware),
  });
  return {
    ping: (id) => void store.dispatch(ping({ id })),
    pings: () => store.getState().pings,
    pongs: () => store.getState().pongs,
  };
}

/**
 * Elf 2 has no event or effect layer in its core (`@ngneat/effects` is a separate package,
 * not installed): a repository function updates the pings store, and a subscription to
 * that store's change calls the follow-up repository function.
 */
function elf(): RoundTrip {
  enableElfProdMode();
  const pings = createElfStore({ name: 'pings' }, withProps<Tally>(EMPTY));
  const pongs = createElfStore({ name: 'pongs' }, withProps<Tally>(EMPTY));
  const answer = (id: number): void => pongs.update((s) => tally(s, id));
  pings
    .pipe(
      select((s) => s.lastId),
      skip(1),
    )
    .subscribe(answer);
  return { ping: (id) => pings.update((s) => tally(s, id)), pings: () => pings.getValue(), pongs: () => pongs.getValue() };
}

/** Zustand 5: an action updates `pings`; a selector subscription on it calls the follow-up action. */
function zustand(): RoundTrip {
  interface State {
    readonly pings: Tally;
    readonly pongs: Tally;
    ping(id: number): void;
    answer(id: number): void;
  }
  const store = createZustandStore<State>()(
    subscribeWithSelector((set) => ({
      pings: EMPTY,
      pongs: EMPTY,
      ping: (id) => set((s) => ({ pings: tally(s.pings, id) })),
      answer: (id) => set((s) => ({ pongs: tally(s.pongs, id) })),
    })),
  );
  store.subscribe(
    (s) => s.pings,
    (p) => store.getState().answer(p.lastId),
  );
  return { ping: (id) => store.getState().ping(id), pings: () => store.getState().pings, pongs: () => store.getState().pongs };
}

const impl =
  (make: () => RoundTrip): Impl =>
  () =>
    measure({ ops: ROUND_TRIPS, first: true }, (ops, ready) => roundTripRun(make, ops, ready));

export const effectWorkload: Workload = {
  id: 'effect',
  number: '6',
  title: 'Effect round trip: an event whose effect dispatches a follow-up, 200,000 round trips',
  unit: 'ns/round trip',
  notes: [
    'rxslice: an epic, `runEpic(session, (events$) => events$.pipe(ofType(Ping), map(...)))` (the session queues what it emits and runs it after the current commit). `rxslice (effect as data)`: the reducer returns `withEffects(op, [AnswerPing(...)])`, `handleEffect` runs a synchronous observable handler, and the effect\'s `onSuccess` event is the follow-up; this path also dispatches `rxslice.effect.started` and `rxslice.effect.succeeded` per round trip. `rxslice (listener)` is the listener-style handler: `listen(session, Ping, (committed, api) => api.dispatch(Pong(...)))` (the shape of RTK `startListening`; no epic, no operators). `rxslice (listener, no clock read)`: the same with a scheduler whose `now()` returns a cached `Date.now()` (bench/workloads/coarse-clock.ts), the prototype of the alternative to one clock read per envelope.',
    'Redux: a custom effect middleware; RTK: `createListenerMiddleware` (its recommended effect API; each effect run allocates an AbortController and promises); raw RxJS: an effect stream fed back into the actions Subject; Elf (no effect layer in its core; `@ngneat/effects` is not installed) and Zustand: a subscription to the pings state calling the follow-up update.',
  ],
  contenders: {
    plain: impl(plain),
    rxslice: impl(rxslice),
    'rxslice-listener': impl(() => rxsliceListener()),
    'rxslice-listener-noclock': impl(() => rxsliceListener(coarseClock())),
    'rxslice-effect': impl(rxsliceEffect),
    rxjs: impl(rxjs),
    redux: impl(redux),
    rtk: impl(rtk),
    elf: impl(elf),
    zustand: impl(zustand),
  },
};
