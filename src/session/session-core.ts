import { Subject, Subscription, type OperatorFunction, type SchedulerLike } from 'rxjs';
import { ReservedEventTypeError } from '../events/define-event';
import type { Event, EventCreator } from '../events/event';
import type { Snapshot } from '../snapshots/snapshot';
import type { Envelope, EnvelopeMeta } from '../events/envelope';
import { SubscriberError, toIssues, type RxSliceError } from '../internal/errors';
import { reportUnhandled } from '../internal/guarded-observable';
import { codedMessage } from '../internal/coded-message';
import { DEV } from '../internal/dev';
import { RecentAnswers } from '../internal/recent-answers';
import type { ReducerMiddleware, SliceDef } from '../slices/reducer';
import type { StorageFactory, StorageTransaction } from '../storage/slice-storage';
import { applyOp, applyWindow, importItem, stageLatest } from './apply-op';
import { replaceLatestByOp } from '../slices/helper-reducers';
import { replaceLatestOp } from '../slices/latest-reducers';
import { extend } from '../slices/slice-op';
import type { EvictedItems } from './session-types';
import type { CommittedEnvelope } from './committed-envelope';
import { DispatchInReducerError, InvalidEventError, InvalidSliceItemError, ReducerError, SessionDisposedError, UnknownEventError } from './errors';
import type { CommitListener, CommittedListener, EnvelopeDecider, TransactionListener } from './internals';
import type { EventMiddleware } from './event-pipeline';
import { journalLayer, pipelineLayer, type SessionJournals } from './feature-layers';
import { isLibraryType, SessionQueue, type HeldCommit } from './session-queue';
import { SessionRegistry } from './session-registry';
import { closestType } from './known-events';
import type { RestoredSlices } from './capture-plan';
import type { SessionSnapshots } from './session-snapshots';
import type { Route, SliceRecord } from './slice-handle';
import { LIBRARY_META, SessionReset, SessionRestored, SLICE_COMMAND, SliceAppended, SliceCleared, SliceLatestReplaced, SliceSeeded, type SliceCommand } from './system-events';
import { messageOf, quote } from '../internal/quote';

const EMPTY_META: EnvelopeMeta = Object.freeze({});
const NOT_AN_EVENT = !DEV ? codedMessage('E45', 'not an event') : 'dispatch expects an event object { type: string, payload }, e.g. StepAdded({ ... })';

const NO_EFFECTS: readonly Event[] = Object.freeze([]);
const NO_NAMES: readonly string[] = Object.freeze([]);
const NO_RECORDS: readonly SliceRecord<any>[] = Object.freeze([]);
const NO_EVICTIONS: readonly EvictedItems[] = Object.freeze([]);

/** @internal What {@link SessionCore} needs from the session's options, resolved. */
export interface SessionCoreConfig {
  readonly scheduler: SchedulerLike;
  /** Validate event payloads and reducer output. */
  readonly validate: boolean;
  /** Deep-freeze items entering the session. */
  readonly freeze: boolean;
  readonly globalMiddleware: readonly ReducerMiddleware[];
  readonly operators: readonly OperatorFunction<Envelope, Envelope>[];
  /** Event middleware, run before the operator middleware. */
  readonly eventMiddleware: readonly EventMiddleware[];
  readonly stateStorage: StorageFactory;
  readonly logStorage: StorageFactory;
  /** The slices, in registration order (registered with their declared reducers). */
  readonly slices: readonly SliceDef<string, any>[];
  /** Event creators whose schemas validate dispatches even when no reducer listens to them. */
  readonly events: readonly EventCreator<string, any>[];
  /** Reject (default) or accept events whose type nothing in the session declares. */
  readonly unknownEvents: 'reject' | 'accept';
}

