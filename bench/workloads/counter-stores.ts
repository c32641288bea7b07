/**
 * The store of workloads 1, 2 and 5, written once per contender the way its docs show:
 * ten counter slices and one event type, `counter/incremented { slice }`, that changes the
 * one slice it names. Event-based stores (rxslice, raw RxJS, Redux, RTK, the plain loop)
 * route the event to all ten slice reducers, nine of which return their state unchanged.
 * Elf and Zustand have no events: their docs call a named update function (an Elf
 * repository function, a Zustand action) that touches the one store or key it changes.
 */
import {
  combineReducers,
  legacy_createStore as createReduxStore,
  applyMiddleware,
  type Middleware as ReduxMiddleware,
  type Reducer as ReduxReducer,
} from 'redux';
import { configureStore, createAction, createSlice, type Middleware as RtkMiddleware } from '@reduxjs/toolkit';
import { createStore as createElfStore, elfHooks, enableElfProdMode, select, setProp, withProps } from '@ngneat/elf';
import { createStore as createZustandStore, type StateCreator, type StoreMutatorIdentifier } from 'zustand/vanilla';
import { subscribeWithSelector } from 'zustand/middleware';
import { BehaviorSubject, Subject, map, share, type Observable, type OperatorFunction, type SchedulerLike } from 'rxjs';
import { z } from 'zod';
import { createSession, defineEvent, defineSlice, type Envelope, type EventMiddleware, type ReducerMiddleware } from '../../src/index';
import { coarseClock } from './coarse-clock';

/** Number of counter slices. */
export const SLICES = 10;

/** One counter slice's state. */
export interface Counter {
  readonly count: number;
}

/** Which pass-through middleware (workload 5) the store gets: none, or three of the given kind. */
export type CounterMiddleware = 'none' | 'store' | 'reducer' | 'operator' | 'event';

/** The face every contender's counter store shows to the workloads. */
export interface CounterStore {
  /** Dispatches `counter/incremented` for `slice` (or calls the contender's update function). */
  increment(slice: number): void;
  /** The slice's current count, read from the store's state. */
  count(slice: number): number;
  /** Subscribes to one slice: `listener` gets the new count each time that slice changes. */
  subscribe(slice: number, listener: (count: number) => void): void;
}

/** The reducer every event-based contender applies per slice (the plain loop's too). */
export const counterReducer =
  (index: number) =>
  (state: Counter, event: { readonly type: string; readonly payload: { readonly slice: number } }): Counter =>
    event.type === INCREMENTED && event.payload.slice === index ? { count: state.count + 1 } : state;

const INCREMENTED = 'counter/incremented';
const names = Array.from({ length: SLICES }, (_, i) => `counter${i}`);

// ---- plain loop (the floor) -------------------------------------------------------------

function plain(middleware: CounterMiddleware): CounterStore {
  const reducers = names.map((_, i) => counterReducer(i));
  const states: Counter[] = names.map(() => ({ count: 0 }));
  const listeners: ((count: number) => void)[][] = names.map(() => []);
  const base = (event: { type: string; payload: { slice: number } }): void => {
    for (let i = 0; i < SLICES; i++) {
      const prev = states[i] as Counter;
      const next = (reducers[i] as ReturnType<typeof counterReducer>)(prev, event);
      if (next !== prev) {
        states[i] = next;
        for (const listener of listeners[i] as ((count: number) => void)[]) listener(next.count);
      }
    }
  };
  type Dispatch = typeof base;
  const passThrough = (next: Dispatch): Dispatch => (event) => next(event);
  const dispatch = middleware === 'none' ? base : passThrough(passThrough(passThrough(base)));
  return {
    increment: (slice) => dispatch({ type: INCREMENTED, payload: { slice } }),
    count: (slice) => (states[slice] as Counter).count,
    subscribe: (slice, listener) => void (listeners[slice] as ((count: number) => void)[]).push(listener),
  };
}

// ---- rxslice ----------------------------------------------------------------------------

const Incremented = defineEvent(INCREMENTED, z.object({ slice: z.number().int().min(0) }));
const rxsliceSlices = names.map((name, i) =>
  defineSlice(name, {
    policy: 'state',
    initial: [{ count: 0 }] as Counter[],
    reducers: ({ onLatest }) => [onLatest(Incremented, (counter, e) => (e.payload.slice === i ? { count: (counter?.count ?? 0) + 1 } : counter!))],
  }),
);

