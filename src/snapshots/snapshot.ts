import type { SliceDef, SlicePolicy } from '../slices/reducer';
import type { StoredSlice } from '../storage/slice-storage';
import type { Snapshot } from './snapshot-ops';
import { isArrayView } from '../internal/array-view';
import { deepFreeze } from '../internal/freeze';

/** One slice inside a {@link Snapshot}: its policy, version and immutable items. */
export interface SnapshotSlice<TItem = unknown> {
  /** The slice's policy (`state` or `log`) when the snapshot was taken. */
  readonly policy: SlicePolicy;
  /**
   * The slice's version (its commit count, `SliceHandle.version`) when the snapshot was taken;
   * 0 for an entry that does not come from a session (read from JSON, made by `apply` or `merge`).
   * The items' schema version is the definition's (`SliceDef.version`, written to JSON as `schemaVersion`).
   */
  readonly version: number;
  /** The slice's items, oldest first (immutable). */
  readonly items: readonly TItem[];
  /** @internal The storage's capture, restored without copying when the backend allows. */
  readonly stored?: StoredSlice<TItem>;
}

/** The JSON form of a snapshot (see `Snapshot.toJSON`). */
export interface SnapshotJSON {
  /** Marks the JSON as an rxslice snapshot. */
  readonly format: 'rxslice.snapshot';
  /** The version of this JSON format. */
  readonly formatVersion: number;
  /** The snapshot's id (format 3; absent before). */
  readonly id?: string;
  /** Ids of the snapshots it was restored from or merged from (format 3; absent before). */
  readonly parents?: readonly string[];
  /** `seq` of the last envelope committed before the capture (0 when none). */
  readonly seq: number;
  /** Scheduler time (ms) of the capture. */
  readonly at: number;
  /** The tag given when the snapshot was taken, if any. */
  readonly tag?: string;
  /** The slices, by name. */
  readonly slices: Readonly<
    Record<
      string,
      {
        readonly policy: SlicePolicy;
        /** The slice's schema version (`defineSlice({ version })`) the items were written at; absent means 1. */
        readonly schemaVersion?: number;
        readonly items: readonly unknown[];
        /**
         * How many items the slice ever appended, when more than `items` holds (format 3; absent:
         * `items.length`). A seeded sampling window draws from it.
         */
        readonly appended?: number;
      }
    >
  >;
}

// The `Snapshot` interface lives in snapshot-ops.ts beside the `Snapshot` value (merge, diff,
// apply), so that one exported name is both; re-exported here for the modules that build snapshots.
export type { Snapshot };

/**
 * The JSON format version this build writes. 3 added `id` and `parents` (lineage); 2 added each
 * slice's `schemaVersion`. Formats 1 (every slice at version 1) and 2 are still read.
 */
export const SNAPSHOT_FORMAT_VERSION = 3;

/** The millisecond and counter of the last id made (see {@link newSnapshotId}). */
let lastIdMs = -1;
let idCounter = 0;
const hex = (n: number, width: number): string => n.toString(16).padStart(width, '0');

/**
 * A new snapshot (or checkpoint) id: a UUID version 7 (RFC 9562, §5.7), so ids sort by creation
 * time as strings, as LangGraph's time-ordered checkpoint ids do. The first 48 bits are the Unix
 * time in ms; the 12 bits after the version are a counter (RFC 9562 §6.2, method 1) that starts
 * at a random value each millisecond and keeps ids made in the same millisecond (or after the
 * clock went back) increasing within this process; the last 62 bits are random.
 *
 * The random bits come from `Math.random()`, not a cryptographic generator: ids name snapshots,
 * they are not secrets, and 74 random bits per millisecond keep ids made by separate processes
 * apart. (`globalThis.crypto` costs about 2 ms on its first use in Node, paid by the first
 * restore of a process.)
 *
 * @example
 * ```ts
 * newSnapshotId(); // '019abc12-3f4e-7a01-9c3d-5e6f7a8b9c0d'
 * ```
 */