/**
 * @internal The dispatch pipeline of one session: accepting events, reducing an envelope into every
 * listening slice (staging their next contents) and committing them all or none, then publishing.
 * The `seq`, queue, drain and batch bookkeeping it builds on is {@link SessionQueue}'s.
 *
 * A class rather than closures inside `createSession`: optimized code for a closure is tied to
 * the session that created it (V8 embeds weak references to its functions and context), so
 * every new session re-optimized the hot path and ran its first thousands of events at several
 * times the steady-state cost. Prototype methods are optimized once for all live sessions (V8
 * still drops optimized code when every instance of a class has been collected, e.g. when the
 * only session is disposed and garbage collected before the next one is created).
 * `createSession` builds the public `Session` object around one `SessionCore`.
 */
export class SessionCore extends SessionQueue {
  readonly validate: boolean;
  readonly freeze: boolean;
  /** Whether undeclared event types are rejected (`UnknownEventError`). */
  readonly strictEvents: boolean;
  readonly registry: SessionRegistry;
  /** The snapshot bookkeeping, made when the snapshot layer is linked (snapshot-layer.ts): a store without snapshots has none. */
  snapshots: SessionSnapshots | undefined = undefined;
  readonly committed$ = new Subject<CommittedEnvelope>();
  readonly evicted$ = new Subject<EvictedItems>();
  readonly commitListeners: CommitListener[] = [];
  /**
   * Replaced, never mutated, when a listener is added or removed (copy on write): a publish
   * iterates the list it read, as a Subject iterates a copy of its observers, so a listener that
   * unsubscribes and resubscribes while told (an epic's retry) neither skips nor repeats one.
   */
  committedListeners: readonly CommittedListener[] = [];
  /** Consulted before the reducers of every non-library envelope (installed machines). */
  readonly deciders: EnvelopeDecider[] = [];
  /** Open `session.transaction` calls (nested ones each count), transactions begun so far (their ids), and who is told when one begins or ends. */
  transactionDepth = 0;
  transactionCount = 0;
  readonly transactionListeners: TransactionListener[] = [];
  readonly subscriptions = new Subscription();
  /** Committed listeners that want every commit (not only those carrying effects). */
  fullCommittedListeners = 0;
  /** How many typed committed listeners (`CommittedListener.types`) listen to each event type. */
  private readonly listenedTypes = new Map<string, number>();
  /** Records with an open transaction for the envelope being reduced (reused; reduce is never re-entered; read by the journals' write). */
  readonly pending: SliceRecord<any>[] = [];
  pendingCount = 0;
  /**
   * The session's durable journals (the journal layer, session/journal-layer.ts), made with the
   * first journal: a durable factory's `openJournal` or a slice storage's `journal`. Undefined
   * with memory storage, so a memory-only store needs none of that code.
   */
  durable: SessionJournals | undefined = undefined;
  /** Set by the reduce step of a whole-snapshot restore: the slices it changed, for the commit. */
  private restored: RestoredSlices | undefined = undefined;
  /** Set by the reduce step of any restore: the snapshot (and its id) the commit records as the next snapshots' parent. */
  private restoredSnapshot: Snapshot | undefined = undefined;
  private restoredId: string | undefined = undefined;

  constructor(config: SessionCoreConfig) {
    super(config.scheduler);
    this.validate = config.validate;
    this.freeze = config.freeze;
    this.strictEvents = config.unknownEvents !== 'accept';
    // Before any storage opens: without the runtime, event or operator middleware are refused.
    const pipelines = config.eventMiddleware.length + config.operators.length > 0 ? pipelineLayer() : undefined;
    const registry = (this.registry = new SessionRegistry(
      config.globalMiddleware,
      config.stateStorage,
      config.logStorage,
      (source, error) => this.reportSubscriberFailure(source, error),
      (journal, sliceName) => this.journalsOf(sliceName).add(journal, sliceName),
    ));
    try {
      // Durable factories open their journals now, before any slice: the session continues after
      // what they hold even when none of their slices exists yet (DESIGN "Seams and scale").
      for (const factory of config.stateStorage === config.logStorage ? [config.stateStorage] : [config.stateStorage, config.logStorage]) {
        if (factory.openJournal !== undefined) this.journalsOf(undefined).hold(factory);
      }
      for (const def of config.slices) registry.addSlice(def);
      for (const record of registry.records.values()) {
        for (const entry of record.def.reducers) registry.addReducer(record, entry);
      }
      for (const creator of config.events) {
        registry.known.add(creator.type);
        if (creator.schema) registry.schemas.set(creator.type, creator.schema);
      }
    } catch (error) {
      // Nothing is half-open: storages opened for the slices registered so far (a durable one
      // holds its directory's lock) are closed before the error reaches the caller.
      for (const record of registry.records.values()) {
        try {
          record.storage.dispose();
        } catch {
          // the registration error is the one to report
        }
      }
      this.durable?.release();
      throw error;
    }
    registry.processing = () => (this.busy ? this.last : undefined);
    // Last: an operator middleware may emit as soon as it is subscribed.
    if (pipelines !== undefined) this.middleware = pipelines.stack(this, config.eventMiddleware, config.operators);
  }

