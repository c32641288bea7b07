import type { Observable } from 'rxjs';
import { Emitter, type SubscriberGuard } from '../internal/emitter';
import { schemaGivesJson } from '../internal/json-data';
import type { SubscriberFailureReporter } from '../internal/guarded-observable';
import type { Event, EventCreator } from '../events/event';
import type { Reducer, ReducerContext, ReducerEntry, ReducerMiddleware, SliceDef } from '../slices/reducer';
import type { SliceOp } from '../slices/slice-op';
import type { SliceView } from '../slices/slice-view';
import type { EvictionPolicy, SliceWindowPolicy } from '../slices/window-contract';
import type { SliceStorage, StorageTransaction } from '../storage/slice-storage';
import type { UncalledHelperReducer } from '../slices/helper-reducers';

const NO_ITEMS: readonly never[] = Object.freeze([]);

/** Options of `SliceHandle.configure`. */
export interface SliceRuntimeConfig<TItem> {
  /** A new window (or `null` to remove it). Applies from the next event touching the slice. */
  readonly window?: SliceWindowPolicy<TItem> | null;
  /**
   * A new eviction policy for the window (the new one when `window` is given too, else the
   * current one). The window must make an eviction choice (`count`, `predicate`, or a composite
   * of them).
   */
  readonly eviction?: EvictionPolicy<TItem>;
}

/**
 * One change of a slice, as `SliceHandle.changes$` tells it: the items before and after a commit
 * (or a batch) that changed the slice's version, and what its window evicted on the way.
 *
 * `previous` and `current` are the very arrays `all()` returned before and after (references are
 * stable per version), so `previous === current` never holds and unchanged items keep their
 * identity across the two.
 */
export interface SliceUpdate<TItem> {
  /** `all()` before the change: the items as the previous emission's `current` (or, for the first, as at subscribe time). */
  readonly previous: readonly TItem[];
  /** `all()` after the change. */
  readonly current: readonly TItem[];
  /** Items the slice's window evicted during the change, oldest first (empty when none). */
  readonly evicted: readonly TItem[];
  /** The `seq` of the committed envelope that made the change (of the last one, for a batch). */
  readonly seq: number;
  /** The slice's version after the change (`SliceHandle.version`). */
  readonly version: number;
}

/**
 * A session's live accessor for one slice: synchronous reads, observables that emit only
 * when the slice's version changes, and the operations that go through the pipeline as
 * `rxslice.*` events.
 */
