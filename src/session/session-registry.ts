import type { z } from 'zod';
import type { Event } from '../events/event';
import type { EnvelopeMeta } from '../events/envelope';
import type { Reducer, ReducerEntry, ReducerMiddleware, SessionReader, SliceDef } from '../slices/reducer';
import { InvalidSliceDefinitionError, sliceNameProblem } from '../slices/define-slice';
import type { SliceOp } from '../slices/slice-op';
import type { SliceView } from '../slices/slice-view';
import type { SubscriberFailureReporter } from '../internal/guarded-observable';
import type { StorageFactory, StorageJournal } from '../storage/slice-storage';
import { checkItem } from './apply-op';
import { DuplicateSliceError, SliceNotRegisteredError } from './errors';
import { rejectNotASlice } from './internals';
import { RecentAnswers } from '../internal/recent-answers';
import { KnownEvents } from './known-events';
import { SliceRecord, type ObservedSlices, type Route } from './slice-handle';
import { asReducer } from '../slices/helper-reducers';

const EMPTY_META: EnvelopeMeta = Object.freeze({});
/** Placeholder event of a reducer context before its first call. */
const NO_EVENT: Event = Object.freeze({ type: '(none)', payload: undefined });

/**
 * @internal The envelope being reduced, as the session read it (once): shared by every
 * reducer context of the session, so one envelope costs five writes, not five per reducer.
 */
export class ReducingEnvelope {
  event: Event = NO_EVENT;
  type: string = NO_EVENT.type;
  meta: EnvelopeMeta = EMPTY_META;
  seq = 0;
  at = 0;
}

/**
 * @internal The context of one route's reducer (see `ReducerContext`): its own fields are
 * fixed or set per call (`previous`); the envelope's fields are read from the session's
 * {@link ReducingEnvelope} through accessors.
 */
class RouteContext {
  constructor(
    private readonly envelope: ReducingEnvelope,
    readonly slice: string,
    readonly reducerName: string,
    readonly session: SessionReader,
    public previous: SliceView<any>,
  ) {}
  get event(): Event {
    return this.envelope.event;
  }
  get eventType(): string {
    return this.envelope.type;
  }
  get metadata(): EnvelopeMeta {
    return this.envelope.meta;
  }
  get seq(): number {
    return this.envelope.seq;
  }
  get at(): number {
    return this.envelope.at;
  }
}

/**
 * @internal The slices of one session and the routes from event types to their reducers
 * (with the payload schemas that validate dispatches). Read by `SessionCore` on every
 * dispatch; a class, like the core, so that its methods are optimized once for all sessions.
 */
export class SessionRegistry {
  readonly records = new Map<string, SliceRecord<any>>();
  /** Routes by event type, in registration order (read through {@link routesOf}). */
  readonly routes = new Map<string, Route[]>();
  /**
   * The route lists of the last two types asked (see {@link routesOf}). The lists are mutated in
   * place, so a remembered list stays current; a type's first route makes a new list and clears it.
   */
  private readonly recentRoutes = new RecentAnswers<Route[] | undefined>((type) => this.routes.get(type));
  /** Payload schemas by event type. */
  readonly schemas = new Map<string, z.ZodType>();
  /** The event types the session knows (declared by reducers, `events`, machines, sagas, effects, channels). */
  readonly known = new KnownEvents();
  /** Routes of `'*'` reducers: every non-library event, after the typed routes. */
  readonly catchAll: Route[] = [];
  /** Handed to reducers as `ctx.session`. */
  readonly reader: SessionReader;
  /** The envelope being reduced, read by every route's context. */
  readonly reducing = new ReducingEnvelope();
  /** Reducer middleware added with `session.use`, in call order (boxed: one box per added function). */
  private readonly globalAdded: { readonly middleware: ReducerMiddleware }[] = [];
  /**
   * Slices whose chain changed while an envelope was processed (`staleDuring`): rebuilt before
   * the next envelope is reduced (`rebuildStale`). Undefined when none: the session's only
   * per-envelope cost of run-time middleware is reading this field.
   */
  stale: Set<SliceRecord<any>> | undefined = undefined;
  private staleDuring: object | undefined = undefined;
  /** The envelope being processed, if any (set by the session): a disposer called meanwhile defers too. */
  processing: (() => object | undefined) | undefined = undefined;
  /** How many slices have observables (see `ObservedSlices`): a commit notifies slices only when some have. */
  readonly observed: ObservedSlices = { count: 0 };

