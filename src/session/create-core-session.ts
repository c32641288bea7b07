import { asyncScheduler, type Observable, type Subject } from 'rxjs';
import { codedMessage } from '../internal/coded-message';
import { DEV } from '../internal/dev';
import { withAccessors } from '../internal/fast-object';
import { GuardedObservable } from '../internal/guarded-observable';
import type { SliceDef } from '../slices/reducer';
import type { Snapshot } from '../snapshots/snapshot';
import { memory } from '../storage/memory-storage';
import type { ChannelDef } from '../events/define-channel';
import { InvalidListenerError, SessionDisposedError, type InvalidEventError, type ReducerError, type UnknownEventError } from './errors';
import type { SliceHandle, SliceRecord } from './slice-handle';
import { sliceHandle, useMiddleware } from './slice-handle-api';
import { SessionCore } from './session-core';
import { LIBRARY_META, SessionReset } from './system-events';
import { ATTACH, SESSION_INTERNALS, type SessionInternals } from './internals';
import type { ChannelRuntime } from '../events/channel-runtime';
import { CHANNEL_LAYER, layerOf, SNAPSHOT_LAYER, type ChannelLayer } from './feature-layers';
import { InvalidChannelError } from '../events/invalid-channel-error';
import { SessionItemsReader, SessionListeners } from './session-read';
import type { Session, SessionEvent, SessionOptions, SnapshotOptions } from './session-types';
import { quote } from '../internal/quote';

/**
 * Where the shared accessors below (see `withAccessors`: the public objects stay fast) find
 * their session core.
 */
const CORE = Symbol('rxslice.core');
interface WithCore {
  readonly [CORE]: SessionCore;
}
const SESSION_ACCESSORS: PropertyDescriptorMap = {
  lastSeq: {
    get(this: WithCore) {
      return this[CORE].lastSeq;
    },
    enumerable: true,
  },
};
const INTERNALS_ACCESSORS: PropertyDescriptorMap = {
  pendingRestores: {
    get(this: WithCore) {
      const core = this[CORE];
      return core.restoring.size + (core.restoringNow === undefined ? 0 : 1);
    },
    enumerable: true,
  },
  disposed: {
    get(this: WithCore) {
      return this[CORE].disposed;
    },
    enumerable: true,
  },
  transactionDepth: {
    get(this: WithCore) {
      return this[CORE].transactionDepth;
    },
    enumerable: true,
  },
};
/**
 * The properties `createSession` adds to the core session once effects, sagas and machines are
 * installed over it (they need the session first). Declared in the literal, as `undefined`, so
 * that filling them in writes existing properties: adding them would turn the object into a
 * dictionary (see `withAccessors`).
 */
interface ExtensionSlots {
  readonly snapshot: undefined;
  readonly restore: undefined;
  readonly transaction: undefined;
  readonly findSnapshots: undefined;
  readonly snapshotLineage: undefined;
  readonly runSaga: undefined;
  readonly resumeSagas: undefined;
  readonly sagaHistory: undefined;
  readonly run: undefined;
  readonly handle: undefined;
  readonly runEffect: undefined;
  readonly effects$: undefined;
  readonly install: undefined;
  readonly machine: undefined;
}