export interface SliceHandle<TItem> extends SliceView<TItem> {
  readonly name: string;
  /** Increases by one on each committed change. */
  readonly version: number;
  /** Every item, emitted synchronously on subscribe and after each commit that changed the slice. */
  readonly all$: Observable<readonly TItem[]>;
  /** The latest item, emitted on subscribe and whenever the latest item (by reference) changed. */
  readonly latest$: Observable<TItem | undefined>;
  /**
   * The slice's changes as `(old, new)` pairs: one {@link SliceUpdate} `{ previous, current,
   * evicted, seq, version }` after each commit that changed the slice's version (once per batch,
   * after it), at the same moment `all$` emits. Nothing on subscribe.
   *
   * @remarks `previous`/`current` are the arrays `all()` returned before/after, so an observer can
   * diff them by reference; `evicted` are the items the window removed in that change (what
   * `session.evicted$` reports for this slice), so an eviction observer gets old and new state
   * with the evicted items in one value. A subscriber that throws is reported on `errors$`. Completes
   * when the session is disposed. Source: the seed's P2 design notes ("eviction observers get (old, new)").
   * @example
   * ```ts
   * const Recent = defineSlice('recent', {
   *   policy: 'log',
   *   window: SliceWindow.count(2),
   *   reducers: ({ on }) => [on(Said, (_v, e) => append({ text: e.payload.text }))],
   * });
   * const session = createSession({ slices: [Recent] });
   * session.slice(Recent).changes$.subscribe(({ previous, current, evicted }) =>
   *   console.log(previous.length, current.length, evicted.map((m) => m.text)));
   * session.dispatch(Said({ text: 'a' })); // Logs: 0 1 []
   * session.dispatch(Said({ text: 'b' })); // Logs: 1 2 []
   * session.dispatch(Said({ text: 'c' })); // Logs: 2 2 ['a']
   * ```
   */
  readonly changes$: Observable<SliceUpdate<TItem>>;
  /**
   * Replaces the slice's content with `items` via `rxslice.slice.seeded` (the event form is
   * `session.dispatch(InitializeSlice(def, items))`). Each item is copied, checked to be JSON
   * data, validated with the schema and frozen before anything changes.
   * @throws `InvalidSliceItemError` for a bad item (nothing changes); the errors of `dispatch`.
   */
  seed(items: readonly TItem[]): void;
  /** Removes every item via `rxslice.slice.cleared` (the event form is `session.dispatch(ClearSlice(def))`). */
  clear(): void;
  /**
   * Appends `items` in order, as one `rxslice.slice.appended` event: the seed's
   * `session[WorkspaceDigest].append(entry)` ("write simplifies to append-only"). Items are
   * validated as {@link SliceHandle.seed}'s are; the slice's window applies; computed slices and
   * subscribers see one change. Synchronous, like `dispatch`.
   * @throws `InvalidSliceItemError` for a bad item (nothing changes); the errors of `dispatch`.
   * @example
   * ```ts
   * session.slice(WorkspaceDigest).append({ path: 'src/a.ts', summary: 'entry point' });
   * session.slice(WorkspaceDigest).latest(); // { path: 'src/a.ts', summary: 'entry point' }
   * ```
   */
  append(...items: TItem[]): void;
  /**
   * Replaces the latest item with `item` (appends it to an empty slice), as one
   * `rxslice.slice.latestReplaced` event: what the `replaceLatest` helper reducer does.
   * @throws `InvalidSliceItemError` for a bad item (nothing changes).
   * @example
   * ```ts
   * session.slice(Plan).replaceLatest({ steps: ['read', 'fix', 'test'] });
   * ```
   */
  replaceLatest(item: TItem): void;
  /**
   * Replaces the newest item whose `key` equals `item[key]` (appends `item` when none does), as
   * one `rxslice.slice.latestReplaced` event: what the `replaceLatestBy(key)` helper reducer does.
   * @throws `InvalidSliceItemError` for a bad item or a key that is not a string (nothing changes).
   * @example
   * ```ts
   * session.slice(Tools).replaceLatestBy('id', { id: 't1', status: 'done' });
   * ```
   */
  replaceLatestBy<TKey extends keyof TItem & string>(key: TKey, item: TItem): void;
  /**
   * Adds a reducer at run time; it runs after the slice's declared reducers. Returns a function
   * that removes it. An uncalled helper (`register(PlanSet, replaceLatest)`, the seed's
   * `register(Plan, replace_latest)`) stands for the helper called with its defaults.
   */
  register<TType extends string, TPayload>(creator: EventCreator<TType, TPayload>, reducer: Reducer<TItem, Event<TType, TPayload>>, name?: string): () => void;
  /** An uncalled helper reducer (`appendAll`, `replaceLatest`): the helper called with its defaults. */
  register<TType extends string, TPayload>(creator: EventCreator<TType, TPayload>, helper: UncalledHelperReducer, name?: string): () => void;
  /**
   * Changes the window and/or its eviction policy at run time, from the next event that changes
   * the slice (items already in the slice are not re-evaluated until then).
   * @throws `InvalidWindowError` when `eviction` is given and the slice has no window or its
   * window makes no eviction choice (`time`); nothing is changed then.
   * @example
   * ```ts
   * session.slice(Calls).configure({ window: SliceWindow.count(500) });
   * session.slice(Calls).configure({ eviction: EvictionPolicy.sampling({ seed: 7 }) }); // count(500, sampling(seed 7))
   * ```
   */
  configure(config: SliceRuntimeConfig<TItem>): void;
  /**
   * Adds reducer middleware around this slice's reducers at run time (a plugin that was not there
   * when the slice was defined). The slice's chain is: the session's middleware (given to
   * `createSession`, then added with `session.use`, in call order), then this slice's (given to
   * `defineSlice`, then added with `slice(...).use`, in call order); the first runs outermost.
   *
   * @returns A disposer that removes exactly these middleware (idempotent).
   * @remarks Applies from the next event: a middleware added (or removed) while an event is being
   * processed (by a reducer middleware, an event middleware, a subscriber) does not change how
   * that event is reduced. Library events (`rxslice.*`) run no reducers, so no middleware.
   * Reducer middleware only: event and operator middleware see the whole event stream, so they
   * are session-wide (`session.use({ events, operators })`). This is the seed's per-slice
   * `session[Plan].use(...)` (Abstractions Proposal, P3): TypeScript cannot index an object by a
   * slice definition, so the slice is named by `session.slice(Plan)`.
   * @throws `InvalidMiddlewareError` when an argument is not a function or none is given;
   * `SessionDisposedError` on a disposed session. Nothing is added then.
   * @example
   * ```ts
   * const remove = session.slice(Plan).use((ctx, next) => {
   *   console.log(`${ctx.slice} <- ${ctx.eventType}`);
   *   return next();
   * });
   * remove(); // the slice's reducers run without it from the next event
   * ```
   */
  use(...middleware: ReducerMiddleware[]): () => void;
}

