import { asyncScheduler, Subject, Subscription, type Observable, type OperatorFunction, type SchedulerLike } from 'rxjs';
import type { z } from 'zod';
import { RESERVED_PREFIX, ReservedEventTypeError } from '../events/define-event';
import type { Event, EventCreator } from '../events/event';
import type { Envelope, EnvelopeMeta } from '../events/envelope';
import { toIssues, type RxSliceError } from '../internal/errors';
import { deepFreeze } from '../internal/freeze';
import type { Reducer, ReducerEntry, ReducerMiddleware, SessionReader, SliceDef } from '../slices/reducer';
import type { SliceOp } from '../slices/slice-op';
import type { SliceView } from '../slices/slice-view';
import type { Snapshot } from '../snapshots/snapshot';
import { memory } from '../storage/memory-storage';
import { InvalidWindowError } from '../windows/invalid-window-error';
import { SliceWindow } from '../windows/slice-window';
import type { StorageFactory, StorageTransaction } from '../storage/slice-storage';
import {
  DispatchInReducerError,
  DuplicateSliceError,
  InvalidEventError,
  InvalidSliceItemError,
  ReducerError,
  SessionDisposedError,
  SliceNotRegisteredError,
} from './errors';
import { SliceRecord, type Route, type SliceHandle, type SliceRuntimeConfig } from './slice-handle';
import { SessionSnapshots } from './session-snapshots';
import { SessionReset, SessionRestored, SliceCleared, SliceSeeded } from './system-events';
import { ATTACH, rejectNotASlice, SESSION_INTERNALS, type Attachable, type CommitListener, type SessionInternals } from './internals';

/** When event payloads (and reducer output) are validated against their schemas. */
export type ValidationMode = 'always' | 'dev' | 'off';