  /**
   * The session's journals, made with the first (see {@link durable}).
   * @throws TypeError (E71) when no journal runtime is linked (`defineDurableStorage`), before anything opens.
   */
  private journalsOf(sliceName: string | undefined): SessionJournals {
    return (this.durable ??= journalLayer(sliceName).open(this));
  }

  /** See `SessionInternals.durableBatch`: a plain batch without journals. */
  durableBatch<TResult>(fn: () => TResult): TResult {
    return this.durable === undefined ? this.batch(fn) : this.durable.batch(fn);
  }

  /** Counts `types` as listened to by one more (`delta` 1) or one fewer (-1) typed committed listener. */
  listenTo(types: ReadonlySet<string>, delta: 1 | -1): void {
    for (const type of types) {
      const n = (this.listenedTypes.get(type) ?? 0) + delta;
      if (n > 0) this.listenedTypes.set(type, n);
      else this.listenedTypes.delete(type);
    }
    this.listened.clear();
  }

  /** Whether a typed committed listener listens to a type, for the last two types asked (cleared by {@link listenTo}). */
  private readonly listened = new RecentAnswers<boolean>((type) => this.listenedTypes.has(type));

  /**
   * Reports a subscriber that threw (see `GuardedObservable`) on `errors$` as a
   * {@link SubscriberError}; with nobody listening there, hands the error to RxJS's
   * unhandled-error hook instead, so it is never lost.
   */
  reportSubscriberFailure(source: string, error: unknown): void {
    if (this.errors$.observed && !this.disposed) this.errors$.next(new SubscriberError(source, error));
    else reportUnhandled(error);
  }

  // ---- accept and dispatch -------------------------------------------------------------

