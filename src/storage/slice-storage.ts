import type { SliceDef } from '../slices/reducer';
import type { SliceView } from '../slices/slice-view';
import type { WindowMemo } from '../slices/window-contract';
import type { RxSliceError } from '../internal/errors';

/**
 * The captured content of one slice: its items (an immutable array shared with the
 * storage, never copied). A backend whose versions are immutable content objects (memory) puts
 * the content object itself in `token`, so a capture costs O(1) and restoring it is a pointer swap.
 */
export interface StoredSlice<TItem> {
  readonly items: readonly TItem[];
  /** How many items were ever appended (drives seeded sampling windows). */
  readonly appended: number;
  /** @internal Backend-private capture that lets the same backend restore without copying. */
  readonly token?: unknown;
}

/**
 * The stage of one slice inside a session commit: the next content of the slice while an event
 * changes it. Reducers read `view()`; the session stages changes and evictions; then either
 * `commit()` swaps the staged content in (the slice's next version) or `rollback()` drops it,
 * leaving the slice exactly as it was. Methods that remove items return them (for `evicted$`).
 *
 * @remarks A backend may reuse one stage object per slice (`begin()` re-arms it): the memory
 * backend's `begin()` copies nothing, its first change makes the next immutable content object
 * (copy on write), and `commit()` is a pointer swap, so no transaction object or copy is made per
 * slice per event.
 */
export interface StorageTransaction<TItem> {
  /** The pending content as reducers see it (committed items plus this transaction's changes). */
  view(): SliceView<TItem>;
  /** True once any method of this transaction changed the content. */
  readonly changed: boolean;
  /** How many items were ever appended, counting this transaction's appends. */
  readonly appended: number;
  /** The time (ms, the session clock) at which the pending item at `index` was stored. */
  timeAt(index: number): number;
  /** Appends `item`, stored at time `at` (ms, the session clock). */
  append(item: TItem, at: number): void;
  /** Replaces the whole content with `items`, stored at time `at` (ms). */
  replace(items: readonly TItem[], at: number): void;
  /**
   * Optional: replaces the newest item with `item` stored at time `at` (ms), or appends it when
   * the content is empty; the other items keep their times. What an `onLatest` reducer's result
   * does; a backend without it gets `replace` with all but the newest item, then `item`.
   */
  replaceLast?(item: TItem, at: number): void;
  /**
   * Optional: replaces the pending item at `index` (0 = oldest) with `item`, stored at time `at`
   * (ms); every other item keeps its index and time, and `appended` is unchanged. An item
   * identical (`===`) to the one at `index` changes nothing. What an `updateAt` op does; a backend
   * without it gets `replace` with a copy of the items holding `item` at `index`. A backend with
   * it should make it cheaper than that rewrite (the memory backend copies its buffer natively
   * once; the JSONL journal records the one item, not the content).
   * @throws RangeError when `index` is not an integer in `[0, size)`; nothing changed then.
   */
  updateAt?(index: number, item: TItem, at: number): void;
  /** Makes the content equal to a capture from `snapshot()`; O(1) when it came from this backend. */
  restore(stored: StoredSlice<TItem>, at: number): void;
  /** Removes every item, or only those for which `predicate` returns true. */
  clear(predicate?: (item: TItem) => boolean): void;
  /** Removes the `count` oldest items and returns them (oldest first). */
  dropFront(count: number): readonly TItem[];
  /** Removes the `count` newest items and returns them (in index order). */
  dropBack(count: number): readonly TItem[];
  /** Removes the items at `indices` (ascending) and returns them in index order. */
  dropIndices(indices: readonly number[]): readonly TItem[];
  /**
   * Optional: the window memo of the pending content (see `WindowContext.memo`). A backend
   * that keeps one tracks the indices that `replace` and `updateAt` change and forgets the memo on `clear`
   * and `restore`; `append` and the `drop*` methods (the window's own decision) keep it.
   */
  readonly windowMemo?: WindowMemo | undefined;
  /** Optional: sets the window memo (see `WindowContext.remember`); a stable function. */
  readonly rememberWindow?: ((state: unknown) => void) | undefined;
  /** Makes the staged content the committed one (bumps `version` when `changed`); ends the stage. */
  commit(): void;
  /** Discards the staged content, leaving the slice exactly as it was; ends the stage. */
  rollback(): void;
}

/**
 * The contract every local storage backend implements (memory here; append-only files and
 * databases as their own entry points). Local backends are synchronous: a commit is written
 * through before any subscriber is notified.
 *
 * @remarks `version` increases by one on every committed change; `all()` and `snapshot()`
 * return immutable data in O(1), shared with later versions (never mutated afterwards).
 */