  constructor(
    private readonly globalMiddleware: readonly ReducerMiddleware[],
    private readonly stateStorage: StorageFactory,
    private readonly logStorage: StorageFactory,
    private readonly report?: SubscriberFailureReporter,
    /**
     * Told of the journal of each slice storage that has one (durable backends), before the
     * slice is added; it may refuse it by throwing (the slice is then not added, its storage
     * disposed). The session takes each distinct journal once (`SessionJournals.add`).
     */
    private readonly adopt?: (journal: StorageJournal, sliceName: string | undefined) => void,
  ) {
    this.reader = { read: (def) => this.recordOf(def as SliceDef<string, any>).storage.all() };
  }

  /** Registers a slice (without its routes). @throws {@link DuplicateSliceError} */
  addSlice(def: SliceDef<string, any>): SliceRecord<any> {
    rejectNotASlice(def, 'register as a slice');
    // Also for definitions not made by defineSlice: names key snapshots and storage.
    const problem = sliceNameProblem(def.name);
    if (problem !== undefined) throw new InvalidSliceDefinitionError(String(def.name), problem);
    if (this.records.has(def.name)) throw new DuplicateSliceError(def.name);
    const storage = (def.policy === 'log' ? this.logStorage : this.stateStorage)(def);
    if (storage.journal !== undefined) {
      try {
        this.adopt?.(storage.journal, def.name);
      } catch (error) {
        storage.dispose();
        throw error;
      }
    }
    const record = new SliceRecord(def, storage, this.globalMiddleware, this.report, this.observed);
    // A slice added after `session.use(...)` gets the run-time global middleware too.
    if (this.globalAdded.length > 0) record.chain = [...this.globalMiddleware, ...this.globalAdded.map((b) => b.middleware), ...def.middleware];
    if (def.schema !== undefined) def.initial.forEach((item, i) => checkItem(record, item, i));
    this.records.set(def.name, record);
    return record;
  }

  private addRoute(route: Route, schema: z.ZodType | undefined): void {
    if (route.entry.eventType === '*') {
      this.catchAll.push(route);
      return;
    }
    this.known.add(route.entry.eventType);
    const list = this.routes.get(route.entry.eventType);
    if (list === undefined) {
      this.routes.set(route.entry.eventType, [route]);
      this.recentRoutes.clear();
    } else list.push(route);
    if (schema !== undefined) this.schemas.set(route.entry.eventType, schema);
  }

  /**
   * The routes of event type `type` (undefined when none), in registration order; the last two
   * types asked are answered without a lookup (see `RecentAnswers`).
   */
  routesOf(type: string): Route[] | undefined {
    return this.recentRoutes.get(type);
  }

  private removeRoute(route: Route): void {
    const list = route.entry.eventType === '*' ? this.catchAll : this.routes.get(route.entry.eventType);
    const i = list?.indexOf(route) ?? -1;
    if (list !== undefined && i >= 0) list.splice(i, 1);
  }

  /** Builds a route: its reusable context and its reducer composed with the middleware chain. */
  private makeRoute(record: SliceRecord<any>, entry: ReducerEntry<any>): Route {
    // One context per route, refilled before each call (reduce is never re-entered), so a
    // reducer call allocates nothing.
    const ctx: Route['ctx'] = new RouteContext(this.reducing, record.def.name, entry.name, this.reader, record.storage.view());
    // An uncalled helper (`on(E, replaceLatest)`) stands for the helper called with its defaults.
    const route: Route = { record, entry, ctx, reducer: asReducer(entry.reducer as Reducer<any>), invoke: undefined, latest: entry.latest };
    this.compose(route);
    return route;
  }

