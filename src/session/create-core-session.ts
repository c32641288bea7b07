import { asyncScheduler, type Observable, type SchedulerLike, type Subject } from 'rxjs';
import { GuardedObservable } from '../internal/guarded-observable';
import type { Event, EventCreator, InferEvent } from '../events/event';
import type { Envelope, EnvelopeMeta } from '../events/envelope';
import type { RxSliceError, SubscriberError } from '../internal/errors';
import { deepFreeze } from '../internal/freeze';
import type { InferSliceEvent, ReducerMiddleware, SessionReader, SliceDef } from '../slices/reducer';
import type { Snapshot } from '../snapshots/snapshot';
import { memory } from '../storage/memory-storage';
import { InvalidWindowError } from '../windows/invalid-window-error';
import { SliceWindow } from '../windows/slice-window';
import type { StorageFactory } from '../storage/slice-storage';
import { importItem } from './apply-op';
import { InvalidListenerError, InvalidSliceItemError, SessionDisposedError, UnsupportedOnSharedSessionError, type InvalidEventError, type InvalidMiddlewareError, type ReducerError, type UnknownEventError } from './errors';
import type { SliceHandle, SliceRecord, SliceRuntimeConfig } from './slice-handle';
import { SessionCore } from './session-core';
import type { EventMiddleware } from './event-pipeline';
import { sortMiddleware, type MiddlewareSet } from './middleware-set';
import { SessionReset, SliceCleared, SliceSeeded } from './system-events';
import { ATTACH, SESSION_INTERNALS, type Attachable, type SessionInternals } from './internals';
import { sliceNames } from './session-snapshots';
import { openChannel, type Channel, type ChannelRuntime } from './channel';
import type { AnyChannelDef, ChannelDef, InferChannelEvent } from '../events/define-channel';
import type { SnapshotQuery, SnapshotStore } from '../snapshot-store/snapshot-store';
import type { SnapshotInfo } from '../snapshot-store/store-contract';
import { checkSnapshotStore, findSnapshots, snapshotLineage } from './snapshot-queries';
import { SessionItemsReader, SessionListeners, type SessionItems } from './session-read';

/** When event payloads (and reducer output) are validated against their schemas. */
export type ValidationMode = 'always' | 'dev' | 'off';