  /**
   * Checks and validates `event` and wraps it in the next envelope; `system` for `rxslice.*`
   * events (made by the library itself, taken as they are).
   *
   * An application event is read once, here: its `type` and `payload` are copied into a new
   * event object (top level only; with validation, the payload is the schema's output, itself a
   * copy), and `meta` into a new object. Everything after this works on the copies, so a getter
   * or Proxy cannot show one value to the checks and another to the reducers (`ownMeta`: `meta` was
   * built by the library for this dispatch and is kept as it is); one that throws
   * is an {@link InvalidEventError}. A type the session does not know is an
   * {@link UnknownEventError} (unless `unknownEvents: 'accept'`). Nothing changes for a rejected
   * event, it takes no `seq`, and its error is reported on `errors$` before it is thrown.
   * `trusted`: the payload was built by library code from data it validated itself (a transcript
   * line checked by its line schema, see `dispatchTrusted`), so it is not validated again; every
   * other check stays.
   */
  accept<TEvent extends Event>(event: TEvent, meta: EnvelopeMeta | undefined, system: boolean, ownMeta = false, trusted = false): Envelope<TEvent> {
    if (system) {
      if (this.disposed) throw new SessionDisposedError(`dispatch ${quote(event.type)}`);
      if (this.storageFailure !== undefined) throw this.storageFailure;
      if (this.inReducer) throw new DispatchInReducerError(event.type);
      return { seq: this.forward === undefined ? ++this.seq : 0, at: this.clock(), event, meta: meta ?? EMPTY_META };
    }
    if (event === null || typeof event !== 'object') throw this.invalidEvent(event === null ? 'null' : typeof event, 'type', NOT_AN_EVENT);
    let type: unknown;
    let payload: unknown;
    try {
      type = event.type;
      payload = event.payload;
    } catch (cause) {
      throw this.invalidEvent('(unreadable)', 'type', `reading the event threw (${messageOf(cause)}); ${NOT_AN_EVENT}`, cause);
    }
    // (No String(type): a hostile toString could throw.)
    if (typeof type !== 'string') throw this.invalidEvent(`(type is ${type === null ? 'null' : typeof type})`, 'type', NOT_AN_EVENT);
    if (this.disposed) throw new SessionDisposedError(`dispatch ${quote(type)}`);
    if (this.storageFailure !== undefined) throw this.storageFailure;
    if (this.inReducer) throw new DispatchInReducerError(type);
    if (isLibraryType(type)) {
      // InitializeSlice / ClearSlice: validated as seed and clear are, then the same library event.
      if ((event as Partial<SliceCommand>)[SLICE_COMMAND] === true) return this.acceptSliceCommand(type, payload) as unknown as Envelope<TEvent>;
      throw this.rejection(new ReservedEventTypeError(type));
    }
    if (this.strictEvents && !this.registry.known.has(type)) throw this.rejection(new UnknownEventError(type, DEV ? closestType(this.registry.known.types, type) : undefined));
    const accepted = { type, payload } as unknown as { type: string; payload: unknown };
    if (this.validate && !trusted) {
      const schema = this.registry.schemas.get(type);
      if (schema !== undefined) {
        let r: ReturnType<typeof schema.safeParse>;
        try {
          r = schema.safeParse(payload);
        } catch (cause) {
          throw this.invalidEvent(type, 'payload', `the schema threw (${messageOf(cause)})`, cause);
        }
        if (!r.success) throw this.rejection(new InvalidEventError(type, toIssues(r.error.issues)));
        accepted.payload = r.data;
      }
    }
    // Meta the library built for this dispatch alone (`ownMeta`) is nobody else's: not copied again.
    const copiedMeta = meta === undefined ? EMPTY_META : ownMeta ? meta : this.copyMeta(type, meta);
    return { seq: this.forward === undefined ? ++this.seq : 0, at: this.clock(), event: accepted as unknown as TEvent, meta: copiedMeta };
  }

  /** A copy of the caller's `meta` (own enumerable properties, read once). @throws {@link InvalidEventError} */
  private copyMeta(type: string, meta: EnvelopeMeta): EnvelopeMeta {
    if (meta === null || typeof meta !== 'object') throw this.invalidEvent(type, 'meta', !DEV ? codedMessage('E46', typeof meta) : 'meta must be an object such as { correlationId: "..." }');
    try {
      return { ...meta };
    } catch (cause) {
      throw this.invalidEvent(type, 'meta', `reading meta threw (${messageOf(cause)})`, cause);
    }
  }

  /**
   * An {@link InvalidEventError} about `field` of something that is not an event object, reported
   * on `errors$` (like every rejection) for the caller to throw.
   */
  private invalidEvent(type: string, field: string, message: string, cause?: unknown): InvalidEventError {
    return this.rejection(new InvalidEventError(type, [{ code: 'invalid_event', path: [field], message }], cause));
  }