export function newSnapshotId(): string {
  let ms = Date.now();
  if (ms > lastIdMs) {
    lastIdMs = ms;
    idCounter = Math.floor(Math.random() * 0x800);
  } else if (idCounter < 0xfff) {
    ms = lastIdMs;
    idCounter++;
  } else {
    // The counter ran out within one millisecond: borrow the next one.
    ms = ++lastIdMs;
    idCounter = Math.floor(Math.random() * 0x800);
  }
  const high = Math.floor(ms / 0x10000);
  const variant = 0x8000 | Math.floor(Math.random() * 0x4000);
  return `${hex(high, 8)}-${hex(ms % 0x10000, 4)}-7${hex(idCounter, 3)}-${hex(variant, 4)}-${hex(Math.floor(Math.random() * 0x1000000000000), 12)}`;
}

const NO_PARENTS: readonly string[] = Object.freeze([]);

/**
 * What a snapshot is besides its content: its slice names, its maker's `source`, its id (made on
 * first read) and what its restores make. A session's catalogue keeps this, not the snapshot
 * (see {@link snapshotIdentity}): a catalogue of 100 snapshots holds no slice content alive.
 */
class SnapshotBody implements SnapshotIdentity {
  /** What its restores made, from its first restore on (one field of every body, not two: most snapshots are never restored). */
  restores: RestoreCache | undefined = undefined;
  constructor(
    readonly seq: number,
    readonly at: number,
    readonly tag: string | undefined,
    readonly parents: readonly string[],
    readonly names: readonly string[],
    /** The deferred capture's `maker`, which is also the `source` (see {@link snapshotSource}). */
    readonly source: unknown,
    public id: string | undefined,
  ) {}
  idOf(): string {
    return (this.id ??= newSnapshotId());
  }
}

/** What the restores of one snapshot share: `[id]` frozen (the parents of snapshots taken after), the last restored event (see {@link restoreEventOf}). */
class RestoreCache {
  asParent: readonly string[] | undefined = undefined;
  event: RestoreEvent | undefined = undefined;
}

/**
 * The snapshot value. Kept as parallel arrays of names and entries (or the storages' captures,
 * see {@link DeferredCapture}): entries and `slices` are built (and frozen) on first read, and
 * `toJSON` lives on the prototype, so taking a snapshot costs two small objects. Whoever made it
 * may keep a private `source` in it (a session keeps its restore plan), invisible to
 * `Object.keys`, `JSON.stringify` and equality. Its private fields may be written after it was
 * frozen (they are no properties): V8 keeps its hidden class.
 */