/** Options of {@link createSession}. */
export interface SessionOptions {
  /** The slices of the session, in registration order (which is also reducer order per event). */
  readonly slices: readonly SliceDef<string, any>[];
  /**
   * Operator middleware on the envelope stream and reducer middleware around every reducer.
   *
   * Operator middleware sees application events only: library events (`rxslice.*`) bypass it
   * (they still appear on `events$` and `committed$`), so a filter cannot drop a restore or a
   * transaction's rollback. An operator that throws or errors while an event is fed in rejects
   * that event (`dispatch` throws a {@link ReducerError} with `reducerName` `'operator middleware'`,
   * reported on `errors$`); a later failure (after a delay) is reported on `errors$`. Either way
   * the chain is resubscribed before the next event, however often it fails (also when it
   * completed); envelopes it held when it failed are lost with it. An envelope that leaves the
   * middleware must carry an application event (a forged `rxslice.*` type is rejected the same way).
   *
   * Event middleware: functions `(envelope, next) => void` that see each application event once,
   * before the operator middleware, in order (see {@link EventMiddleware}). The cheap kind for
   * what runs once per event; a throw rejects the event as an operator failure does
   * (`reducerName` `'event middleware'`). `session.use(...)` adds middleware of every kind later.
   */
  readonly middleware?: MiddlewareSet;
  /**
   * Event creators the session knows beside those its slices' reducers handle: their types may be
   * dispatched (for epics, effects, channels or `committed$` listeners) and their schemas validate
   * dispatches even when no reducer listens to them.
   */
  readonly events?: readonly EventCreator<string, any>[];
  /**
   * What `dispatch` does with an event whose type nothing in the session declares (no slice
   * reducer, machine, saga, effect, channel or `events` entry; docs/ARCHITECTURE.md, "Known
   * events"): `'reject'` (default) throws {@link UnknownEventError}, reported on `errors$`, nothing
   * changed, no `seq` taken; `'accept'` commits it like any other event (as a catch-all store would).
   */
  readonly unknownEvents?: 'reject' | 'accept';
  /** Source of time for envelopes, windows and effects. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
  /**
   * `'always'`, `'off'`, or `'dev'` (default): validate unless `process.env.NODE_ENV === 'production'`.
   * Covers event payloads and reducer output; seeds, restores and JSON snapshots are always validated.
   *
   * With validation on, each item a reducer returns is replaced by its schema's output (defaults
   * and transforms applied, unknown keys stripped) and must be plain JSON data (no cycles, BigInt,
   * functions, symbols, non-finite numbers, `undefined` or holes in arrays, class instances,
   * nesting past 512 levels): what a slice holds is then exactly what its JSON round trip
   * restores, and a bad item fails the event (`ReducerError` caused by `InvalidSliceItemError`).
   * (A transform must map its own output to itself, as reading a snapshot parses the item again.)
   * With `'off'`, items are stored as returned, unchecked and uncopied.
   */
  readonly validation?: ValidationMode;
  /**
   * Deep-freeze items entering the session, the arrays handed to readers and the entries of
   * snapshots. Default: on unless `process.env.NODE_ENV === 'production'` (as Redux Toolkit's
   * dev-only checks do); readers always get read-only arrays for log slices.
   */
  readonly freeze?: boolean;
  /**
   * Storage: one factory for every slice (`storage: jsonl({ dir })`), or one per policy
   * (`{ state: memory(), log: jsonl({ dir }) }`). Default: `memory({ freeze })` for both.
   */
  readonly storage?: StorageFactory | { readonly state?: StorageFactory; readonly log?: StorageFactory };
  /**
   * Channels opened with the session, so their replay buffers hold every event from the first
   * (`session.channel(def)` opens one later, buffering from then on).
   */
  readonly channels?: readonly AnyChannelDef[];
  /**
   * A snapshot catalogue (`createSnapshotStore()` from `rxslice/snapshot-store`) that
   * `session.findSnapshots` and `session.snapshotLineage` answer from. The session only reads
   * it: save snapshots with `store.save(session.snapshot({ tag }))`.
   */
  readonly snapshotStore?: SnapshotStore;
}

/** An envelope after its commit, with the slices it changed and the effects its reducers produced. */
export interface CommittedEnvelope<TEvent extends Event = Event> extends Envelope<TEvent> {
  readonly changed: readonly string[];
  readonly effects: readonly Event[];
}

/** Items a window evicted from a slice during one commit. */
export interface EvictedItems {
  readonly slice: string;
  readonly seq: number;
  readonly items: readonly unknown[];
}

/** A slice named by its definition or its name. */
export type SliceRef = SliceDef<string, any> | string;

/** Options of {@link Session.snapshot}. */
export interface SnapshotOptions {
  /** Also capture `'log'` slices. Default `false` (state slices only). */
  readonly includeLogs?: boolean;
  /** A label kept with the snapshot (a snapshot store finds snapshots by tag glob). */
  readonly tag?: string;
  /** Capture exactly these slices, whatever their policy (`includeLogs` is then ignored). */
  readonly include?: readonly SliceRef[];
  /** Capture the default set (state slices, or all with `includeLogs`) minus these. */
  readonly exclude?: readonly SliceRef[];
}

/**
 * The events a session made with `TOptions` accepts at the type level (docs/ARCHITECTURE.md,
 * "Known events"): the events its slices' declared reducers handle, its `events` creators and
 * its channels' events; `Event` (any event) when that is not known (a slice without inferable
 * reducers, no declaration at all) or with `unknownEvents: 'accept'`.
 * @example
 * ```ts
 * type E = SessionEvent<{ slices: [typeof Tasks]; events: [typeof TaskRemoved] }>; // Event<'tasks/added', Task> | Event<'tasks/removed', ...>
 * ```
 */