/**
 * @internal How many slices of a session have subscribable observables (`all$`, `latest$`,
 * `changes$` asked for at least once): while none has, a commit notifies no slice (issue 36:
 * ten `notify` calls were ~4 % of a 10-slice snapshot + restore).
 */
export interface ObservedSlices {
  count: number;
}

/** @internal The session's record for one slice. */
export class SliceRecord<TItem> {
  /** `all$` subscribers, from the first `all$()` call; `lastAll` is what they saw last. */
  private allEmitter: Emitter<readonly TItem[]> | undefined = undefined;
  private lastAll: readonly TItem[] | undefined = undefined;
  private allObservable: Observable<readonly TItem[]> | undefined = undefined;
  /** `latest$` subscribers, from the first `latest$()` call; `lastLatest` is what they saw last. */
  private latestEmitter: Emitter<TItem | undefined> | undefined = undefined;
  private lastLatest: TItem | undefined = undefined;
  private latestObservable: Observable<TItem | undefined> | undefined = undefined;
  window: SliceWindowPolicy<TItem> | undefined;
  /** The open transaction while an envelope is being reduced. */
  tx: StorageTransaction<TItem> | undefined = undefined;
  /** Items evicted by the window during the current envelope. */
  evicted: unknown[] | undefined = undefined;
  /** The reducer middleware of this slice's routes: global (definition, then `use`), then the slice's (same). */
  chain: readonly ReducerMiddleware[];
  /** Reducer middleware added with `slice(...).use`, in call order (boxed: one box per added function). */
  readonly added: { readonly middleware: ReducerMiddleware }[] = [];
  /** This slice's routes (declared and registered reducers), rebuilt when its chain changes. */
  readonly routes: Route[] = [];
  /** `changes$` subscribers, from the first `changes$()` call; `changesBefore` is `all()` as they last saw it. */
  private changesEmitter: Emitter<SliceUpdate<TItem>> | undefined = undefined;
  private changesBefore: readonly TItem[] = [];
  private changesObservable: Observable<SliceUpdate<TItem>> | undefined = undefined;
  /** Items evicted since the last `changes$` emission (kept only once `changes$` was asked for). */
  private changesEvicted: TItem[] | undefined = undefined;
  /** `{ name }`, handed to commit listeners when this slice alone changed (no Set per commit). */
  readonly nameSet: ReadonlySet<string>;
  /** `[name]`, the `changed` list of a commit that changed this slice alone (frozen, shared). */
  readonly nameList: readonly string[];
  /** `[this]`, the changed records of such a commit (frozen, shared). */
  readonly selfList: readonly SliceRecord<TItem>[];
  /**
   * Items (objects) this slice stored after normalising them (see `normalizeItem`): not
   * normalised again. Unused when {@link SliceRecord.jsonSafe}.
   */
  readonly normalized = new WeakSet<object>();
  /**
   * True when the slice's schema guarantees JSON-data output (`schemaGivesJson`, decided once):
   * normalising an item is then the schema's parse alone, no JSON-data walk and no WeakSet.
   */
  readonly jsonSafe: boolean;
  /** Where failures of `all$`/`latest$` subscribers go (the session's `errors$`). */
  private readonly report: SubscriberFailureReporter | undefined;

  constructor(
    readonly def: SliceDef<string, TItem>,
    readonly storage: SliceStorage<TItem>,
    globalMiddleware: readonly ReducerMiddleware[],
    report?: SubscriberFailureReporter,
    /** The session's count of observed slices, counted up the first time this slice's observables are asked for. */
    private readonly observed: ObservedSlices = { count: 0 },
  ) {
    this.report = report;
    this.jsonSafe = def.schema !== undefined && schemaGivesJson(def.schema);
    this.window = def.window;
    this.chain = globalMiddleware.length === 0 ? def.middleware : [...globalMiddleware, ...def.middleware];
    this.nameSet = new Set([def.name]);
    this.nameList = Object.freeze([def.name]);
    this.selfList = Object.freeze([this]);
  }