const isProduction = (): boolean =>
  (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.['NODE_ENV'] === 'production';

/**
 * Creates a session: the live store of the given slices.
 *
 * @remarks The dispatch pipeline (docs/ARCHITECTURE.md): validate → envelope (`seq`, `at`) → `events$`
 * → operator middleware → reducers of every listening slice in registration order, each
 * wrapped in reducer middleware (global, then per slice) and followed by the slice's window
 * → commit, all or nothing → notify changed slices, then commit listeners (computed
 * slices), then `committed$`.
 *
 * - Synchronous, run to completion: when `dispatch` returns, the event is reduced and every
 *   subscriber was told (unless an operator middleware delays it on the scheduler).
 * - A throwing reducer or middleware leaves every slice unchanged, is reported on `errors$`
 *   and makes `dispatch` throw a {@link ReducerError} whose `cause` is the original error.
 *   `dispatch` returns normally only for an event that was applied, or that an operator
 *   middleware deliberately filtered out or delayed.
 * - `seq` is gapless: only committed events keep one. A rejected event (schema, reducer,
 *   statechart refusal, middleware failure) gives its number back and is reported with the
 *   seq that was current (the last one taken); envelopes queued behind it move down by one.
 *   Envelopes of a shared log keep the log's numbers; one held by an asynchronous operator
 *   middleware or dropped by a filtering middleware still leaves its number unused.
 * - The event is read once, when accepted: its `type` and `payload` are copied (and `meta`), so
 *   a getter or Proxy cannot change it afterwards; one that throws is an {@link InvalidEventError}.
 * - A dispatch from a subscriber while another event is processed is queued (FIFO) and runs
 *   after the current commit; a dispatch from inside a reducer throws {@link DispatchInReducerError}.
 * - Known events: a type no slice reducer, machine, saga, effect, epic, channel or `events` entry
 *   declares is an {@link UnknownEventError} (reported on `errors$`, nothing changed, no `seq`
 *   taken) unless `unknownEvents: 'accept'`; `dispatch` is typed by {@link SessionEvent}. Every
 *   rejected dispatch, `dispatch(null)` included, is reported on `errors$` before it throws.
 * - Slice observables emit only when their slice's version changed.
 *
 * @throws {@link DuplicateSliceError} when two slices share a name.
 * @example
 * ```ts
 * const session = createCoreSession({ slices: [Messages] });
 * session.slice(Messages).all$.subscribe((m) => console.log(m.length)); // Logs: 0
 * session.dispatch(MessageAdded({ text: 'hi' }));                       // Logs: 1
 * ```
 */
export function createCoreSession<TOptions extends SessionOptions>(options: TOptions): Session<SessionEvent<TOptions>>;
export function createCoreSession(options: SessionOptions): Session {
  const freeze = options.freeze ?? !isProduction();
  const mode = options.validation ?? 'dev';
  const scheduler = options.scheduler ?? asyncScheduler;
  // The pipeline lives in a SessionCore (prototype methods, optimized once for every session);
  // this function builds the public face around it.
  const core = new SessionCore({
    scheduler,
    validate: mode === 'always' || (mode === 'dev' && !isProduction()),
    freeze,
    globalMiddleware: options.middleware?.reducers ?? [],
    operators: options.middleware?.operators ?? [],
    eventMiddleware: options.middleware?.events ?? [],
    stateStorage: (typeof options.storage === 'function' ? options.storage : options.storage?.state) ?? memory({ freeze }),
    logStorage: (typeof options.storage === 'function' ? options.storage : options.storage?.log) ?? memory({ freeze }),
    slices: options.slices,
    events: options.events ?? [],
    unknownEvents: options.unknownEvents ?? 'reject',
  });
  const registry = core.registry;
  const items = new SessionItemsReader(registry);
  const listeners = new SessionListeners(
    (listener) => addListener(core.commitListeners, listener),
    (error) => core.reportSubscriberFailure('subscribe', error),
    () => core.disposed,
  );

  const handles = new Map<SliceRecord<any>, SliceHandle<any>>();
  const handleOf = <TItem>(record: SliceRecord<TItem>): SliceHandle<TItem> => {
    const existing = handles.get(record);
    if (existing !== undefined) return existing;
    const handle = sliceHandle(core, record);
    handles.set(record, handle);
    return handle;
  };

  const internalsData: Omit<SessionInternals, 'pendingRestores' | 'disposed' | 'transactionDepth'> & WithCore = {
    [CORE]: core,
    addSlice(def) {
      if (core.disposed) throw new SessionDisposedError(`add slice ${quote(def.name)}`);
      registry.addSliceWithRoutes(def);
    },
    addReducer: (slice, entry) => registry.addReducer(registry.recordOf(slice), entry),
    storedItems: (def) => core.durable?.peek(def) as never,
    declareEvents(types, as = 'types') {
      for (const type of types) {
        if (as === 'descriptors') registry.known.addDescriptor(type);
        else registry.known.add(type);
      }
    },
    extensions: new Map(),
    onCommitted(listener) {
      const types = listener.types;
      const full = listener.effectsOnly !== true && types === undefined;
      if (full) core.fullCommittedListeners++;
      if (types !== undefined) core.listenTo(types, 1);
      core.committedListeners = [...core.committedListeners, listener];
      let removed = false;
      return () => {
        if (removed) return;
        removed = true;
        if (full) core.fullCommittedListeners--;
        if (types !== undefined) core.listenTo(types, -1);
        const i = core.committedListeners.indexOf(listener);
        if (i >= 0) core.committedListeners = [...core.committedListeners.slice(0, i), ...core.committedListeners.slice(i + 1)];
      };
    },
    onCommit(listener) {
      return addListener(core.commitListeners, listener);
    },
    onTransaction: (listener) => addListener(core.transactionListeners, listener),
    addDecider: (decider) => addListener(core.deciders, decider),
    version: (name) => (registry.records.get(name) ?? registry.recordOf(name)).storage.version,
    sliceSource: (name) => registry.recordOf(name).storage,
    appendedOnlySince: (name, version) => (registry.records.get(name) ?? registry.recordOf(name)).storage.appendedOnlySince?.(version) ?? false,
    freeze,
    hasSlice: (name) => registry.records.has(name),
    reportError: (error) => core.errors$.next(error),
    captureSnapshot(opts) {
      const layer = internals.extensions.get(SNAPSHOT_LAYER) as { capture(o?: SnapshotOptions): Snapshot } | undefined;
      if (layer === undefined) throw new TypeError(!DEV ? codedMessage('E40', 'snapshot') : 'This store has no snapshot layer yet: call takeSnapshot(store) (or any snapshot function of rxslice) once to link it.');
      return layer.capture(opts);
    },
    snapshotOptions: { store: options.snapshotStore, catalogue: options.snapshotCatalogue },
    reportSubscriberFailure: (source, error) => core.reportSubscriberFailure(source, error),
    dispatchSystem: (event, meta) => core.dispatchEnvelope(core.accept(event, meta, true)),
    dispatchWithOwnMeta: (event, meta) => core.dispatchEnvelope(core.accept(event, meta, false, true)),
    dispatchTrusted: (event, meta) => core.dispatchEnvelope(core.accept(event, meta, false, false, true)),
    durableBatch: (fn) => core.durableBatch(fn),
    forwardTo(forward) {
      core.forward = forward;
    },
    applyLogged: (env) => core.applyLogged(env),
    skipTo(seq) {
      core.checkNextSeq(seq, 'skipTo');
      core.seq = seq - 1;
    },
    onStorageFailure: (listener) => addListener(core.storageFailureListeners, listener),
    onDispose: (teardown) => core.subscriptions.add(teardown),
  };
  const internals = withAccessors<SessionInternals>(internalsData, INTERNALS_ACCESSORS);

  const sessionData: Omit<Session, 'lastSeq' | keyof ExtensionSlots> & WithCore & ExtensionSlots = {
    [CORE]: core,
    // Filled in by `createStore` and `createSession` (see ExtensionSlots).
    snapshot: undefined,
    restore: undefined,
    transaction: undefined,
    findSnapshots: undefined,
    snapshotLineage: undefined,
    runSaga: undefined,
    resumeSagas: undefined,
    sagaHistory: undefined,
    run: undefined,
    handle: undefined,
    runEffect: undefined,
    effects$: undefined,
    install: undefined,
    machine: undefined,
    dispatch: (event, meta) => core.dispatchEnvelope(core.accept(event, meta, false)),
    slice: <TItem>(def: SliceDef<string, TItem>) => handleOf(registry.recordOf(def) as SliceRecord<TItem>),
    computed: (def) => def[ATTACH](session),
    read: <TItem>(def: SliceDef<string, TItem> | string) => registry.recordOf(def as SliceDef<string, TItem>).storage.all() as readonly TItem[],
    use: (...middleware) => useMiddleware(core, undefined, middleware),
    reset(options) {
      const to = options?.to ?? 'empty';
      if (to !== 'empty' && to !== 'initial') throw new TypeError(!DEV ? codedMessage('E41', String(JSON.stringify(to)?.slice(0, 40))) : `session.reset({ to }) takes 'empty' or 'initial' (got ${JSON.stringify(to)?.slice(0, 40)}).`);
      core.dispatchEnvelope(core.accept(SessionReset({ to }), LIBRARY_META, true));
    },
    batch: (fn) => core.batch(fn),
    events$: guarded(core, core.events$, 'events$'),
    committed$: guarded(core, core.committed$, 'committed$'),
    // Not guarded: a throwing errors$ subscriber goes to RxJS's unhandled-error hook.
    errors$: core.errors$.asObservable(),
    evicted$: guarded(core, core.evicted$, 'evicted$'),
    scheduler: core.scheduler,
    dispose: () => core.dispose(),
    channel: (def) => openKnownChannel(def),
    getSnapshot: () => items.read(),
    subscribe(listener) {
      if (typeof listener !== 'function') throw new InvalidListenerError(listener === null ? 'null' : typeof listener);
      return listeners.add(listener);
    },
    [SESSION_INTERNALS]: internals,
  };
  const session = withAccessors<Session>(sessionData, SESSION_ACCESSORS);
  const channels = new Map<string, ChannelRuntime<any>>();
  // A channel declares its event types (publishing to it is dispatching them).
  const openKnownChannel = <TEvent extends { readonly type: string }>(def: ChannelDef<string, TEvent>): ChannelRuntime<TEvent> => {
    // The runtime rides on the definition (CHANNEL_LAYER): only a program that defines a channel bundles it.
    const layer = layerOf<ChannelLayer>(def, CHANNEL_LAYER);
    if (layer === undefined) throw new InvalidChannelError(String((def as { name?: unknown } | undefined)?.name), 'session.channel takes a channel made by defineChannel');
    const runtime = layer.open(channels, def, session) as ChannelRuntime<TEvent>;
    internals.declareEvents(def.eventTypes);
    return runtime;
  };
  try {
    for (const def of options.channels ?? []) openKnownChannel(def);
  } catch (error) {
    core.dispose(); // closes the storages (and releases a durable directory's lock)
    throw error;
  }
  return session;
}

/** `subject` as an observable whose subscribers' failures are reported on `errors$` (see `GuardedObservable`). */
function guarded<T>(core: SessionCore, subject: Subject<T>, label: string): Observable<T> {
  return new GuardedObservable<T>(label, (source, error) => core.reportSubscriberFailure(source, error), (subscriber) => subject.subscribe(subscriber));
}

/** Adds `listener` to `list`; returns the function that removes it. */
function addListener<TListener>(list: TListener[], listener: TListener): () => void {
  list.push(listener);
  return () => {
    const i = list.indexOf(listener);
    if (i >= 0) list.splice(i, 1);
  };
}

/**
 * @internal The core behind a session, a store or a shared session (its local session): what the
 * layers that are not methods (the snapshot functions) work on.
 * @throws TypeError, naming `what`, for a value that none of those made.
 */
export function sessionCoreOf(session: unknown, what: string): SessionCore {
  const internals = session !== null && typeof session === 'object' ? (session as { [SESSION_INTERNALS]?: Partial<WithCore> })[SESSION_INTERNALS] : undefined;
  const core = internals?.[CORE];
  if (core === undefined) throw new TypeError(!DEV ? codedMessage('E68', `${what}: ${session === null ? 'null' : typeof session}`) : `${what} take a session from createSession or createStore (got ${session === null ? 'null' : typeof session}).`);
  return core;
}