export type SessionEvent<TOptions> = TOptions extends { readonly unknownEvents: 'accept' }
  ? Event
  : (
        | (TOptions extends { readonly slices: readonly (infer TSlice)[] } ? InferSliceEvent<TSlice> : never)
        | (TOptions extends { readonly events: readonly (infer TCreator)[] } ? InferEvent<TCreator> : never)
        | (TOptions extends { readonly channels: readonly (infer TChannel)[] } ? Extract<InferChannelEvent<TChannel>, Event> : never)
      ) extends infer TDeclared extends Event
    ? // Nothing declared at the type level, or a slice typed for any event: any event.
      [TDeclared] extends [never]
      ? Event
      : Event extends TDeclared
        ? Event
        : TDeclared
    : Event;

/**
 * A live session: the store. See {@link createSession}. `TEvent` is the union of the events it
 * accepts at the type level ({@link SessionEvent}; `Event`, any event, when not known).
 */
export interface Session<TEvent extends Event = Event> extends SessionReader {
  /**
   * Validates, envelopes and reduces `event`; returns its envelope. See {@link createSession} for
   * the rules. Typed by the session's declarations: an event of another type is a compile error
   * (and an `UnknownEventError` at run time).
   */
  dispatch<TDispatched extends TEvent>(event: TDispatched, meta?: EnvelopeMeta): Envelope<TDispatched>;
  /** The live accessor of a slice. @throws {@link SliceNotRegisteredError} */
  slice<TItem>(def: SliceDef<string, TItem>): SliceHandle<TItem>;
  /** The live handle of a computed slice (`defineComputed`) or accessor of a computed family (`defineComputedFamily`). */
  computed<THandle>(def: Attachable<THandle>): THandle;
  /**
   * Adds middleware at run time (a plugin added after the session was made), after the
   * session's middleware of the same kind so far. Each argument is a reducer middleware function
   * `(ctx, next) => SliceOp`, or a {@link MiddlewareSet} `{ events, operators, reducers }` (the
   * shape `createSession({ middleware })` takes) for event and operator middleware, which are
   * functions too and cannot be told apart otherwise.
   *
   * Order, first outermost (or first in the pipe): event middleware given to `createSession`, then
   * `use` calls in order; the same for operators; each slice's reducer chain is the session's
   * reducer middleware (`createSession`, then `use` calls), then the slice's own
   * (`defineSlice({ middleware })`, then `session.slice(def).use` calls). Slices added later get
   * the session's too.
   *
   * @returns A disposer that removes exactly what this call added, of every kind (idempotent).
   * @remarks Applies from the next event: middleware added (or removed) while an event is being
   * processed (by a middleware, a reducer, a subscriber) does not change how that event is
   * handled; an event queued behind it meets the new set. Adding or removing operator middleware
   * builds a new operator chain for the events that follow (stateful operators such as `throttle`
   * or `distinctUntilChanged` start afresh; adding event or reducer middleware leaves the chain
   * alone). The chain it replaces is fed nothing more and completes (scheduled on the session's
   * scheduler), so each envelope it holds still reaches the reducers exactly once, as its operators
   * let go on completion: a `delay` on time, a `debounceTime` at once. An event middleware that
   * calls `next` after its removal hands the event to the operator middleware in force then.
   * Without run-time middleware the session runs as before (no wrapper, no per-event check beyond
   * one field). Source: the seed's Abstractions Proposal, P3 (`session.use(logging, validation,
   * metrics)`); the seed's per-slice `session[Plan].use(...)` is `session.slice(Plan).use(...)`
   * here, as TypeScript cannot index an object by a slice definition.
   * @throws {@link InvalidMiddlewareError} when an argument is neither a function nor a
   * `MiddlewareSet` of arrays of functions (an unknown key included), or the call adds nothing;
   * {@link SessionDisposedError} on a disposed session. Nothing of the call is added then.
   * @example
   * ```ts
   * const logging: ReducerMiddleware = (ctx, next) => {
   *   console.log(`${ctx.slice} <- ${ctx.eventType}`);
   *   return next();
   * };
   * const stop = session.use(logging, validation, metrics); // logging outermost
   * session.dispatch(StepAdded({ step: 'a' })); // Logs: plan <- plan/step-added
   * stop();
   * // Event and operator middleware: by kind, as createSession({ middleware }) takes them.
   * const unplug = session.use({ events: [audit], operators: [throttleTime(100)] });
   * ```
   */
  use(...middleware: (ReducerMiddleware | MiddlewareSet)[]): () => void;
  /** Returns every slice to its `initial` items, as one `rxslice.session.reset` event. */
  reset(): void;
  /** Runs `fn`; slice, computed and `committed$` notifications are held until it returns, then each changed slice emits once. */
  batch<TResult>(fn: () => TResult): TResult;
  /**
   * Runs `fn` as a transaction over the working state: the `'state'` slices are snapshotted
   * first and, if `fn` throws (or its promise rejects), restored as one
   * `rxslice.session.restored` event before the error is rethrown. `'log'` slices keep what was
   * appended — history is preserved on rollback (docs/ARCHITECTURE.md, "Data model": policy). Events dispatched inside
   * stay on the stream, so the rollback is auditable.
   * @remarks For an async `fn`, state changes made by other dispatches while it runs are rolled
   * back too. Nested transactions each restore their own snapshot.
   * @example
   * ```ts
   * session.transaction(() => {
   *   session.dispatch(StepAdded({ step: 'a' }));
   *   throw new Error('abort'); // Plan is back to what it was; the messages log keeps its appends
   * });
   * ```
   */
  transaction<TResult>(fn: () => TResult): TResult;
  /**
   * Opens a typed channel (`defineChannel`) on the session: publish its events, subscribe to them
   * narrowed to its union, replay them from a seq. The same channel (by name) is opened once per
   * session; its replay buffer fills from then on.
   * @throws {@link InvalidChannelError} for something that is not a channel, or another channel
   * of the same name with other event types.
   * @example
   * ```ts
   * const plan = session.channel(PlanEvents);
   * plan.subscribe((e) => console.log(e.type));
   * plan.replay({ fromSeq: 100 }).subscribe((env) => console.log(env.seq));
   * ```
   */
  channel<TEvent extends { readonly type: string }>(def: ChannelDef<string, TEvent>): Channel<TEvent>;
  /**
   * Captures state slices (and logs with `includeLogs`), or the slices `include` names, minus
   * those `exclude` names, in O(number of slices): items are shared, never copied. The snapshot's
   * `parents` name the snapshot last restored into the session (lineage).
   * @throws {@link UnknownSliceError} (`where: 'session'`) for a slice the session does not have;
   * `InvalidSnapshotError` when `include` and `exclude` share a slice or hold something that is
   * neither a slice definition nor a name.
   * @example
   * ```ts
   * const planOnly = session.snapshot({ include: [Plan], tag: 'plan:v1' });
   * const noScratch = session.snapshot({ includeLogs: true, exclude: ['scratch'] });
   * ```
   */
  snapshot(options?: SnapshotOptions): Snapshot;
  /**
   * Restores the snapshot's slices (or the named subset) as one `rxslice.session.restored` event,
   * all or nothing. A snapshot this session took restores in O(number of slices); so does one from
   * `snapshotFromJSON` or another session made with the same slice definitions. Any other snapshot
   * (other definitions of the same names, a hand-made object) has its items validated with the
   * slices' schemas and copied (deep-frozen) first, O(items).
   * Such items are copied (getters and proxies read once), must be plain JSON data and are
   * validated; the restored slices' windows apply (evictions reported on `evicted$`). The restored
   * event bypasses operator middleware, so the restore always happens.
   * @throws {@link UnknownSliceError} when a name is not registered, or not in the snapshot
   * (`where: 'snapshot'`, naming the slices it holds);
   * {@link InvalidSliceItemError} when an item of such a snapshot fails its slice's schema or is
   * not plain JSON data; `InvalidSnapshotError` when `snapshot` is not a snapshot (`null`, no
   * `slices` record, an entry without an items array, a getter or Proxy trap that throws) or
   * `options.slices` is not an array of names. Nothing changes then.
   * @example
   * ```ts
   * const before = session.snapshot();
   * session.dispatch(StepAdded({ step: 'b' }));
   * session.restore(before); // one rxslice.session.restored event; Plan is back to what it was
   * ```
   */
  restore(snapshot: Snapshot, options?: { readonly slices?: readonly SliceRef[] }): void;
  /**
   * The snapshots of the session's snapshot store (`createSession({ snapshotStore })`) matching
   * `query`: a tag glob (`'tool:*'`, `'!debug:*'`), captured strictly after / before a time (ms
   * or `Date`), holding a slice, at most `limit`; newest first. Resolves with what the store
   * keeps about each (id, tag, seq, capture time, parents, slice names): load one with `store.load(id)`.
   * @remarks Async (the store is); answers after every store operation called before it.
   * @throws (rejects) {@link NoSnapshotStoreError} when the session has no store;
   * `SnapshotStoreError` (`INVALID_SNAPSHOT_QUERY`) for a malformed query.
   * @example
   * ```ts
   * const store = createSnapshotStore();
   * const session = createSession({ slices: [Plan], snapshotStore: store });
   * await store.save(session.snapshot({ tag: 'tool:search' }));
   * (await session.findSnapshots({ tag: 'tool:*', containsSlice: Plan })).map((i) => i.tag); // ['tool:search']
   * ```
   */
  findSnapshots(query?: SnapshotQuery): Promise<SnapshotInfo[]>;
  /**
   * The lineage of `snapshot` (or of the stored snapshot of that id), **oldest first, ending with
   * the snapshot itself**: each entry's first parent is the entry before it (the snapshot it was
   * restored from, or a merge's first input; a merge's other parents are in its `parents`). The
   * chain stops at a root or at a parent the store does not hold. A snapshot not saved in the
   * store ends the list as an entry made from it (`saved: 0`).
   * @remarks Async, from the session's snapshot store; reads no slice items.
   * @throws (rejects) {@link NoSnapshotStoreError} when the session has no store;
   * `SnapshotStoreError` (`SNAPSHOT_NOT_FOUND`) for an id the store does not hold;
   * `InvalidSnapshotError` for something that is neither a snapshot nor an id.
   * @example
   * ```ts
   * const v1 = session.snapshot({ tag: 'v1' });
   * await store.save(v1);
   * session.restore(v1);
   * const v2 = session.snapshot({ tag: 'v2' }); // parents: [v1.id]
   * await store.save(v2);
   * session.restore(v2);
   * const v3 = session.snapshot({ tag: 'v3' });
   * (await session.snapshotLineage(v3)).map((i) => i.tag); // ['v1', 'v2', 'v3']
   * ```
   */
  snapshotLineage(snapshot: Snapshot | string): Promise<SnapshotInfo[]>;
  /**
   * The whole session in one read, for external-store bindings (React's `useSyncExternalStore`,
   * Vue's `shallowRef`, Svelte stores): a frozen object mapping each registered slice's name
   * (machines' `machine/<name>` and the sagas slice included, once added) to the same read-only
   * array `session.slice(def).all()` returns. The **same object** on every call until a slice
   * changes (a commit that changed at least one slice, or a slice added); a commit that changed
   * nothing, a rejected event or a filtered one leave it as it was. Unchanged slices keep their
   * arrays across a rebuild, so per-slice memoisation still holds.
   * @remarks Built lazily, on read: dispatching does no work for it. A read compares the slices'
   * versions with those the cached object was made from, O(number of slices) without allocating;
   * a rebuild after a change is O(number of slices) too (items are never copied). Inside a
   * `batch`, reads see committed state as it is (listeners are told once, at the end). Works on a
   * disposed session (the last state). Source: React's `useSyncExternalStore` contract
   * (getSnapshot must return a cached value while the store is unchanged).
   * @example
   * ```ts
   * const state = useSyncExternalStore(session.subscribe, session.getSnapshot);
   * state.plan.length; // items of the "plan" slice
   * session.getSnapshot() === session.getSnapshot(); // true until the next change
   * ```
   */
  getSnapshot(): SessionItems;
  /**
   * Calls `listener` (no arguments) once per commit that changed at least one slice, after the
   * slices' own observables and computed slices were told and before `committed$` emits; once per
   * `batch` (at its end) for all the commits inside it. Not for commits that changed nothing, rejected
   * or filtered events. Read the new state with {@link Session.getSnapshot}. A bound function:
   * `useSyncExternalStore(session.subscribe, session.getSnapshot)` works as is.
   * @returns The unsubscribe function (idempotent). A listener removed while commits are being
   * published is not called again.
   * @remarks A listener that throws is reported on `errors$` as a {@link SubscriberError} (source
   * `'subscribe'`) and the others are still called. On a disposed session nothing is ever called.
   * @throws {@link InvalidListenerError} when `listener` is not a function (nothing subscribed).
   * @example
   * ```ts
   * const stop = session.subscribe(() => render(session.getSnapshot()));
   * session.dispatch(StepAdded({ step: 'a' })); // render called once
   * stop();
   * ```
   */
  subscribe(listener: () => void): () => void;
  /**
   * Envelopes as they enter the pipeline (before operator middleware). Like `committed$`,
   * `evicted$` and slice observables, a subscriber that throws is reported on `errors$` as a
   * {@link SubscriberError} (to RxJS's unhandled-error hook when nobody subscribes to `errors$`).
   */
  readonly events$: Observable<Envelope>;
  /** Envelopes after their commit, with the names of the slices that changed. */
  readonly committed$: Observable<CommittedEnvelope>;
  /**
   * Failures: invalid events, reducer and operator-middleware errors, subscribers that threw
   * (`SUBSCRIBER_FAILED`), and errors reported by effects and computed slices. A subscriber of
   * `errors$` itself that throws goes to RxJS's unhandled-error hook.
   */
  readonly errors$: Observable<RxSliceError>;
  /** Items evicted by slice windows, per slice and commit. */
  readonly evicted$: Observable<EvictedItems>;
  /** The session's scheduler. */
  readonly scheduler: SchedulerLike;
  /** The `seq` of the last committed envelope (0 before any). */
  readonly lastSeq: number;
  /** Completes every observable and rejects further use. Idempotent. */
  dispose(): void;
  /** @internal */
  readonly [SESSION_INTERNALS]: SessionInternals;
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
 * const session = createSession({ slices: [Messages] });
 * session.slice(Messages).all$.subscribe((m) => console.log(m.length)); // Logs: 0
 * session.dispatch(MessageAdded({ text: 'hi' }));                       // Logs: 1
 * ```
 */
export function createSession<TOptions extends SessionOptions>(options: TOptions): Session<SessionEvent<TOptions>>;
export function createSession(options: SessionOptions): Session {
  const freeze = options.freeze ?? !isProduction();
  const mode = options.validation ?? 'dev';
  const snapshotStore = checkSnapshotStore(options.snapshotStore);
  // The pipeline lives in a SessionCore (prototype methods, optimized once for every session);
  // this function builds the public face around it.
  const core = new SessionCore({
    scheduler: options.scheduler ?? asyncScheduler,
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

  const internals: SessionInternals = {
    addSlice(def) {
      if (core.disposed) throw new SessionDisposedError(`add slice "${def.name}"`);
      registry.addSliceWithRoutes(def);
    },
    addReducer: (slice, entry) => registry.addReducer(registry.recordOf(slice), entry),
    declareEvents(types, as = 'types') {
      for (const type of types) {
        if (as === 'descriptors') registry.known.addDescriptor(type);
        else registry.known.add(type);
      }
    },
    extensions: new Map(),
    onCommitted(listener) {
      const full = listener.effectsOnly !== true;
      if (full) core.fullCommittedListeners++;
      core.committedListeners = [...core.committedListeners, listener];
      let removed = false;
      return () => {
        if (removed) return;
        removed = true;
        if (full) core.fullCommittedListeners--;
        const i = core.committedListeners.indexOf(listener);
        if (i >= 0) core.committedListeners = [...core.committedListeners.slice(0, i), ...core.committedListeners.slice(i + 1)];
      };
    },
    onCommit(listener) {
      return addListener(core.commitListeners, listener);
    },
    addDecider: (decider) => addListener(core.deciders, decider),
    version: (name) => (registry.records.get(name) ?? registry.recordOf(name)).storage.version,
    sliceSource: (name) => registry.recordOf(name).storage,
    appendedOnlySince: (name, version) => (registry.records.get(name) ?? registry.recordOf(name)).storage.appendedOnlySince?.(version) ?? false,
    freeze,
    hasSlice: (name) => registry.records.has(name),
    reportError: (error) => core.errors$.next(error),
    reportSubscriberFailure: (source, error) => core.reportSubscriberFailure(source, error),
    get pendingRestores() {
      return core.restoring.size;
    },
    dispatchSystem: (event, meta) => core.dispatchEnvelope(core.accept(event, meta, true)),
    forwardTo(forward) {
      core.forward = forward;
    },
    applyLogged: (env) => core.applyLogged(env),
    skipTo(seq) {
      core.checkNextSeq(seq, 'skipTo');
      core.seq = seq - 1;
    },
    get disposed() {
      return core.disposed;
    },
    onDispose: (teardown) => core.subscriptions.add(teardown),
  };

  const session: Session = {
    dispatch: (event, meta) => core.dispatchEnvelope(core.accept(event, meta, false)),
    slice: <TItem>(def: SliceDef<string, TItem>) => handleOf(registry.recordOf(def) as SliceRecord<TItem>),
    computed: (def) => def[ATTACH](session),
    read: <TItem>(def: SliceDef<string, TItem> | string) => registry.recordOf(def as SliceDef<string, TItem>).storage.all() as readonly TItem[],
    use: (...middleware) => useMiddleware(core, undefined, middleware),
    reset() {
      core.dispatchEnvelope(core.accept(SessionReset(), { source: 'rxslice' }, true));
    },
    batch: (fn) => core.batch(fn),
    transaction<TResult>(fn: () => TResult): TResult {
      if (core.disposed) throw new SessionDisposedError('run a transaction');
      if (core.forward !== undefined) throw new UnsupportedOnSharedSessionError('transaction');
      const before = session.snapshot({ tag: 'rxslice.transaction' });
      const rollback = (error: unknown): never => {
        if (!core.disposed) session.restore(before);
        throw error;
      };
      let result: TResult;
      try {
        result = fn();
      } catch (error) {
        return rollback(error);
      }
      if (result !== null && typeof result === 'object' && typeof (result as { then?: unknown }).then === 'function') {
        return (result as unknown as PromiseLike<unknown>).then((value) => value, rollback) as TResult;
      }
      return result;
    },
    snapshot(opts = {}) {
      const include = sliceNames(opts.include, 'snapshot option "include"');
      const exclude = sliceNames(opts.exclude, 'snapshot option "exclude"');
      const selection = include === undefined && exclude === undefined ? undefined : { include, exclude };
      return core.snapshots.take(core.lastSeq, core.scheduler.now(), opts.tag, opts.includeLogs === true, selection);
    },
    restore(snapshot, opts) {
      if (core.disposed) throw new SessionDisposedError('restore a snapshot');
      if (core.forward !== undefined) throw new UnsupportedOnSharedSessionError('restore');
      const checked = core.snapshots.prepareRestore(snapshot, opts);
      core.restore(checked.snapshot, checked.names, checked.id);
    },
    events$: guarded(core, core.events$, 'events$'),
    committed$: guarded(core, core.committed$, 'committed$'),
    // Not guarded: a throwing errors$ subscriber goes to RxJS's unhandled-error hook.
    errors$: core.errors$.asObservable(),
    evicted$: guarded(core, core.evicted$, 'evicted$'),
    scheduler: core.scheduler,
    get lastSeq() {
      return core.lastSeq;
    },
    dispose: () => core.dispose(),
    channel: (def) => openKnownChannel(def),
    getSnapshot: () => items.read(),
    subscribe(listener) {
      if (typeof listener !== 'function') throw new InvalidListenerError(listener === null ? 'null' : typeof listener);
      return listeners.add(listener);
    },
    findSnapshots: (query) => findSnapshots(snapshotStore, query),
    snapshotLineage: (snapshot) => snapshotLineage(snapshotStore, snapshot),
    [SESSION_INTERNALS]: internals,
  };
  const channels = new Map<string, ChannelRuntime<any>>();
  // A channel declares its event types (publishing to it is dispatching them).
  const openKnownChannel = <TEvent extends { readonly type: string }>(def: ChannelDef<string, TEvent>): ChannelRuntime<TEvent> => {
    const runtime = openChannel(channels, def, session);
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

/**
 * Checks and adds run-time middleware (every kind to the session, or reducer middleware to
 * `record`); returns the disposer of all of it. Everything is checked before anything is added.
 */
function useMiddleware(core: SessionCore, record: SliceRecord<any> | undefined, args: readonly unknown[]): () => void {
  if (core.disposed) throw new SessionDisposedError('add middleware');
  const used = sortMiddleware(args, record === undefined ? 'session' : 'slice');
  const removeReducers = used.reducers.length > 0 ? core.registry.addMiddleware(record, used.reducers) : undefined;
  const removePipeline = used.events.length + used.operators.length > 0 ? core.middleware.add(used.events, used.operators) : undefined;
  return () => {
    removeReducers?.();
    removePipeline?.();
  };
}

/** Adds `listener` to `list`; returns the function that removes it. */
function addListener<TListener>(list: TListener[], listener: TListener): () => void {
  list.push(listener);
  return () => {
    const i = list.indexOf(listener);
    if (i >= 0) list.splice(i, 1);
  };
}

/** The public accessor of one slice (made once per slice, on first `session.slice(def)`). */
function sliceHandle<TItem>(core: SessionCore, record: SliceRecord<TItem>): SliceHandle<TItem> {
  const storage = record.storage;
  return {
    name: record.def.name,
    get version() {
      return storage.version;
    },
    get isEmpty() {
      return storage.size === 0;
    },
    get size() {
      return storage.size;
    },
    latest: () => storage.latest(),
    all: () => storage.all(),
    where: (predicate) => storage.view().where(predicate),
    at: (index) => storage.view().at(index),
    // The record makes each observable once.
    get all$() {
      return record.all$();
    },
    get latest$() {
      return record.latest$();
    },
    get changes$() {
      return record.changes$();
    },
    use: (...middleware) => useMiddleware(core, record, middleware),
    seed(items) {
      if (!Array.isArray(items)) throw new InvalidSliceItemError(record.def.name, 0, [{ code: 'invalid_type', path: [], message: 'seed expects an array of items' }]);
      const parsed = Array.from(items, (item, i) => importItem(record, item, i)) as TItem[];
      core.dispatchEnvelope(core.accept(SliceSeeded({ slice: record.def.name, items: parsed }), { source: 'rxslice' }, true));
    },
    clear() {
      core.dispatchEnvelope(core.accept(SliceCleared({ slice: record.def.name }), { source: 'rxslice' }, true));
    },
    register(creator, reducer, name) {
      if (core.disposed) throw new SessionDisposedError('register a reducer');
      return core.registry.addReducer(record, { eventType: creator.type, name: name ?? creator.type, reducer, schema: creator.schema });
    },
    configure(config: SliceRuntimeConfig<TItem>) {
      let window = config.window === undefined ? record.window : (config.window ?? undefined);
      if (config.eviction !== undefined) {
        if (window === undefined) {
          throw new InvalidWindowError('(none)', `slice "${record.def.name}" has no window for eviction "${config.eviction.description}" to choose from. Pass configure({ window, eviction }).`);
        }
        window = SliceWindow.withEviction(window, config.eviction);
      }
      record.window = window;
    },
  };
}