export interface SliceStorage<TItem> {
  /** Increases by one on every committed change. */
  readonly version: number;
  /** How many items are stored. */
  readonly size: number;
  /** Every stored item, oldest first (immutable, O(1)). */
  all(): readonly TItem[];
  /** The newest item, or `undefined` when the slice is empty. */
  latest(): TItem | undefined;
  /** A read-only view of the committed content. */
  view(): SliceView<TItem>;
  /**
   * Optional: true when every commit after version `version` (up to the current one) only
   * appended items, so the items below the size the slice had at `version` are the same items
   * at the same indices; false after a `replace`, `clear`, `restore` or any eviction since, or
   * when `version` is ahead of the current one. Incremental computed slices fold only the
   * appended items when it is true (and recompute from scratch otherwise, or without it). O(1).
   */
  appendedOnlySince?(version: number): boolean;
  /** Opens the stage of the next version (see {@link StorageTransaction}). Only one may be open at a time. */
  begin(): StorageTransaction<TItem>;
  /** Captures the committed content in O(1). */
  snapshot(): StoredSlice<TItem>;
  /** Convenience single-op commits (each is its own transaction). */
  append(item: TItem, at: number): void;
  /** Appends `items` in order, stored at time `at` (ms, the session clock), in one commit. */
  extend(items: readonly TItem[], at: number): void;
  /** Replaces the whole content with `items`, stored at time `at` (ms), in one commit. */
  replace(items: readonly TItem[], at: number): void;
  /** Removes every item, or those for which `predicate` returns true, in one commit. */
  clear(predicate?: (item: TItem) => boolean): void;
  /** Releases the backend's resources (files, handles); the storage is unusable afterwards. */
  dispose(): void;
  /**
   * Optional: the journal this storage writes its commits to (durable backends). A session
   * that finds one calls {@link StorageJournal.commit} once per event, before it commits the
   * slices' transactions, so that one record covers every slice the event changed (and
   * {@link StorageJournal.commitSeq} on one journal when the event changed nothing stored). Memory
   * storage has none (and pays nothing for this hook). The code that writes journals is a layer
   * (docs/SIZE.md): `createStore` takes a storage with a journal only in a program that linked it,
   * by passing the factory through `defineDurableStorage` (`jsonl()` and `createSession` link it);
   * otherwise the store throws a `TypeError` (E71) naming `defineDurableStorage`, and opens nothing.
   */
  readonly journal?: StorageJournal | undefined;
}

/**
 * The durable side of a storage factory (one per directory or database): it writes ONE
 * record per committed event, covering every slice of this journal that the event changed,
 * before any of those slices' transactions commit (docs/ARCHITECTURE.md "Storage and durability": all or
 * nothing per event holds on disk). An event that changed nothing stored still leaves its `seq`
 * in one journal of the session ({@link StorageJournal.commitSeq}), so a reopened session never
 * hands out a `seq` again.
 */
export interface StorageJournal {
  /** The `seq` of the last event recovered or written (0 for a new store); the session continues after it. */
  readonly lastSeq: number;
  /**
   * Writes the record of event `seq` (time `at`, ms) for those of `txs` that belong to this
   * journal and changed something; writes nothing when none did. Runs before any of `txs`
   * commits. Returns whether it wrote a record. @throws (an {@link RxSliceError}) when the write
   * or its fsync failed: the failure is fatal, never retried, and every later call throws it again.
   */
  commit(seq: number, at: number, txs: readonly StorageTransaction<any>[]): boolean;
  /**
   * Writes the seq-only record of event `seq` (time `at`, ms): a committed event that changed
   * nothing stored in any journal of the session (an event no stored slice listens to, or one
   * that changed only memory slices). The session calls it on one of its journals, in the commit,
   * before anyone is told of the event, so every `seq` a listener (a flight recorder) ever saw
   * is below the `lastSeq` a reopen finds, even after a SIGKILL right after the call.
   * @throws as {@link StorageJournal.commit}.
   */
  commitSeq(seq: number, at: number): void;
  /**
   * Called once by the session that uses this journal: `report` receives failures found
   * outside a commit (a background fsync, a compromised lock). After one, `commit` throws.
   */
  setReporter(report: (error: RxSliceError) => void): void;
  /**
   * Optional (the JSONL journal has it): from now until {@link StorageJournal.writeDeferred},
   * {@link commit} and {@link commitSeq} keep each record in memory, in order, instead of writing
   * it (`SessionInternals.durableBatch`). A process killed meanwhile loses the records held: a
   * reopen finds the state after a prefix of the committed events, as after any crash.
   */
  deferWrites?(): void;
  /**
   * Writes the records held since {@link deferWrites} in one go (then fsyncs per the journal's
   * policy) and writes each record at once again. @throws as {@link commit}: fatal.
   */
  writeDeferred?(): void;
  /**
   * Optional: the items this journal holds for the slice `def.name` when no slice of that name
   * was opened from it (migrated to `def.version`), without opening it; `undefined` when it holds
   * none of that name or the slice is open. How a session reads stored library slices whose layer
   * it has not loaded (a program without `defineSaga` reading the sagas' completion records).
   * @throws as opening the slice would (`SliceVersionError` for items of a newer version).
   */
  peek?<TItem>(def: StoredSliceDef<TItem>): readonly TItem[] | undefined;
}

/** What {@link StorageJournal.peek} needs of a slice definition: its name, version, migrations and initial items. */
export type StoredSliceDef<TItem> = Pick<SliceDef<string, TItem>, 'name' | 'version' | 'migrations' | 'initial'>;

/** A journal opened by {@link StorageFactory.openJournal}, held open until {@link HeldJournal.release}. */
export interface HeldJournal {
  readonly journal: StorageJournal;
  /** Lets the journal close once its slices are disposed too. Idempotent. */
  release(): void;
}

/**
 * Makes the storage for one slice of a session.
 *
 * @remarks A durable factory also has `openJournal`: the session calls it when it is created,
 * before any slice is made, so that it knows its place (`lastSeq`) from the journal itself, even
 * with no slice stored there yet (a session with only a statechart or sagas, whose library slices
 * are made later) and records the `seq` of events that stored nothing.
 */
export interface StorageFactory {
  <TItem>(slice: SliceDef<string, TItem>): SliceStorage<TItem>;
  /**
   * Optional (durable backends): opens the factory's journal now (reading what it holds and
   * taking its lock) and keeps it open until the returned hold is released, whether or not any
   * slice is made from the factory. The session releases it when it is disposed. A store calls
   * it only once the journal runtime is linked (see `SliceStorage.journal`): else a `TypeError`
   * (E71), before this is called.
   */
  readonly openJournal?: (() => HeldJournal) | undefined;
}