function rxslice(middleware: CounterMiddleware, scheduler?: SchedulerLike): CounterStore {
  const passReducer: ReducerMiddleware = (_ctx, next) => next();
  const passOperator: OperatorFunction<Envelope, Envelope> = map((envelope) => envelope);
  const passEvent: EventMiddleware = (envelope, next) => next(envelope);
  const session = createSession({
    slices: rxsliceSlices,
    ...(scheduler === undefined ? {} : { scheduler }),
    ...(middleware === 'reducer' ? { middleware: { reducers: [passReducer, passReducer, passReducer] } } : {}),
    ...(middleware === 'operator' ? { middleware: { operators: [passOperator, passOperator, passOperator] } } : {}),
    ...(middleware === 'event' ? { middleware: { events: [passEvent, passEvent, passEvent] } } : {}),
  });
  const handles = rxsliceSlices.map((s) => session.slice(s));
  return {
    increment: (slice) => void session.dispatch(Incremented({ slice })),
    count: (slice) => handles[slice]!.latest()!.count,
    subscribe: (slice, listener) => void handles[slice]!.latest$.subscribe((c) => listener(c!.count)),
  };
}

// ---- raw RxJS: a BehaviorSubject per slice, an actions Subject ---------------------------

function rxjs(middleware: CounterMiddleware): CounterStore {
  type Action = { type: string; payload: { slice: number } };
  const actions$ = new Subject<Action>();
  const pass = map((a: Action) => a);
  const processed$: Observable<Action> = middleware === 'none' ? actions$ : actions$.pipe(pass, pass, pass, share());
  const subjects = names.map(() => new BehaviorSubject<Counter>({ count: 0 }));
  subjects.forEach((subject, i) => {
    const reducer = counterReducer(i);
    processed$.subscribe((action) => {
      const next = reducer(subject.value, action);
      if (next !== subject.value) subject.next(next);
    });
  });
  return {
    increment: (slice) => actions$.next({ type: INCREMENTED, payload: { slice } }),
    count: (slice) => subjects[slice]!.value.count,
    subscribe: (slice, listener) => void subjects[slice]!.subscribe((c) => listener(c.count)),
  };
}

// ---- Redux 5 (core): combineReducers, store.subscribe + selector comparison ---------------

const reduxIncremented = (slice: number) => ({ type: INCREMENTED, payload: { slice } }) as const;

function redux(middleware: CounterMiddleware): CounterStore {
  const reducers: Record<string, ReduxReducer<Counter>> = {};
  names.forEach((name, i) => {
    const step = counterReducer(i);
    reducers[name] = (state = { count: 0 }, action) =>
      action.type === INCREMENTED ? step(state, action as ReturnType<typeof reduxIncremented>) : state;
  });
  const pass: ReduxMiddleware = () => (next) => (action) => next(action);
  const root = combineReducers(reducers);
  const store = middleware === 'none' ? createReduxStore(root) : createReduxStore(root, applyMiddleware(pass, pass, pass));
  return {
    increment: (slice) => void store.dispatch(reduxIncremented(slice)),
    count: (slice) => store.getState()[names[slice]!]!.count,
    // What react-redux's useSelector does: run the selector on every change, call on a new value.
    subscribe: (slice, listener) => {
      const key = names[slice]!;
      let last = store.getState()[key];
      store.subscribe(() => {
        const next = store.getState()[key];
        if (next !== last) {
          last = next;
          listener(next!.count);
        }
      });
    },
  };
}

// ---- Redux Toolkit 2: createSlice + configureStore (production mode: no dev checks) ---------

const rtkIncremented = createAction<{ slice: number }>(INCREMENTED);
const rtkSlices = names.map((name, i) =>
  createSlice({
    name,
    initialState: { count: 0 } as Counter,
    reducers: {},
    extraReducers: (builder) =>
      builder.addCase(rtkIncremented, (state, action) => {
        if (action.payload.slice === i) state.count++;
      }),
  }),
);

function rtk(middleware: CounterMiddleware): CounterStore {
  const pass: RtkMiddleware = () => (next) => (action) => next(action);
  const reducer = Object.fromEntries(rtkSlices.map((s) => [s.name, s.reducer]));
  const store =
    middleware === 'none'
      ? configureStore({ reducer })
      : configureStore({ reducer, middleware: (getDefault) => getDefault().concat(pass, pass, pass) });
  return {
    increment: (slice) => void store.dispatch(rtkIncremented({ slice })),
    count: (slice) => store.getState()[names[slice]!]!.count,
    subscribe: (slice, listener) => {
      const key = names[slice]!;
      let last = store.getState()[key];
      store.subscribe(() => {
        const next = store.getState()[key];
        if (next !== last) {
          last = next;
          listener(next!.count);
        }
      });
    },
  };
}