class FrozenSnapshot implements Snapshot {
  /** See {@link keepSnapshotClassAlive}. */
  static keptAlive: Snapshot | undefined = undefined;
  readonly formatVersion = SNAPSHOT_FORMAT_VERSION;
  readonly #body: SnapshotBody;
  /** The entries; made on first read when the snapshot was taken with a deferred capture (see {@link DeferredCapture}). */
  #entries: readonly SnapshotSlice[] | undefined;
  /** The deferred capture (kept here, not in an object of their own: one allocation fewer per snapshot). */
  readonly #stored: readonly StoredSlice<unknown>[] | undefined;
  readonly #versionBase: number;
  readonly #versionDeltas: readonly number[] | undefined;
  #slices: Readonly<Record<string, SnapshotSlice>> | undefined;
  constructor(
    readonly seq: number,
    readonly at: number,
    readonly tag: string | undefined,
    readonly parents: readonly string[],
    body: SnapshotBody,
    entries: readonly SnapshotSlice[] | undefined,
    stored: readonly StoredSlice<unknown>[] | undefined,
    versionBase: number,
    versionDeltas: readonly number[] | undefined,
  ) {
    this.#body = body;
    this.#entries = entries;
    this.#stored = stored;
    this.#versionBase = versionBase;
    this.#versionDeltas = versionDeltas;
  }
  get id(): string {
    return this.#body.idOf();
  }
  get slices(): Readonly<Record<string, SnapshotSlice>> {
    if (this.#slices === undefined) {
      const names = this.#body.names;
      const slices: Record<string, SnapshotSlice> = {};
      const entries = FrozenSnapshot.#entryList(this);
      for (let i = 0; i < names.length; i++) slices[names[i] as string] = entries[i] as SnapshotSlice;
      this.#slices = Object.freeze(slices);
    }
    return this.#slices;
  }
  /**
   * The entries of `snapshot` (made once from the deferred capture, through its maker's cache).
   * Static: a private instance method would give every snapshot a brand field (8 bytes and a
   * store per snapshot taken).
   */
  static #entryList(snapshot: FrozenSnapshot): readonly SnapshotSlice[] {
    if (snapshot.#entries !== undefined) return snapshot.#entries;
    const stored = snapshot.#stored as readonly StoredSlice<unknown>[];
    const base = snapshot.#versionBase;
    const deltas = snapshot.#versionDeltas as readonly number[];
    const maker = snapshot.#body.source as DeferredCapture['maker'];
    const entries = new Array<SnapshotSlice>(stored.length);
    for (let i = 0; i < stored.length; i++) entries[i] = maker.entry(i, stored[i] as StoredSlice<unknown>, base + (deltas[i] as number));
    snapshot.#entries = Object.freeze(entries);
    return snapshot.#entries;
  }
  toJSON(): SnapshotJSON {
    const body = this.#body;
    const out: Record<string, { policy: SlicePolicy; schemaVersion?: number; items: readonly unknown[]; appended?: number }> = {};
    const source = body.source as Partial<SnapshotProvenance> | undefined;
    const defOf = source !== undefined && source !== null && typeof source.defOf === 'function' ? source.defOf : undefined;
    const entries = FrozenSnapshot.#entryList(this);
    for (let i = 0; i < body.names.length; i++) {
      const s = entries[i] as SnapshotSlice;
      const name = body.names[i] as string;
      // The schema version of the definition that made the items, when the maker says which;
      // a hand-made snapshot writes none (read as version 1).
      const schemaVersion = defOf?.(name)?.version;
      const items = jsonItems(s.items);
      const entry: { policy: SlicePolicy; schemaVersion?: number; items: readonly unknown[]; appended?: number } =
        schemaVersion === undefined ? { policy: s.policy, items } : { policy: s.policy, schemaVersion, items };
      // How many items the slice ever appended, when more than it holds (it evicted or cleared):
      // a seeded sampling window draws from it, so a restore from JSON goes on drawing alike.
      const appended = s.stored?.appended;
      if (appended !== undefined && appended > s.items.length) entry.appended = appended;
      out[name] = entry;
    }
    return {
      format: 'rxslice.snapshot',
      formatVersion: SNAPSHOT_FORMAT_VERSION,
      id: this.id,
      parents: [...this.parents],
      seq: this.seq,
      at: this.at,
      ...(this.tag === undefined ? {} : { tag: this.tag }),
      slices: out,
    };
  }
  /** @internal The storage captures of its slices (see {@link snapshotCaptures}). */
  static captures(snapshot: Snapshot): readonly (StoredSlice<unknown> | undefined)[] | undefined {
    if (!(#body in snapshot)) return undefined;
    return snapshot.#stored !== undefined ? snapshot.#stored : FrozenSnapshot.#entryList(snapshot).map((entry) => entry.stored);
  }
  /** @internal The private half of a snapshot made by this module, or `undefined` for any other value. */
  static bodyOf(snapshot: Snapshot): SnapshotBody | undefined {
    return #body in snapshot ? snapshot.#body : undefined;
  }
}


/**
 * The items of a snapshot entry as `toJSON` hands them to `JSON.stringify`: an array with the
 * same elements that `JSON.stringify` walks on V8's fast path. A storage's read-only view is
 * copied with `slice()` (natively; `JSON.stringify` would read a view's elements one by one
 * through its proxy). A frozen array (a state slice's, or items read from JSON) is copied by
 * spreading it: `JSON.stringify` reads the elements of a frozen array one by one on V8's generic
 * path, and `slice()` of one takes the generic path too (~35 ns per element), while `[...items]`
 * copies ~1 ns per element into a plain array (a 10 × 1,000-item snapshot's `JSON.stringify`:
 * 1.42 ms with the copies against 1.61 ms on the frozen arrays, issue 36). Any other array is
 * handed over as it is.
 */
const jsonItems = (items: readonly unknown[]): readonly unknown[] => (isArrayView(items) ? items.slice() : Object.isFrozen(items) ? [...items] : items);

/**
 * @internal Builds a frozen snapshot of the slices `names[i]` → `entries[i]` (both arrays are
 * kept, never copied: the caller must not change them). `source` is kept privately for
 * whoever made the snapshot (see {@link snapshotSource}).
 */
export function makeSnapshot(
  seq: number,
  at: number,
  tag: string | undefined,
  names: readonly string[],
  entries: readonly SnapshotSlice[],
  source?: unknown,
  parents: readonly string[] = NO_PARENTS,
  id?: string,
): Snapshot {
  return Object.freeze(new FrozenSnapshot(seq, at, tag, parents, new SnapshotBody(seq, at, tag, parents, names, source, id), entries, undefined, 0, undefined));
}


/**
 * @internal What a session's `snapshot()` keeps per slice instead of an entry object: the
 * storage's capture and the slice version, `stored[i]` and `versionBase + versionDeltas[i]` for
 * `names[i]`. The entries are made on first read of `slices` (or `toJSON`) by `maker.entry`,
 * which may hand out one entry for every snapshot of the same capture and version. Both arrays
 * may be shared with other snapshots of the same session (the captures while no slice changed,
 * the deltas while the slices changed alike, as a whole restore changes them), so taking a
 * snapshot may allocate no array at all.
 */
export interface DeferredCapture {
  readonly stored: readonly StoredSlice<unknown>[];
  /** The version of every slice is `versionBase + versionDeltas[i]` (a number, and an array shared while the differences between the slices' versions stay the same). */
  readonly versionBase: number;
  readonly versionDeltas: readonly number[];
  readonly maker: { entry(index: number, stored: StoredSlice<unknown>, version: number): SnapshotSlice };
}

/**
 * @internal Like {@link makeSnapshot}, with the entries deferred (see {@link DeferredCapture}):
 * `stored`, `versionBase`, `versionDeltas` and `maker` are the capture's, and `maker` is also the snapshot's `source`.
 * `names` and the capture's arrays are kept, never copied: the caller must not change them.
 */
export function makeDeferredSnapshot(
  seq: number,
  at: number,
  tag: string | undefined,
  names: readonly string[],
  stored: DeferredCapture['stored'],
  versionBase: DeferredCapture['versionBase'],
  versionDeltas: DeferredCapture['versionDeltas'],
  maker: DeferredCapture['maker'],
  parents: readonly string[],
): Snapshot {
  return Object.freeze(new FrozenSnapshot(seq, at, tag, parents, new SnapshotBody(seq, at, tag, parents, names, maker, undefined), undefined, stored, versionBase, versionDeltas));
}

/** @internal The `source` a snapshot was made with (`undefined` for any other value). */
export const snapshotSource = (snapshot: Snapshot): unknown => FrozenSnapshot.bodyOf(snapshot)?.source;

/**
 * @internal What a catalogue keeps of a snapshot made by this module (its id, made on first read
 * by either, `seq`, `at`, tag, parents and slice names), holding none of its content;
 * `undefined` for any other value.
 */
export interface SnapshotIdentity extends Pick<Snapshot, 'seq' | 'at' | 'tag' | 'parents'> {
  readonly names: readonly string[];
  idOf(): string;
}
export const snapshotIdentity = (snapshot: Snapshot): SnapshotIdentity | undefined => FrozenSnapshot.bodyOf(snapshot);

/**
 * @internal What a snapshot's maker vouches for: the slice definition whose schema (and, in a
 * session, whose reducers) made the items of slice `name`. A `source` passed to
 * {@link makeSnapshot} may implement it.
 */
export interface SnapshotProvenance {
  defOf(name: string): SliceDef<string, unknown> | undefined;
}

/** @internal The definition a snapshot's maker checked slice `name` against, if it says so. */
export function checkedDefOf(snapshot: Snapshot, name: string): SliceDef<string, unknown> | undefined {
  const source = snapshotSource(snapshot) as Partial<SnapshotProvenance> | undefined;
  return source !== undefined && source !== null && typeof source.defOf === 'function' ? source.defOf(name) : undefined;
}

/**
 * Makes one snapshot that lives as long as the module (held by the snapshot class itself: a
 * module-level constant that no function reads may live on the stack of the module's top-level
 * code only, and die with it). It keeps the hidden class of frozen snapshots
 * alive. V8 drops optimized code that embeds a hidden class once no object of that class is
 * left ("weak objects" deoptimization); without this one, a garbage collection at a moment when
 * no snapshot happened to be alive threw away the optimized snapshot and restore paths, and the
 * next thousands of calls ran unoptimized again (bench 7m read 2-5× slower in such runs). Its
 * fields hold values of the types a session's snapshot holds (`at` a clock reading that is not a
 * small integer, a frozen `parents` array): another type would give it another hidden class.
 */
function keepSnapshotClassAlive(): void {
  FrozenSnapshot.keptAlive = makeDeferredSnapshot(0, 0.5, undefined, NO_PARENTS, [], 0, [], { entry: () => undefined as never }, Object.freeze(['']));
}
keepSnapshotClassAlive();

/**
 * @internal The parents of the snapshots a session takes after restoring `snapshot` under `id`
 * (`[id]`, frozen; made once per snapshot when `id` is its own).
 */
export function parentsAfterRestoring(snapshot: Snapshot, id: string): readonly string[] {
  const body = FrozenSnapshot.bodyOf(snapshot);
  if (body === undefined || body.id !== id) return Object.freeze([id]);
  return ((body.restores ??= new RestoreCache()).asParent ??= Object.freeze([id]));
}

/** The shape of a restored event that {@link restoreEventOf} reads: its payload's names and snapshot id. */
interface RestoreEvent {
  readonly payload: { readonly slices: readonly string[]; readonly snapshotId?: string | undefined };
}

/**
 * @internal The event of a restore of `names` of `snapshot` under `id` (its `rxslice.session.restored`
 * event): `make()` the first time, then the same (frozen) event while the snapshot is restored with
 * the same names list and id, as restoring one snapshot again and again does (undo/redo, a
 * transaction's rollback point): no event or payload object per restore. `make()` every time for
 * a snapshot not made by this module.
 */
export function restoreEventOf<T extends RestoreEvent>(
  snapshot: Snapshot,
  names: readonly string[],
  id: string | undefined,
  make: (snapshot: Snapshot, names: readonly string[], id: string | undefined) => T,
): T {
  const body = FrozenSnapshot.bodyOf(snapshot);
  if (body === undefined) return make(snapshot, names, id);
  const restores = (body.restores ??= new RestoreCache());
  const last = restores.event as T | undefined;
  if (last !== undefined && last.payload.slices === names && last.payload.snapshotId === id) return last;
  return (restores.event = deepFreeze(make(snapshot, names, id)));
}

/**
 * @internal The storage captures of the slices (in the order of its names) of a snapshot made by
 * {@link makeSnapshot} or {@link makeDeferredSnapshot} (`undefined` for a slice whose entry has
 * none), without making its entries.
 */
export const snapshotCaptures: (snapshot: Snapshot) => readonly (StoredSlice<unknown> | undefined)[] | undefined = FrozenSnapshot.captures;


/**
 * @internal The names of the slices of `snapshot`, without making its entries (a snapshot made by
 * this module), else its `slices` record's keys.
 */
export function snapshotSliceNames(snapshot: Snapshot): readonly string[] {
  return FrozenSnapshot.bodyOf(snapshot)?.names ?? Object.keys(snapshot.slices);
}