  /**
   * The envelope of a slice's library write (`seed`, `clear`, `append`, `replaceLatest`,
   * `replaceLatestBy`, or their event forms `InitializeSlice` / `ClearSlice`): the items are
   * imported first (copied, checked to be JSON data, validated with the schema, frozen), so a bad
   * item throws before anything changes, and the event carries what the slice will hold.
   * @throws `SliceNotRegisteredError`, {@link InvalidSliceItemError}, `ReservedEventTypeError`
   * for any other library type.
   */
  acceptSliceCommand(type: string, payload: unknown): Envelope {
    const given = (payload ?? {}) as { slice?: unknown; items?: unknown; item?: unknown; key?: unknown };
    const record = this.registry.recordOf(typeof given.slice === 'string' ? given.slice : '(not a slice name)');
    const name = record.def.name;
    switch (type) {
      case SliceSeeded.type:
      case SliceAppended.type: {
        const items = given.items;
        if (!Array.isArray(items)) {
          throw this.rejection(new InvalidSliceItemError(name, 0, [{ code: 'invalid_type', path: [], message: `${type === SliceSeeded.type ? 'seed' : 'append'} expects an array of items` }]));
        }
        let parsed: unknown[];
        try {
          parsed = Array.from(items, (item, i) => importItem(record, item, i));
        } catch (error) {
          throw this.rejection(error as RxSliceError);
        }
        const creator = type === SliceSeeded.type ? SliceSeeded : SliceAppended;
        return this.accept(creator({ slice: name, items: parsed }), LIBRARY_META, true);
      }
      case SliceLatestReplaced.type: {
        let item: unknown;
        try {
          item = importItem(record, given.item, 0);
        } catch (error) {
          throw this.rejection(error as RxSliceError);
        }
        const key = given.key;
        if (key !== undefined && (typeof key !== 'string' || item === null || typeof item !== 'object' || Array.isArray(item))) {
          throw this.rejection(new InvalidSliceItemError(name, 0, [{ code: 'invalid_key', path: [], message: 'replaceLatestBy takes a string key and an object item' }]));
        }
        return this.accept(SliceLatestReplaced(key === undefined ? { slice: name, item } : { slice: name, item, key }), LIBRARY_META, true);
      }
      case SliceCleared.type:
        return this.accept(SliceCleared({ slice: name }), LIBRARY_META, true);
      default:
        throw this.rejection(new ReservedEventTypeError(type));
    }
  }

  /** Reports a rejected dispatch on `errors$` and returns the error for the caller to throw. */
  private rejection<TError extends RxSliceError>(error: TError): TError {
    if (!this.disposed) this.errors$.next(error);
    return error;
  }

  // ---- reduce and commit --------------------------------------------------------------

  /** Opens (once per envelope) the transaction of `record`. */
  pendingOf(record: SliceRecord<any>): StorageTransaction<any> {
    if (record.tx !== undefined) return record.tx;
    this.pending[this.pendingCount++] = record;
    return (record.tx = record.storage.begin());
  }

