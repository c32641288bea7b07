import type { SliceDef, SlicePolicy } from '../slices/reducer';
import type { StoredSlice } from '../storage/slice-storage';

/** One slice inside a {@link Snapshot}: its policy, version and immutable items. */
export interface SnapshotSlice<TItem = unknown> {
  readonly policy: SlicePolicy;
  readonly version: number;
  readonly items: readonly TItem[];
  /** @internal The storage's capture, restored without copying when the backend allows. */
  readonly stored?: StoredSlice<TItem>;
}

/** The JSON form of a snapshot (see `Snapshot.toJSON`). */
export interface SnapshotJSON {
  readonly format: 'rxslice.snapshot';
  readonly formatVersion: number;
  readonly seq: number;
  readonly at: number;
  readonly tag?: string;
  readonly slices: Readonly<
    Record<
      string,
      {
        readonly policy: SlicePolicy;
        /** The slice's schema version (`defineSlice({ version })`) the items were written at; absent means 1. */
        readonly schemaVersion?: number;
        readonly items: readonly unknown[];
      }
    >
  >;
}

/**
 * An immutable capture of a session's slices at one sequence number. Taking it is
 * O(number of slices): items are shared with the session, never copied, and a slice that
 * did not change since the previous snapshot shares that snapshot's entry.
 * `JSON.stringify(snapshot)` writes the versioned JSON form.
 *
 * @remarks The snapshot and its `slices` record are frozen. In a session's snapshot the
 * entries and their items are frozen as the session freezes its items (its `freeze` option,
 * off in production); `snapshotFromJSON` deep-freezes everything it reads. Later changes to
 * the session never show through a snapshot.
 */
export interface Snapshot {
  readonly formatVersion: number;
  /** `seq` of the last envelope committed before the capture (0 when none). */
  readonly seq: number;
  /** Scheduler time (ms) of the capture. */
  readonly at: number;
  readonly tag: string | undefined;
  readonly slices: Readonly<Record<string, SnapshotSlice>>;
  toJSON(): SnapshotJSON;
}

/**
 * The JSON format version this build writes. 2 added each slice's `schemaVersion`; format 1
 * (no schema versions: every slice at version 1) is still read.
 */
export const SNAPSHOT_FORMAT_VERSION = 2;

/**
 * The snapshot value. Kept as parallel arrays of names and entries: `slices` is built (and
 * frozen) on first read, and `toJSON` lives on the prototype, so taking a snapshot costs one
 * small object per slice at most. Whoever made it may keep a private `source` in it (a
 * session keeps its restore plan), invisible to `Object.keys`, `JSON.stringify` and equality.
 */
class FrozenSnapshot implements Snapshot {
  readonly formatVersion = SNAPSHOT_FORMAT_VERSION;
  readonly #names: readonly string[];
  readonly #entries: readonly SnapshotSlice[];
  readonly #source: unknown;
  #slices: Readonly<Record<string, SnapshotSlice>> | undefined = undefined;
  constructor(
    readonly seq: number,
    readonly at: number,
    readonly tag: string | undefined,
    names: readonly string[],
    entries: readonly SnapshotSlice[],
    source: unknown,
  ) {
    this.#names = names;
    this.#entries = entries;
    this.#source = source;
  }
  get slices(): Readonly<Record<string, SnapshotSlice>> {
    if (this.#slices === undefined) {
      const slices: Record<string, SnapshotSlice> = {};
      for (let i = 0; i < this.#names.length; i++) slices[this.#names[i] as string] = this.#entries[i] as SnapshotSlice;
      this.#slices = Object.freeze(slices);
    }
    return this.#slices;
  }
  toJSON(): SnapshotJSON {
    const out: Record<string, { policy: SlicePolicy; schemaVersion?: number; items: readonly unknown[] }> = {};
    const source = this.#source as Partial<SnapshotProvenance> | undefined;
    const defOf = source !== undefined && source !== null && typeof source.defOf === 'function' ? source.defOf : undefined;
    for (let i = 0; i < this.#names.length; i++) {
      const s = this.#entries[i] as SnapshotSlice;
      const name = this.#names[i] as string;
      // The schema version of the definition that made the items, when the maker says which;
      // a hand-made snapshot writes none (read as version 1).
      const schemaVersion = defOf?.(name)?.version;
      // `slice()` copies natively, also for the storage's read-only views (iterating a view
      // element by element goes through its proxy).
      out[name] = schemaVersion === undefined ? { policy: s.policy, items: s.items.slice() } : { policy: s.policy, schemaVersion, items: s.items.slice() };
    }
    return {
      format: 'rxslice.snapshot',
      formatVersion: SNAPSHOT_FORMAT_VERSION,
      seq: this.seq,
      at: this.at,
      ...(this.tag === undefined ? {} : { tag: this.tag }),
      slices: out,
    };
  }
  /** @internal */
  static sourceOf(snapshot: Snapshot): unknown {
    return #source in snapshot ? snapshot.#source : undefined;
  }
  /** @internal */
  static entriesOf(snapshot: Snapshot): readonly SnapshotSlice[] | undefined {
    return #entries in snapshot ? snapshot.#entries : undefined;
  }
}

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
): Snapshot {
  return Object.freeze(new FrozenSnapshot(seq, at, tag, names, entries, source));
}

/** @internal The `source` a snapshot was made with (`undefined` for any other value). */
export const snapshotSource = (snapshot: Snapshot): unknown => FrozenSnapshot.sourceOf(snapshot);

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

/** @internal The entries of a snapshot made by {@link makeSnapshot}, in the order of its names. */
export const snapshotEntries = (snapshot: Snapshot): readonly SnapshotSlice[] | undefined => FrozenSnapshot.entriesOf(snapshot);