  /**
   * Composes the route's reducer with its slice's chain (once per chain): without middleware the
   * session calls the reducer (or the `onLatest` function) directly, with no wrapper.
   */
  private compose(route: Route): void {
    const { record, ctx, reducer } = route;
    if (record.chain.length === 0) {
      route.invoke = undefined;
      route.latest = route.entry.latest;
      return;
    }
    let invoke = (): SliceOp<any> => reducer(ctx.previous, ctx.event, ctx);
    for (let i = record.chain.length - 1; i >= 0; i--) {
      const middleware = record.chain[i] as ReducerMiddleware;
      const next = invoke;
      invoke = () => middleware(ctx, next);
    }
    route.invoke = invoke;
    route.latest = undefined;
  }

  /**
   * Adds reducer middleware at run time: to every slice (`record` undefined, after the global
   * middleware so far) or to one slice (after its own). Called while an envelope is processed
   * (`processing`), the new chains apply from the next envelope.
   * Returns the idempotent function that removes them (under the same rule).
   */
  addMiddleware(record: SliceRecord<any> | undefined, middleware: readonly ReducerMiddleware[]): () => void {
    const boxes = middleware.map((m) => ({ middleware: m }));
    (record === undefined ? this.globalAdded : record.added).push(...boxes);
    this.chainsChanged(record, this.processing?.());
    let removed = false;
    return () => {
      if (removed) return;
      removed = true;
      const list = record === undefined ? this.globalAdded : record.added;
      for (const box of boxes) {
        const i = list.indexOf(box);
        if (i >= 0) list.splice(i, 1);
      }
      this.chainsChanged(record, this.processing?.());
    };
  }

  /** Recomputes the chains of `record` (or every slice), now or, with `during`, before the next envelope. */
  private chainsChanged(record: SliceRecord<any> | undefined, during: object | undefined): void {
    if (during === undefined) {
      this.rebuild(record);
      return;
    }
    const stale = (this.stale ??= new Set());
    if (record === undefined) for (const r of this.records.values()) stale.add(r);
    else stale.add(record);
    this.staleDuring = during;
  }

  /** @internal Called by the session before reducing `env`: applies chains changed while another envelope was processed. */
  rebuildStale(env: object): void {
    if (env === this.staleDuring) return;
    const stale = this.stale as Set<SliceRecord<any>>;
    this.stale = undefined;
    this.staleDuring = undefined;
    for (const record of stale) this.rebuild(record);
  }

  private rebuild(record: SliceRecord<any> | undefined): void {
    if (record === undefined) {
      for (const r of this.records.values()) this.rebuild(r);
      return;
    }
    const global = this.globalMiddleware;
    const added = this.globalAdded;
    const own = record.def.middleware;
    record.chain =
      added.length === 0 && record.added.length === 0
        ? global.length === 0
          ? own
          : [...global, ...own]
        : [...global, ...added.map((b) => b.middleware), ...own, ...record.added.map((b) => b.middleware)];
    for (const route of record.routes) this.compose(route);
  }

  recordOf(def: SliceDef<string, any> | string): SliceRecord<any> {
    const name = typeof def === 'string' ? def : def.name;
    const record = this.records.get(name);
    if (record === undefined || (typeof def !== 'string' && record.def !== def && record.def.name !== def.name)) {
      if (typeof def !== 'string') rejectNotASlice(def, 'use as a slice');
      throw new SliceNotRegisteredError(name);
    }
    return record;
  }

  /** Routes `entry` to `record` (after its existing reducers); returns the function that removes it. */
  addReducer(record: SliceRecord<any>, entry: ReducerEntry<any>): () => void {
    const route = this.makeRoute(record, entry);
    this.addRoute(route, entry.schema);
    record.routes.push(route);
    return () => {
      this.removeRoute(route);
      const i = record.routes.indexOf(route);
      if (i >= 0) record.routes.splice(i, 1);
    };
  }

  /** Registers a slice and routes its declared reducers. @throws {@link DuplicateSliceError} */
  addSliceWithRoutes(def: SliceDef<string, any>): void {
    const record = this.addSlice(def);
    for (const entry of def.reducers) this.addReducer(record, entry);
  }
}