  /**
   * Reduces `env` into every listening slice and commits all of them, or none.
   * @internal Also the event middleware's fast path for the envelope it was fed, unchanged and
   * synchronously (already known to be an application event, inside the drain).
   */
  reduce(env: Envelope): void {
    // Read once: an envelope from the operator middleware is user data.
    const event = env.event;
    const type = event.type;
    const registry = this.registry;
    // Middleware added or removed at run time while another envelope was processed applies now
    // (one field read per envelope when there is none).
    if (registry.stale !== undefined) registry.rebuildStale(this.last as Envelope);
    let effects: Event[] | undefined;
    // The route being run (none yet: the session's own step): a failure names its slice and reducer.
    let failed: Route | undefined;
    // (Labelled: a library event that no reducer listens to leaves it for the commit at once.)
    reducing: try {
      const system = isLibraryType(type);
      if (system) this.reduceSystem(env);
      const list = registry.routesOf(type);
      const n = list === undefined ? 0 : list.length;
      // A restore, mostly: no route, and library events reach no catch-all reducer or decider.
      if (system && n === 0) break reducing;
      const catchAll = registry.catchAll;
      const all = system ? 0 : catchAll.length;
      // Reducers, their middleware and windows run with dispatch forbidden (DispatchInReducerError).
      this.inReducer = true;
      if (!system && this.deciders.length > 0 && this.rejected(env)) return;
      // What every reducer context reads (the envelope as read here, once).
      const reducing = registry.reducing;
      reducing.event = event;
      reducing.type = type;
      reducing.meta = env.meta;
      reducing.seq = env.seq;
      reducing.at = env.at;
      for (let i = 0; i < n + all; i++) {
        const route = (i < n ? (list as Route[])[i] : catchAll[i - n]) as Route;
        const record = route.record;
        failed = route;
        // The first reducer of a slice for this envelope reads the committed view; a
        // transaction opens only when an op actually changes something.
        const ctx = route.ctx;
        const view = (ctx.previous = record.tx === undefined ? record.storage.view() : record.tx.view());
        const latestFn = route.latest;
        if (latestFn !== undefined) {
          // onLatest without middleware: no op; the same reference changes nothing.
          const latest = view.latest();
          const next = latestFn(latest, event, ctx);
          if (next === latest && latest !== undefined) continue;
          const tx = this.pendingOf(record);
          stageLatest(record, tx, next, env.at, this.validate, this.freeze);
          if (record.window !== undefined) applyWindow(record, tx, env.seq, env.at);
          continue;
        }
        // Without middleware the reducer is called directly (one call frame fewer per route).
        const invoke = route.invoke;
        const op = invoke === undefined ? route.reducer(ctx.previous, event, ctx) : invoke();
        if (op !== null && typeof op === 'object' && op.kind === 'none') {
          if (op.effects !== undefined) (effects ??= []).push(...op.effects);
          continue;
        }
        const tx = this.pendingOf(record);
        applyOp(record, tx, op, env.at, this.validate, this.freeze);
        if (op.effects !== undefined) (effects ??= []).push(...op.effects);
        if (record.window !== undefined) applyWindow(record, tx, env.seq, env.at);
      }
      this.inReducer = false;
    } catch (cause) {
      this.inReducer = false;
      this.rollbackPending();
      const awaited = env.seq === this.awaitedSeq;
      const reported = this.releaseSeq(env);
      const error =
        failed === undefined ? new ReducerError(reported, '(session)', type, cause) : new ReducerError(reported, failed.record.def.name, failed.entry.name, cause);
      if (awaited) this.awaitedFailure = error;
      this.errors$.next(error);
      return;
    }
    // Durable storages write one record per event before anything becomes visible (a seq-only
    // record for an event that stored nothing).
    if (this.durable !== undefined && !this.durable.write(env)) return;
    this.commit(env, effects);
  }

  /** Asks the deciders about `env`; true when one rejected it (reported, nothing changed). */
  private rejected(env: Envelope): boolean {
    for (let i = 0; i < this.deciders.length; i++) {
      const rejection = (this.deciders[i] as EnvelopeDecider).decide(env);
      if (rejection === undefined) continue;
      this.inReducer = false;
      if (rejection.throws && env.seq === this.awaitedSeq) this.awaitedFailure = rejection.error;
      this.releaseSeq(env);
      this.errors$.next(rejection.error);
      return true;
    }
    return false;
  }

  /** Rolls back the open transactions of the envelope being reduced (also the journals' write, on failure). */
  rollbackPending(): void {
    for (let i = 0; i < this.pendingCount; i++) {
      const record = this.pending[i] as SliceRecord<any>;
      record.tx?.rollback();
      record.tx = undefined;
      record.evicted = undefined;
    }
    this.pendingCount = 0;
    this.restored = undefined;
    this.restoredSnapshot = undefined;
  }