  /**
   * Emits to live subscribers after a commit that changed this slice (or, in a batch, after the
   * batch). Until then subscribers that join replay what the others saw last, as with a
   * `BehaviorSubject`.
   */
  notify(seq: number): void {
    if (this.changesEmitter !== undefined) this.emitChange(seq);
    const all = this.allEmitter;
    if (all !== undefined) {
      const items = (this.lastAll = this.storage.all());
      if (all.observed) all.emit(items);
    }
    const latest$ = this.latestEmitter;
    if (latest$ !== undefined) {
      const latest = this.storage.latest();
      if (latest !== this.lastLatest) {
        this.lastLatest = latest;
        if (latest$.observed) latest$.emit(latest);
      }
    }
  }

  /** Keeps `items` (evicted by the window in a commit) for the next `changes$` emission, once `changes$` exists. */
  keepEvicted(items: readonly unknown[]): void {
    if (this.changesEmitter === undefined) return;
    const kept = (this.changesEvicted ??= []);
    for (let i = 0; i < items.length; i++) kept.push(items[i] as TItem);
  }

  private emitChange(seq: number): void {
    const emitter = this.changesEmitter as Emitter<SliceUpdate<TItem>>;
    const previous = this.changesBefore;
    const current = (this.changesBefore = this.storage.all());
    const evicted = this.changesEvicted ?? NO_ITEMS;
    this.changesEvicted = undefined;
    if (current === previous || !emitter.observed) return;
    emitter.emit({ previous, current, evicted: evicted as readonly TItem[], seq, version: this.storage.version });
  }

  changes$(): Observable<SliceUpdate<TItem>> {
    if (this.changesObservable === undefined) {
      this.markObserved();
      this.changesBefore = this.storage.all();
      const emitter = (this.changesEmitter = new Emitter<SliceUpdate<TItem>>());
      // No replay on subscribe: a change stream, not a state.
      this.changesObservable = emitter.changes(this.guard('changes$'));
    }
    return this.changesObservable;
  }

  all$(): Observable<readonly TItem[]> {
    if (this.allObservable === undefined) {
      this.markObserved();
      this.lastAll = this.storage.all();
      const emitter = (this.allEmitter = new Emitter<readonly TItem[]>());
      this.allObservable = emitter.observable(() => this.lastAll as readonly TItem[], this.guard('all$'));
    }
    return this.allObservable;
  }

  latest$(): Observable<TItem | undefined> {
    if (this.latestObservable === undefined) {
      this.markObserved();
      this.lastLatest = this.storage.latest();
      const emitter = (this.latestEmitter = new Emitter<TItem | undefined>());
      this.latestObservable = emitter.observable(() => this.lastLatest, this.guard('latest$'));
    }
    return this.latestObservable;
  }

  /** Counts this slice in the session's observed slices once (see {@link ObservedSlices}). */
  private markObserved(): void {
    if (this.allObservable === undefined && this.latestObservable === undefined && this.changesObservable === undefined) this.observed.count++;
  }

  private guard(name: string): SubscriberGuard | undefined {
    return this.report === undefined ? undefined : { label: `slice "${this.def.name}" ${name}`, report: this.report };
  }

  complete(): void {
    this.allEmitter?.complete();
    this.latestEmitter?.complete();
    this.changesEmitter?.complete();
  }
}

/** @internal A reducer routed to a slice. */
export interface Route {
  readonly record: SliceRecord<any>;
  readonly entry: ReducerEntry<any>;
  /** The context handed to this route's reducer and middleware (`previous` set for every call). */
  readonly ctx: ReducerContext<any> & { previous: ReducerContext<any>['previous'] };
  /** The reducer itself. */
  readonly reducer: Reducer<any>;
  /** The reducer wrapped in the slice's middleware chain, composed once (again when the chain changes); `undefined` without middleware. */
  invoke: (() => SliceOp<any>) | undefined;
  /**
   * An `onLatest` reducer's own function (`ReducerEntry.latest`) when the slice has no reducer
   * middleware: the session calls it and stages its result as the new latest item, no op made.
   */
  latest: ReducerEntry<any>['latest'];
}
