import type { Observable, SchedulerLike } from 'rxjs';
import type { Event, InferEvent } from '../events/event';
import type { Envelope, EnvelopeMeta } from '../events/envelope';
import type { ChannelDef, InferChannelEvent } from '../events/define-channel';
import type { RxSliceError, SubscriberError } from '../internal/errors';
import type { InferSliceEvent, ReducerMiddleware, SessionReader, SliceDef } from '../slices/reducer';
import type { Snapshot } from '../snapshots/snapshot';
import type { SnapshotQuery } from '../snapshot-store/read-query';
import type { SnapshotInfo } from '../snapshot-store/store-contract';
import type { Channel } from '../events/channel-runtime';
import type { CommittedEnvelope } from './committed-envelope';
import type { ATTACH, SESSION_INTERNALS, SessionInternals } from './internals';
import type { MiddlewareSet } from './middleware-set';
import type { SessionItems } from './session-read';
import type { SliceHandle } from './slice-handle';
import type { AnySliceCommand } from './system-events';

// The core session's public types: its options, the Session interface, and the values it hands
// out (evicted items, snapshot options). Declared apart from createCoreSession
// (./create-core-session.ts) so that the session's own modules (the core, the channels, the
// internals) can name them without importing the function that builds a session.

export type { SessionOptions, ValidationMode } from './session-options';

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

/** Options of `session.reset`. */
export interface ResetOptions {
  /** `'empty'` (default): clear every slice. `'initial'`: every slice back to its declared `initial` items. */
  readonly to?: 'empty' | 'initial';
}

/**
 * A live session: the store. See {@link createSession}. `TEvent` is the union of the events it
 * accepts at the type level ({@link SessionEvent}; `Event`, any event, when not known).
 */
export interface Session<TEvent extends Event = Event> extends SessionReader {
  /**
   * Validates, envelopes and reduces `event`; returns its envelope. See {@link createSession} for
   * the rules. Typed by the session's declarations: an event of another type is a compile error
   * (and an `UnknownEventError` at run time). Also takes the library's slice commands
   * `InitializeSlice(def, items)` and `ClearSlice(def)` (exactly `seed` and `clear`); any other
   * `rxslice.*` event is refused with `ReservedEventTypeError` (it would forge a library event).
   */
  dispatch<TDispatched extends TEvent | AnySliceCommand>(event: TDispatched, meta?: EnvelopeMeta): Envelope<TDispatched>;
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
   * {@link SessionDisposedError} on a disposed session; on a store (`createStore`) in a program
   * that linked no event and operator middleware runtime (`defineMiddleware`, `validationMiddleware`
   * or `createSession` link it), `TypeError` for `events` or `operators`. Nothing of the call is added then.
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
  /**
   * Clears every slice (the seed's "Clear all slices"), or with `{ to: 'initial' }` returns every
   * slice to its `initial` items, as one `rxslice.session.reset` event (payload `{ to }`): one
   * commit, audited on `committed$` and in recordings. Log slices are cleared too: a reset is
   * the user's explicit wish, unlike a rollback.
   * @example
   * ```ts
   * session.reset();                  // every slice empty
   * session.reset({ to: 'initial' }); // every slice back to its declared initial items
   * ```
   */
  reset(options?: ResetOptions): void;
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
   * The snapshots this session took (`session.snapshot()`) matching `query`: a tag glob
   * (`'tool:*'`, `'!debug:*'`), captured strictly after / before a time (ms or `Date`), holding a
   * slice, at most `limit`; newest first. Resolves with what the catalogue keeps about each (id,
   * tag, seq, capture time, parents, slice names). Answers from the session's own catalogue (its
   * last 100 snapshots by default, see `SessionOptions.snapshotCatalogue`), or from the snapshot
   * store it was given (`createSession({ snapshotStore })`), which also holds what was saved to it
   * otherwise: load one with `store.load(id)`.
   * @remarks Async (a store is); answers after every store operation called before it.
   * @throws (rejects) {@link NoSnapshotStoreError} when the session keeps no catalogue
   * (`snapshotCatalogue: false`, no store); `SnapshotStoreError` (`INVALID_SNAPSHOT_QUERY`) for a
   * malformed query (the session's catalogue also refuses picomatch-only glob syntax).
   * @example
   * ```ts
   * const session = createSession({ slices: [Plan] });
   * const before = session.scheduler.now();
   * session.snapshot({ tag: 'tool:search' });
   * (await session.findSnapshots({ tag: 'tool:*', createdAfter: before - 1, containsSlice: Plan })).map((i) => i.tag); // ['tool:search']
   * ```
   */
  findSnapshots(query?: SnapshotQuery): Promise<SnapshotInfo[]>;
  /**
   * The lineage of `snapshot` (or of the stored snapshot of that id), **oldest first, ending with
   * the snapshot itself**: each entry's first parent is the entry before it (the snapshot it was
   * restored from, or a merge's first input; a merge's other parents are in its `parents`). The
   * chain stops at a root or at a parent the catalogue does not hold (the session's catalogue
   * keeps its last 100 snapshots by default; a store, what was saved to it). A snapshot not in
   * the catalogue (a merge, one from JSON) ends the list as an entry made from it (`saved: 0`).
   * @remarks Async, from the session's catalogue or snapshot store; reads no slice items. Its code
   * (and the catalogue's query code, `findSnapshots`') is a lazy chunk (`import()`) that the first
   * call loads before it reads the catalogue or asks the store (docs/SIZE.md).
   * @throws (rejects) {@link NoSnapshotStoreError} when the session keeps no catalogue;
   * `SnapshotStoreError` (`SNAPSHOT_NOT_FOUND`) for an id it does not hold;
   * `InvalidSnapshotError` for something that is neither a snapshot nor an id.
   * @example
   * ```ts
   * const v1 = session.snapshot({ tag: 'v1' });
   * session.restore(v1);
   * const v2 = session.snapshot({ tag: 'v2' }); // parents: [v1.id]
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

/** The session methods that the snapshot functions (`takeSnapshot`, `restoreSnapshot`, ...) stand for: a store (`createStore`) has none of them. */
export type SnapshotMethodName = 'snapshot' | 'restore' | 'transaction' | 'findSnapshots' | 'snapshotLineage';

/**
 * A session without the snapshot methods: what a store (`createStore`) and a session
 * (`createSession`) have in common, and what the functions that work on either take.
 */
export type CoreStore<TEvent extends Event = Event> = Omit<Session<TEvent>, SnapshotMethodName>;

/** A declaration that `session.computed(def)` can open: made by `defineComputed` or `defineComputedFamily`. */
export interface Attachable<THandle> {
  /** @internal Opens the declaration in `session` and returns its live handle (`session.computed(def)` calls it). */
  readonly [ATTACH]: (session: CoreStore) => THandle;
}