  /** Commits the open transactions of `env`, then publishes (or holds, in a batch) the commit. */
  private commit(env: Envelope, effects: Event[] | undefined): void {
    // One changed slice (the common case) reuses the record's own one-element lists.
    let changed: readonly SliceRecord<any>[] | undefined;
    let evicted: EvictedItems[] | undefined;
    let names: readonly string[] | undefined;
    // A whole-snapshot restore that nothing else changed: the plan's own lists (nothing to build).
    const restored = this.restored;
    // (A direct restore opened no transaction: pendingCount is 0, and nothing else changed.)
    const whole = restored !== undefined && (restored.records.length === this.pendingCount || this.pendingCount === 0);
    this.restored = undefined;
    if (this.restoredSnapshot !== undefined) {
      // Set only by a restore, which the snapshot layer (and so `snapshots`) made.
      (this.snapshots as SessionSnapshots).restoredFrom(this.restoredSnapshot, this.restoredId);
      this.restoredSnapshot = undefined;
    }
    for (let i = 0; i < this.pendingCount; i++) {
      const record = this.pending[i] as SliceRecord<any>;
      const tx = record.tx as StorageTransaction<any>;
      const didChange = tx.changed;
      tx.commit();
      record.tx = undefined;
      if (didChange && !whole) {
        if (changed === undefined || names === undefined) {
          changed = record.selfList;
          names = record.nameList;
        } else if (changed.length === 1) {
          changed = [changed[0] as SliceRecord<any>, record];
          names = [names[0] as string, record.def.name];
        } else {
          (changed as SliceRecord<any>[]).push(record);
          (names as string[]).push(record.def.name);
        }
      }
      if (record.evicted !== undefined) {
        (evicted ??= []).push({ slice: record.def.name, seq: env.seq, items: record.evicted });
        record.keepEvicted(record.evicted);
        record.evicted = undefined;
      }
    }
    this.pendingCount = 0;
    if (whole) {
      changed = restored.records;
      names = restored.names;
    }
    this.lastSeq = env.seq;
    // The committed envelope is built only when someone will read it: `committed$`, a listener
    // of every commit, a listener of this event's type, or (for a commit carrying effects) any
    // committed listener.
    const committed: CommittedEnvelope | undefined =
      this.batchDepth > 0 ||
      this.committed$.observed ||
      this.fullCommittedListeners > 0 ||
      (this.listenedTypes.size > 0 && this.listened.get(env.event.type)) ||
      (effects !== undefined && this.committedListeners.length > 0)
        ? { seq: env.seq, at: env.at, event: env.event, meta: env.meta, changed: names ?? NO_NAMES, effects: effects ?? NO_EFFECTS }
        : undefined;
    if (this.batchDepth > 0) this.held.push({ committed: committed as CommittedEnvelope, records: changed ?? NO_RECORDS, evicted: evicted ?? NO_EVICTIONS });
    else this.publishOne(env.seq, committed, changed, names, evicted, whole ? restored : undefined);
  }

  /**
   * Publishes one commit: changed slices, then commit listeners, then evictions and `committed$`.
   * `restored`: the commit changed exactly the slices of a whole-snapshot restore (`changed` and
   * `names` are its lists).
   */
  private publishOne(
    seq: number,
    committed: CommittedEnvelope | undefined,
    changed: readonly SliceRecord<any>[] | undefined,
    names: readonly string[] | undefined,
    evicted: EvictedItems[] | undefined,
    restored?: RestoredSlices,
  ): void {
    const commitListeners = this.commitListeners;
    if (changed !== undefined) {
      // A slice without observables has no one to notify (`notify` would do nothing).
      if (this.registry.observed.count !== 0) for (let i = 0; i < changed.length; i++) (changed[i] as SliceRecord<any>).notify(seq);
      if (commitListeners.length > 0) {
        const set = changed.length === 1 ? (changed[0] as SliceRecord<any>).nameSet : restored !== undefined ? restored.nameSet() : new Set(names);
        for (let i = 0; i < commitListeners.length; i++) (commitListeners[i] as CommitListener).onCommit(set);
      }
    }
    if (evicted !== undefined) for (const e of evicted) this.evicted$.next(e);
    if (committed === undefined) return;
    const committedListeners = this.committedListeners;
    for (let i = 0; i < committedListeners.length; i++) {
      const listener = committedListeners[i] as CommittedListener;
      if (listener.types === undefined || listener.types.has(committed.event.type)) listener.onCommitted(committed);
    }
    if (this.committed$.observed) this.committed$.next(committed);
  }