/** Options of {@link createSession}. */
export interface SessionOptions {
  /** The slices of the session, in registration order (which is also reducer order per event). */
  readonly slices: readonly SliceDef<string, any>[];
  /** Operator middleware on the envelope stream and reducer middleware around every reducer. */
  readonly middleware?: {
    readonly operators?: readonly OperatorFunction<Envelope, Envelope>[];
    readonly reducers?: readonly ReducerMiddleware[];
  };
  /** Event creators whose schemas validate dispatches even when no reducer listens to them. */
  readonly events?: readonly EventCreator<string, any>[];
  /** Source of time for envelopes, windows and effects. Default `asyncScheduler`. */
  readonly scheduler?: SchedulerLike;
  /**
   * `'always'`, `'off'`, or `'dev'` (default): validate unless `process.env.NODE_ENV === 'production'`.
   * Covers event payloads and reducer output; seeds, restores and JSON snapshots are always validated.
   */
  readonly validation?: ValidationMode;
  /**
   * Deep-freeze items entering the session, the arrays handed to readers and the entries of
   * snapshots. Default: on unless `process.env.NODE_ENV === 'production'` (as Redux Toolkit's
   * dev-only checks do); readers always get read-only arrays for log slices.
   */
  readonly freeze?: boolean;
  /** Storage per policy. Default: `memory({ freeze })` for both. */
  readonly storage?: { readonly state?: StorageFactory; readonly log?: StorageFactory };
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

/** Options of {@link Session.snapshot}. */
export interface SnapshotOptions {
  /** Also capture `'log'` slices. Default `false` (state slices only). */
  readonly includeLogs?: boolean;
  /** A label kept with the snapshot. */
  readonly tag?: string;
}

/** A live session: the store. See {@link createSession}. */
export interface Session extends SessionReader {
  /** Validates, envelopes and reduces `event`; returns its envelope. See {@link createSession} for the rules. */
  dispatch<TEvent extends Event>(event: TEvent, meta?: EnvelopeMeta): Envelope<TEvent>;
  /** The live accessor of a slice. @throws {@link SliceNotRegisteredError} */
  slice<TItem>(def: SliceDef<string, TItem>): SliceHandle<TItem>;
  /** The live handle of a computed slice (`defineComputed`) or accessor of a computed family (`defineComputedFamily`). */
  computed<THandle>(def: Attachable<THandle>): THandle;
  /** Returns every slice to its `initial` items, as one `rxslice.session.reset` event. */
  reset(): void;
  /** Runs `fn`; slice, computed and `committed$` notifications are held until it returns, then each changed slice emits once. */
  batch<TResult>(fn: () => TResult): TResult;
  /**
   * Runs `fn` as a transaction over the working state: the `'state'` slices are snapshotted
   * first and, if `fn` throws (or its promise rejects), restored as one
   * `rxslice.session.restored` event before the error is rethrown. `'log'` slices keep what was
   * appended — history is preserved on rollback (DESIGN.md: policy). Events dispatched inside
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
  /** Captures state slices (and logs with `includeLogs`) in O(number of slices). */
  snapshot(options?: SnapshotOptions): Snapshot;
  /** Restores the snapshot's slices (or the named subset) as one `rxslice.session.restored` event. */
  restore(snapshot: Snapshot, options?: { readonly slices?: readonly string[] }): void;
  /** Envelopes as they enter the pipeline (before operator middleware). */
  readonly events$: Observable<Envelope>;
  /** Envelopes after their commit, with the names of the slices that changed. */
  readonly committed$: Observable<CommittedEnvelope>;
  /** Failures: invalid events, reducer errors, and errors reported by effects and computed slices. */
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

const EMPTY_META: EnvelopeMeta = Object.freeze({});
/** Placeholder event of a reducer context before its first call. */
const NO_EVENT: Event = Object.freeze({ type: '(none)', payload: undefined });

const isProduction = (): boolean =>
  (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.['NODE_ENV'] === 'production';

interface HeldCommit {
  readonly committed: CommittedEnvelope;
  readonly records: readonly SliceRecord<any>[];
  readonly evicted: readonly EvictedItems[];
}

/**
 * Creates a session: the live store of the given slices.
 *
 * @remarks The dispatch pipeline (DESIGN.md): validate → envelope (`seq`, `at`) → `events$`
 * → operator middleware → reducers of every listening slice in registration order, each
 * wrapped in reducer middleware (global, then per slice) and followed by the slice's window
 * → commit, all or nothing → notify changed slices, then commit listeners (computed
 * slices), then `committed$`.
 *
 * - Synchronous, run to completion: when `dispatch` returns, the event is reduced and every
 *   subscriber was told (unless an operator middleware delays it on the scheduler).
 * - A throwing reducer or middleware leaves every slice unchanged, is reported on `errors$`
 *   and makes `dispatch` throw a {@link ReducerError} whose `cause` is the original error.
 * - A dispatch from a subscriber while another event is processed is queued (FIFO) and runs
 *   after the current commit; a dispatch from inside a reducer throws {@link DispatchInReducerError}.
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
export function createSession(options: SessionOptions): Session {
  const scheduler = options.scheduler ?? asyncScheduler;
  const mode = options.validation ?? 'dev';
  const validate = mode === 'always' || (mode === 'dev' && !isProduction());
  const globalMiddleware = options.middleware?.reducers ?? [];
  const operators = options.middleware?.operators ?? [];
  const freeze = options.freeze ?? !isProduction();
  const stateStorage = options.storage?.state ?? memory({ freeze });
  const logStorage = options.storage?.log ?? memory({ freeze });

  const records = new Map<string, SliceRecord<any>>();
  const routes = new Map<string, Route[]>();
  const schemas = new Map<string, z.ZodType>();

  const catchAll: Route[] = [];
  const addRoute = (route: Route, schema: z.ZodType | undefined): void => {
    if (route.entry.eventType === '*') {
      catchAll.push(route);
      return;
    }
    const list = routes.get(route.entry.eventType);
    if (list === undefined) routes.set(route.entry.eventType, [route]);
    else list.push(route);
    if (schema !== undefined) schemas.set(route.entry.eventType, schema);
  };

  const reader: SessionReader = { read: (def) => recordOf(def as SliceDef<string, any>).storage.all() };
  const addSlice = (def: SliceDef<string, any>): SliceRecord<any> => {
    rejectNotASlice(def, 'register as a slice');
    if (records.has(def.name)) throw new DuplicateSliceError(def.name);
    const storage = (def.policy === 'log' ? logStorage : stateStorage)(def);
    const record = new SliceRecord(def, storage, globalMiddleware);
    if (def.schema !== undefined) def.initial.forEach((item, i) => checkItem(record, item, i));
    records.set(def.name, record);
    return record;
  };
  for (const def of options.slices) addSlice(def);
  for (const record of records.values()) {
    for (const entry of record.def.reducers) addRoute(makeRoute(record, entry), entry.schema);
  }
  for (const creator of options.events ?? []) if (creator.schema) schemas.set(creator.type, creator.schema);

  const events$ = new Subject<Envelope>();
  const committed$ = new Subject<CommittedEnvelope>();
  const errors$ = new Subject<RxSliceError>();
  const evicted$ = new Subject<EvictedItems>();
  const commitListeners: CommitListener[] = [];
  const committedListeners: ((committed: CommittedEnvelope) => void)[] = [];

  let seq = 0;
  let lastSeq = 0;
  let disposed = false;
  let inReducer = false;
  let busy = false;
  const queue: Envelope[] = [];
  let awaitedSeq = -1;
  let awaitedFailure: ReducerError | undefined;
  let batchDepth = 0;
  const held: HeldCommit[] = [];
  const subscriptions = new Subscription();

  let input: Subject<Envelope> | undefined;
  let pipelineDown = false;
  if (operators.length > 0) {
    input = new Subject<Envelope>();
    const piped = (operators as OperatorFunction<Envelope, Envelope>[]).reduce<Observable<Envelope>>(
      (source, op) => source.pipe(op),
      input,
    );
    // An operator middleware that errors is reported and the pipeline resubscribed, so the
    // session keeps accepting events (after 10 errors in a row without an envelope getting
    // through, it stays down and each dispatch is reported instead of silently lost).
    let failuresInARow = 0;
    const connect = (): void => {
      subscriptions.add(
        piped.subscribe({
          next: (env) => {
            failuresInARow = 0;
            reduceEntered(env);
          },
          error: (err: unknown) => {
            errors$.next(new ReducerError(lastEnvelope(), '(session)', 'operator middleware', err));
            if (++failuresInARow < 10 && !disposed) connect();
            else pipelineDown = true;
          },
        }),
      );
    };
    connect();
  }
  let last: Envelope | undefined;
  const lastEnvelope = (): Envelope => last ?? { seq: 0, at: scheduler.now(), event: { type: 'unknown', payload: undefined }, meta: {} };

  function checkItem(record: SliceRecord<any>, item: unknown, index: number): unknown {
    const schema = record.def.schema;
    if (schema === undefined) return item;
    const r = schema.safeParse(item);
    if (!r.success) throw new InvalidSliceItemError(record.def.name, index, toIssues(r.error.issues));
    return r.data;
  }

  function recordOf(def: SliceDef<string, any> | string): SliceRecord<any> {
    const name = typeof def === 'string' ? def : def.name;
    const record = records.get(name);
    if (record === undefined || (typeof def !== 'string' && record.def !== def && record.def.name !== def.name)) {
      if (typeof def !== 'string') rejectNotASlice(def, 'use as a slice');
      throw new SliceNotRegisteredError(name);
    }
    return record;
  }

  // ---- accept -------------------------------------------------------------------------

  function accept<TEvent extends Event>(event: TEvent, meta: EnvelopeMeta | undefined, system: boolean): Envelope<TEvent> {
    if (event === null || typeof event !== 'object' || typeof (event as { type?: unknown }).type !== 'string') {
      throw new InvalidEventError(String((event as { type?: unknown } | null)?.type ?? event), [
        { code: 'invalid_type', path: ['type'], message: 'dispatch expects an event object { type: string, payload }, e.g. StepAdded({ ... })' },
      ]);
    }
    if (disposed) throw new SessionDisposedError(`dispatch "${event.type}"`);
    if (inReducer) throw new DispatchInReducerError(event.type);
    if (!system && typeof event.type === 'string' && event.type.startsWith(RESERVED_PREFIX)) {
      throw new ReservedEventTypeError(event.type);
    }
    let accepted = event;
    if (validate && !system) {
      const schema = schemas.get(event.type);
      if (schema !== undefined) {
        const r = schema.safeParse(event.payload);
        if (!r.success) {
          const error = new InvalidEventError(event.type, toIssues(r.error.issues));
          errors$.next(error);
          throw error;
        }
        accepted = { type: event.type, payload: r.data } as TEvent;
      }
    }
    return { seq: ++seq, at: scheduler.now(), event: accepted, meta: meta ?? EMPTY_META };
  }

  function dispatchEnvelope<TEvent extends Event>(env: Envelope<TEvent>): Envelope<TEvent> {
    if (busy) {
      queue.push(env);
      return env;
    }
    // Only the top-level dispatcher waits for its own envelope's outcome; failures of queued or
    // delayed envelopes are reported on errors$ alone.
    awaitedSeq = env.seq;
    awaitedFailure = undefined;
    try {
      drain(env);
    } finally {
      awaitedSeq = -1;
    }
    const failure = awaitedFailure;
    awaitedFailure = undefined;
    if (failure !== undefined) throw failure;
    return env;
  }

  function drain(first?: Envelope): void {
    busy = true;
    try {
      for (let env = first ?? (queue.length > 0 ? queue.shift() : undefined); env !== undefined; env = queue.length > 0 ? queue.shift() : undefined) {
        last = env;
        if (events$.observed) events$.next(env);
        if (input === undefined) reduce(env);
        else if (!pipelineDown) input.next(env);
        else errors$.next(new ReducerError(env, '(session)', 'operator middleware', new Error('The operator middleware failed 10 times in a row and was stopped; the event was not reduced.')));
      }
    } finally {
      busy = false;
    }
  }

  /** Entry point for envelopes leaving the operator middleware (possibly later, on the scheduler). */
  function reduceEntered(env: Envelope): void {
    if (busy) {
      reduce(env);
      return;
    }
    busy = true;
    try {
      reduce(env);
    } finally {
      busy = false;
    }
    if (queue.length > 0) drain();
  }

  // ---- reduce and commit --------------------------------------------------------------


  function applyOp(record: SliceRecord<any>, tx: StorageTransaction<any>, op: SliceOp<any>, env: Envelope): void {
    if (op === null || typeof op !== 'object') notASliceOp(op);
    const check = validate && record.def.schema !== undefined;
    switch (op.kind) {
      case 'append':
        if (check) checkItem(record, op.item, tx.view().size);
        tx.append(freeze ? deepFreeze(op.item) : op.item, env.at);
        break;
      case 'extend': {
        const base = tx.view().size;
        for (let i = 0; i < op.items.length; i++) {
          const item = op.items[i];
          if (check) checkItem(record, item, base + i);
          tx.append(freeze ? deepFreeze(item) : item, env.at);
        }
        break;
      }
      case 'replace': {
        if (check || freeze) {
          const prev = tx.view();
          for (let i = 0; i < op.items.length; i++) {
            const item = op.items[i];
            if (prev.at(i) === item) continue;
            if (check) checkItem(record, item, i);
            if (freeze) deepFreeze(item);
          }
        }
        tx.replace(op.items, env.at);
        break;
      }
      case 'clear':
        tx.clear(op.predicate);
        break;
      case 'none':
        break;
      default:
        notASliceOp(op);
    }
  }

  function notASliceOp(op: unknown): never {
    throw new TypeError(
      `The reducer returned ${op === undefined ? 'undefined' : JSON.stringify(op)}, which is not a SliceOp. Return append(...), extend(...), replace(...), clear(...) or none().`,
    );
  }

  function applyWindow(record: SliceRecord<any>, tx: StorageTransaction<any>, env: Envelope): void {
    const window = record.window;
    if (window === undefined || !tx.changed) return;
    const decision = window.evict(tx.view(), {
      now: env.at,
      seq: env.seq,
      appended: tx.appended,
      timeAt: (i) => tx.timeAt(i),
      memo: tx.windowMemo,
      remember: tx.rememberWindow,
    });
    let dropped: readonly unknown[];
    switch (decision.kind) {
      case 'none':
        return;
      case 'front':
        dropped = tx.dropFront(decision.count);
        break;
      case 'back':
        dropped = tx.dropBack(decision.count);
        break;
      case 'indices':
        dropped = tx.dropIndices(decision.indices);
        break;
    }
    if (dropped.length > 0) {
      if (record.evicted === undefined) record.evicted = [...dropped];
      else for (const item of dropped) record.evicted.push(item);
    }
  }

  /** Builds a route: its reusable context and its reducer composed with the middleware chain once. */
  function makeRoute(record: SliceRecord<any>, entry: ReducerEntry<any>): Route {
    // One context per route, refilled before each call (reduce is never re-entered), so a
    // reducer call allocates nothing.
    const ctx: Route['ctx'] = {
      event: NO_EVENT,
      eventType: NO_EVENT.type,
      slice: record.def.name,
      previous: record.storage.view(),
      reducerName: entry.name,
      session: reader,
      metadata: EMPTY_META,
      seq: 0,
      at: 0,
    };
    const reducer = entry.reducer as Reducer<any>;
    if (record.chain.length === 0) return { record, entry, ctx, reducer, invoke: undefined };
    let invoke = (): SliceOp<any> => reducer(ctx.previous, ctx.event, ctx);
    for (let i = record.chain.length - 1; i >= 0; i--) {
      const middleware = record.chain[i] as ReducerMiddleware;
      const next = invoke;
      invoke = () => middleware(ctx, next);
    }
    return { record, entry, ctx, reducer, invoke };
  }

  /** Records with an open transaction for the envelope being reduced (reused; reduce is never re-entered). */
  const pending: SliceRecord<any>[] = [];
  let pendingCount = 0;
  const NO_EFFECTS: readonly Event[] = Object.freeze([]);
  const NO_NAMES: readonly string[] = Object.freeze([]);

  function pendingOf(record: SliceRecord<any>): StorageTransaction<any> {
    if (record.tx !== undefined) return record.tx;
    pending[pendingCount++] = record;
    return (record.tx = record.storage.begin());
  }

  function reduce(env: Envelope): void {
    const type = env.event.type;
    let effects: Event[] | undefined;
    let failedSlice = '(session)';
    let failedReducer = type;
    try {
      const system = type.charCodeAt(0) === 114 /* r */ && type.startsWith(RESERVED_PREFIX);
      if (system) reduceSystem(env);
      const list = routes.get(type);
      const n = list === undefined ? 0 : list.length;
      const all = system ? 0 : catchAll.length;
      // Reducers, their middleware and windows run with dispatch forbidden (DispatchInReducerError).
      inReducer = true;
      for (let i = 0; i < n + all; i++) {
        const route = (i < n ? (list as Route[])[i] : catchAll[i - n]) as Route;
        const record = route.record;
        failedSlice = record.def.name;
        failedReducer = route.entry.name;
        // The first reducer of a slice for this envelope reads the committed view; a
        // transaction opens only when an op actually changes something.
        const ctx = route.ctx;
        ctx.previous = record.tx === undefined ? record.storage.view() : record.tx.view();
        ctx.event = env.event;
        ctx.eventType = type;
        ctx.metadata = env.meta;
        ctx.seq = env.seq;
        ctx.at = env.at;
        // Without middleware the reducer is called directly (one call frame fewer per route).
        const invoke = route.invoke;
        const op = invoke === undefined ? route.reducer(ctx.previous, ctx.event, ctx) : invoke();
        if (op !== null && typeof op === 'object' && op.kind === 'none') {
          if (op.effects !== undefined) (effects ??= []).push(...op.effects);
          continue;
        }
        const tx = pendingOf(record);
        applyOp(record, tx, op, env);
        if (op.effects !== undefined) (effects ??= []).push(...op.effects);
        if (record.window !== undefined) applyWindow(record, tx, env);
      }
      inReducer = false;
    } catch (cause) {
      inReducer = false;
      for (let i = 0; i < pendingCount; i++) {
        const record = pending[i] as SliceRecord<any>;
        record.tx?.rollback();
        record.tx = undefined;
        record.evicted = undefined;
      }
      pendingCount = 0;
      const error = new ReducerError(env, failedSlice, failedReducer, cause);
      if (env.seq === awaitedSeq) awaitedFailure = error;
      errors$.next(error);
      return;
    }
    // One changed slice (the common case) reuses the record's own one-element lists.
    let changed: readonly SliceRecord<any>[] | undefined;
    let evicted: EvictedItems[] | undefined;
    let names: readonly string[] | undefined;
    for (let i = 0; i < pendingCount; i++) {
      const record = pending[i] as SliceRecord<any>;
      const tx = record.tx as StorageTransaction<any>;
      const didChange = tx.changed;
      tx.commit();
      record.tx = undefined;
      if (didChange) {
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
        record.evicted = undefined;
      }
    }
    pendingCount = 0;
    lastSeq = env.seq;
    const committed: CommittedEnvelope = {
      seq: env.seq,
      at: env.at,
      event: env.event,
      meta: env.meta,
      changed: names ?? NO_NAMES,
      effects: effects ?? NO_EFFECTS,
    };
    if (batchDepth > 0) held.push({ committed, records: changed ?? [], evicted: evicted ?? [] });
    else publishOne(committed, changed, evicted);
  }

  /** Publishes one commit: changed slices, then commit listeners, then evictions and `committed$`. */
  function publishOne(committed: CommittedEnvelope, changed: readonly SliceRecord<any>[] | undefined, evicted: EvictedItems[] | undefined): void {
    if (changed !== undefined) {
      for (let i = 0; i < changed.length; i++) (changed[i] as SliceRecord<any>).notify();
      if (commitListeners.length > 0) {
        const set = changed.length === 1 ? (changed[0] as SliceRecord<any>).nameSet : new Set(committed.changed);
        for (let i = 0; i < commitListeners.length; i++) (commitListeners[i] as CommitListener)(set);
      }
    }
    if (evicted !== undefined) for (const e of evicted) evicted$.next(e);
    for (let i = 0; i < committedListeners.length; i++) (committedListeners[i] as (c: CommittedEnvelope) => void)(committed);
    if (committed$.observed) committed$.next(committed);
  }

  /** Publishes the commits held by a batch: each changed slice and commit listener once. */
  function publish(commits: readonly HeldCommit[]): void {
    const notified = new Set<SliceRecord<any>>();
    for (const c of commits) for (const r of c.records) notified.add(r);
    for (const r of notified) r.notify();
    if (commitListeners.length > 0 && notified.size > 0) {
      const names = new Set<string>();
      for (const r of notified) names.add(r.def.name);
      for (const listener of commitListeners) listener(names);
    }
    for (const c of commits) {
      for (const e of c.evicted) evicted$.next(e);
      for (const listener of [...committedListeners]) listener(c.committed);
      committed$.next(c.committed);
    }
  }

  function reduceSystem(env: Envelope): void {
    const { event } = env;
    if (SliceSeeded.match(event)) {
      const record = recordOf(event.payload.slice);
      const tx = pendingOf(record);
      tx.replace(event.payload.items, env.at);
      if (record.window !== undefined) applyWindow(record, tx, env);
    } else if (SliceCleared.match(event)) {
      pendingOf(recordOf(event.payload.slice)).clear();
    } else if (SessionReset.match(event)) {
      for (const record of records.values()) {
        if (record.storage.size > 0 || record.def.initial.length > 0) pendingOf(record).replace(record.def.initial, env.at);
      }
    } else if (SessionRestored.match(event)) {
      const snapshot = restoring.get(env.seq);
      if (snapshot === undefined) return;
      restoring.delete(env.seq);
      snapshots.restore(snapshot, event.payload.slices, env.at, pendingOf);
    }
  }

  const restoring = new Map<number, Snapshot>();
  const snapshots = new SessionSnapshots(records, freeze);

  // ---- public face --------------------------------------------------------------------

  const handles = new Map<SliceRecord<any>, SliceHandle<any>>();

  function handleOf<TItem>(record: SliceRecord<TItem>): SliceHandle<TItem> {
    const existing = handles.get(record);
    if (existing !== undefined) return existing;
    const storage = record.storage;
    let all$: Observable<readonly TItem[]> | undefined;
    let latest$: Observable<TItem | undefined> | undefined;
    const handle: SliceHandle<TItem> = {
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
      get all$() {
        return (all$ ??= record.all$());
      },
      get latest$() {
        return (latest$ ??= record.latest$());
      },
      seed(items) {
        const parsed = items.map((item, i) => deepFreeze(checkItem(record, item, i))) as TItem[];
        dispatchEnvelope(accept(SliceSeeded({ slice: record.def.name, items: parsed }), { source: 'rxslice' }, true));
      },
      clear() {
        dispatchEnvelope(accept(SliceCleared({ slice: record.def.name }), { source: 'rxslice' }, true));
      },
      register(creator, reducer, name) {
        if (disposed) throw new SessionDisposedError('register a reducer');
        const route = makeRoute(record, { eventType: creator.type, name: name ?? creator.type, reducer, schema: creator.schema });
        addRoute(route, creator.schema);
        return () => removeRoute(route);
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
    handles.set(record, handle);
    return handle;
  }

  function removeRoute(route: Route): void {
    const list = route.entry.eventType === '*' ? catchAll : routes.get(route.entry.eventType);
    const i = list?.indexOf(route) ?? -1;
    if (list !== undefined && i >= 0) list.splice(i, 1);
  }

  const internals: SessionInternals = {
    addSlice(def) {
      if (disposed) throw new SessionDisposedError(`add slice "${def.name}"`);
      const record = addSlice(def);
      for (const entry of def.reducers) addRoute(makeRoute(record, entry), entry.schema);
    },
    addReducer(slice, entry) {
      const route = makeRoute(recordOf(slice), entry);
      addRoute(route, entry.schema);
      return () => removeRoute(route);
    },
    extensions: new Map(),
    onCommitted(listener) {
      committedListeners.push(listener);
      return () => {
        const i = committedListeners.indexOf(listener);
        if (i >= 0) committedListeners.splice(i, 1);
      };
    },
    onCommit(listener) {
      commitListeners.push(listener);
      return () => {
        const i = commitListeners.indexOf(listener);
        if (i >= 0) commitListeners.splice(i, 1);
      };
    },
    version: (name) => (records.get(name) ?? recordOf(name)).storage.version,
    hasSlice: (name) => records.has(name),
    reportError: (error) => errors$.next(error),
    dispatchSystem: (event, meta) => dispatchEnvelope(accept(event, meta, true)),
    get disposed() {
      return disposed;
    },
    onDispose: (teardown) => subscriptions.add(teardown),
  };

  const session: Session = {
    dispatch: (event, meta) => dispatchEnvelope(accept(event, meta, false)),
    slice: <TItem>(def: SliceDef<string, TItem>) => handleOf(recordOf(def) as SliceRecord<TItem>),
    computed: (def) => def[ATTACH](session),
    read: <TItem>(def: SliceDef<string, TItem> | string) => recordOf(def as SliceDef<string, TItem>).storage.all() as readonly TItem[],
    reset() {
      dispatchEnvelope(accept(SessionReset(), { source: 'rxslice' }, true));
    },
    batch<TResult>(fn: () => TResult): TResult {
      batchDepth++;
      try {
        return fn();
      } finally {
        batchDepth--;
        if (batchDepth === 0 && held.length > 0) {
          const commits = held.splice(0, held.length);
          const wasBusy = busy;
          busy = true;
          try {
            publish(commits);
          } finally {
            busy = wasBusy;
          }
          if (!busy && queue.length > 0) drain();
        }
      }
    },
    transaction<TResult>(fn: () => TResult): TResult {
      if (disposed) throw new SessionDisposedError('run a transaction');
      const before = session.snapshot({ tag: 'rxslice.transaction' });
      const rollback = (error: unknown): never => {
        if (!disposed) session.restore(before);
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
      return snapshots.take(lastSeq, scheduler.now(), opts.tag, opts.includeLogs === true);
    },
    restore(snapshot, opts = {}) {
      const names = snapshots.namesToRestore(snapshot, opts.slices);
      const env = accept(SessionRestored({ slices: names, fromSeq: snapshot.seq, tag: snapshot.tag }), { source: 'rxslice' }, true);
      restoring.set(env.seq, snapshot);
      try {
        dispatchEnvelope(env);
      } finally {
        // Reduced (or dropped by an operator middleware) by now, unless it was queued behind
        // the envelope being processed or delayed by a middleware.
        if (!busy && operators.length === 0) restoring.delete(env.seq);
      }
    },
    events$: events$.asObservable(),
    committed$: committed$.asObservable(),
    errors$: errors$.asObservable(),
    evicted$: evicted$.asObservable(),
    scheduler,
    get lastSeq() {
      return lastSeq;
    },
    dispose() {
      if (disposed) return;
      disposed = true;
      subscriptions.unsubscribe();
      for (const record of records.values()) {
        record.complete();
        record.storage.dispose();
      }
      events$.complete();
      committed$.complete();
      errors$.complete();
      evicted$.complete();
      queue.length = 0;
    },
    [SESSION_INTERNALS]: internals,
  };
  return session;
}
