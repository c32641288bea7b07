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
  /** Replaces the slice's content with `items` (validated with the schema) via `rxslice.slice.seeded`. */
  seed(items: readonly TItem[]): void;
  /** Removes every item via `rxslice.slice.cleared`. */
  clear(): void;
  /** Adds a reducer at run time; it runs after the slice's declared reducers. Returns a function that removes it. */
  register<TType extends string, TPayload>(
    creator: EventCreator<TType, TPayload>,
    reducer: Reducer<TItem, Event<TType, TPayload>>,
    name?: string,
  ): () => void;
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
  readonly chain: readonly ReducerMiddleware[];
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
  ) {
    this.report = report;
    this.jsonSafe = def.schema !== undefined && schemaGivesJson(def.schema);
    this.window = def.window;
    this.chain = [...globalMiddleware, ...def.middleware];
    this.nameSet = new Set([def.name]);
    this.nameList = Object.freeze([def.name]);
    this.selfList = Object.freeze([this]);
  }

  /**
   * Emits to live subscribers after a commit that changed this slice (or, in a batch, after the
   * batch). Until then subscribers that join replay what the others saw last, as with a
   * `BehaviorSubject`.
   */
  notify(): void {
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

  all$(): Observable<readonly TItem[]> {
    if (this.allObservable === undefined) {
      this.lastAll = this.storage.all();
      const emitter = (this.allEmitter = new Emitter<readonly TItem[]>());
      this.allObservable = emitter.observable(() => this.lastAll as readonly TItem[], this.guard('all$'));
    }
    return this.allObservable;
  }

  latest$(): Observable<TItem | undefined> {
    if (this.latestObservable === undefined) {
      this.lastLatest = this.storage.latest();
      const emitter = (this.latestEmitter = new Emitter<TItem | undefined>());
      this.latestObservable = emitter.observable(() => this.lastLatest, this.guard('latest$'));
    }
    return this.latestObservable;
  }

  private guard(name: string): SubscriberGuard | undefined {
    return this.report === undefined ? undefined : { label: `slice "${this.def.name}" ${name}`, report: this.report };
  }

  complete(): void {
    this.allEmitter?.complete();
    this.latestEmitter?.complete();
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
  /** The reducer wrapped in the slice's middleware chain, composed once; `undefined` without middleware. */
  readonly invoke: (() => SliceOp<any>) | undefined;
  /**
   * An `onLatest` reducer's own function (`ReducerEntry.latest`) when the slice has no reducer
   * middleware: the session calls it and stages its result as the new latest item, no op made.
   */
  readonly latest: ReducerEntry<any>['latest'];
}