  /** Publishes the commits held by a batch: each changed slice and commit listener once. */
  protected publish(commits: readonly HeldCommit[]): void {
    const notified = new Map<SliceRecord<any>, number>();
    for (const c of commits) for (const r of c.records) notified.set(r, c.committed.seq);
    for (const [r, seq] of notified) r.notify(seq);
    if (this.commitListeners.length > 0 && notified.size > 0) {
      const names = new Set<string>();
      for (const r of notified.keys()) names.add(r.def.name);
      for (const listener of this.commitListeners) listener.onCommit(names);
    }
    for (const c of commits) {
      for (const e of c.evicted) this.evicted$.next(e);
      for (const listener of [...this.committedListeners]) if (listener.types === undefined || listener.types.has(c.committed.event.type)) listener.onCommitted(c.committed);
      this.committed$.next(c.committed);
    }
  }

  /** The reduce step of the library's own events (restored, seeded, cleared, reset). */
  private reduceSystem(env: Envelope): void {
    const event = env.event;
    const registry = this.registry;
    switch (event.type) {
      case SessionRestored.type: {
        const snapshot = this.takeRestoring(env.seq);
        if (snapshot === undefined) return;
        const payload = (event as ReturnType<typeof SessionRestored>).payload;
        // With no reducer of the restored event and no journal, nothing after this step can fail
        // or change these slices: memory slices may swap their captured contents in directly.
        const direct = this.durable === undefined && !registry.routes.has(SessionRestored.type);
        // A restore is dispatched only by the snapshot layer, which made `snapshots`.
        this.restored = (this.snapshots as SessionSnapshots).restore(snapshot, payload.slices, env.at, env.seq, this.lastSeq, this, direct);
        // The lineage changes with the commit (a reducer of this event may still fail).
        this.restoredSnapshot = snapshot;
        this.restoredId = payload.snapshotId;
        return;
      }
      case SliceSeeded.type: {
        const { slice, items } = (event as ReturnType<typeof SliceSeeded>).payload;
        const record = registry.recordOf(slice);
        const tx = this.pendingOf(record);
        tx.replace(items, env.at);
        if (record.window !== undefined) applyWindow(record, tx, env.seq, env.at);
        return;
      }
      case SliceAppended.type:
      case SliceLatestReplaced.type: {
        const payload = (event as ReturnType<typeof SliceLatestReplaced> | ReturnType<typeof SliceAppended>).payload;
        const record = registry.recordOf(payload.slice);
        const view = record.tx === undefined ? record.storage.view() : record.tx.view();
        const op =
          'items' in payload
            ? extend(payload.items)
            : payload.key === undefined
              ? replaceLatestOp(view, payload.item)
              : replaceLatestByOp(view, payload.key as never, payload.item);
        if (op.kind === 'none') return;
        const tx = this.pendingOf(record);
        // The items were imported (validated, frozen) when the event was accepted.
        applyOp(record, tx, op, env.at, false, false);
        if (record.window !== undefined) applyWindow(record, tx, env.seq, env.at);
        return;
      }
      case SliceCleared.type:
        this.pendingOf(registry.recordOf((event as ReturnType<typeof SliceCleared>).payload.slice)).clear();
        return;
      case SessionReset.type: {
        // A reset recorded before `to` existed returned slices to their initial items.
        const toInitial = ((event as ReturnType<typeof SessionReset>).payload?.to ?? 'initial') === 'initial';
        for (const record of registry.records.values()) {
          if (!toInitial) {
            if (record.storage.size > 0) this.pendingOf(record).clear();
          } else if (record.storage.size > 0 || record.def.initial.length > 0) {
            const tx = this.pendingOf(record);
            tx.replace(record.def.initial, env.at);
            if (record.window !== undefined) applyWindow(record, tx, env.seq, env.at);
          }
        }
      }
    }
  }

  /** Completes every observable and drops the queue. Idempotent. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.subscriptions.unsubscribe();
    for (const record of this.registry.records.values()) {
      record.complete();
      record.storage.dispose();
    }
    this.durable?.release();
    this.events$.complete();
    this.committed$.complete();
    this.errors$.complete();
    this.evicted$.complete();
    this.queue.length = 0;
    this.restoring.clear();
    this.restoringNow = undefined;
    this.restoringNowSeq = -1;
  }
}