// ---- Elf 2: one store per slice, repository functions, select() --------------------------

function elf(middleware: CounterMiddleware): CounterStore {
  enableElfProdMode();
  if (middleware !== 'none') {
    // Elf has one preStoreUpdate hook slot (its only interception point): compose three pass-throughs.
    const pass = (_current: unknown, next: unknown): unknown => next;
    elfHooks.registerPreStoreUpdate((current, next) => pass(current, pass(current, pass(current, next))));
  }
  const stores = names.map((name) => createElfStore({ name }, withProps<Counter>({ count: 0 })));
  const increment = (slice: number): void => stores[slice]!.update(setProp('count', (count) => count + 1));
  return {
    increment,
    count: (slice) => stores[slice]!.getValue().count,
    subscribe: (slice, listener) => void stores[slice]!.pipe(select((s) => s.count)).subscribe(listener),
  };
}

/**
 * Elf 2 with the event-based stores' routing: one store per slice, and `dispatch(event)` hands the
 * event to every store's reducer through `store.update((state) => reducer(state, event))`, the
 * same `counterReducer` the plain loop runs (Elf emits only when the reducer returns a new state).
 * Elf has no events of its own; this is the closest its API comes to routing one event to ten slices.
 */
function elfRouted(middleware: CounterMiddleware): CounterStore {
  enableElfProdMode();
  if (middleware !== 'none') throw new Error('elf-routed runs without middleware');
  type Event = { readonly type: string; readonly payload: { readonly slice: number } };
  const stores = names.map((name) => createElfStore({ name }, withProps<Counter>({ count: 0 })));
  const reducers = names.map((_, i) => counterReducer(i));
  const dispatch = (event: Event): void => {
    for (let i = 0; i < SLICES; i++) {
      const reducer = reducers[i]!;
      stores[i]!.update((state) => reducer(state, event));
    }
  };
  return {
    increment: (slice) => dispatch({ type: INCREMENTED, payload: { slice } }),
    count: (slice) => stores[slice]!.getValue().count,
    subscribe: (slice, listener) => void stores[slice]!.pipe(select((s) => s.count)).subscribe(listener),
  };
}

// ---- Zustand 5 (vanilla): one store, slices as keys, subscribeWithSelector -----------------

type ZustandState = Record<string, Counter> & { increment(slice: number): void };

/** Zustand's documented custom-middleware shape (the `logger` example), doing nothing. */
const passThrough =
  <T, Mps extends [StoreMutatorIdentifier, unknown][] = [], Mcs extends [StoreMutatorIdentifier, unknown][] = []>(
    config: StateCreator<T, Mps, Mcs>,
  ): StateCreator<T, Mps, Mcs> =>
  (set, get, api) =>
    config(((...args: Parameters<typeof set>) => (set as (...a: unknown[]) => void)(...args)) as typeof set, get, api);

function zustand(middleware: CounterMiddleware): CounterStore {
  const creator: StateCreator<ZustandState, [['zustand/subscribeWithSelector', never]]> = (set) =>
    ({
      ...Object.fromEntries(names.map((name) => [name, { count: 0 }])),
      increment: (slice: number) => {
        const key = names[slice]!;
        set((state) => ({ [key]: { count: state[key]!.count + 1 } }) as Partial<ZustandState>);
      },
    }) as ZustandState;
  const store = createZustandStore<ZustandState>()(
    subscribeWithSelector(middleware === 'none' ? creator : passThrough(passThrough(passThrough(creator)))),
  );
  return {
    increment: (slice) => store.getState().increment(slice),
    count: (slice) => store.getState()[names[slice]!]!.count,
    subscribe: (slice, listener) => {
      const key = names[slice]!;
      store.subscribe((state) => state[key]!, (counter) => listener(counter.count));
    },
  };
}

/** Counter-store factories by contender name. */
/** rxslice with the coarse clock (see `coarse-clock.ts`): the prototype without a clock read per envelope. */
const rxsliceNoClock = (middleware: CounterMiddleware): CounterStore => rxslice(middleware, coarseClock());

export const counterStores = { plain, rxslice, 'rxslice-noclock': rxsliceNoClock, rxjs, redux, rtk, elf, 'elf-routed': elfRouted, zustand } as const;
