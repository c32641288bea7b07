import type { SliceDef, SlicePolicy } from '../slices/reducer';
import type { StoredSlice } from '../storage/slice-storage';
import type { Snapshot } from './snapshot-ops';

/** One slice inside a {@link Snapshot}: its policy, version and immutable items. */
export interface SnapshotSlice<TItem = unknown> {
  /** The slice's policy (`state` or `log`) when the snapshot was taken. */
  readonly policy: SlicePolicy;
  /** The schema version of the items (see `SliceDef.version`). */
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

let fallbackIds = 0;
/** A new snapshot id: `crypto.randomUUID()` (Node ≥ 19, browsers), else a time-and-counter id. */
export function newSnapshotId(): string {
  const c = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  if (typeof c?.randomUUID === 'function') return c.randomUUID();
  return `s-${Date.now().toString(36)}-${(fallbackIds++).toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}

const NO_PARENTS: readonly string[] = Object.freeze([]);

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
  #id: string | undefined;
  constructor(
    readonly seq: number,
    readonly at: number,
    readonly tag: string | undefined,
    names: readonly string[],
    entries: readonly SnapshotSlice[],
    source: unknown,
    readonly parents: readonly string[],
    id: string | undefined,
  ) {
    this.#names = names;
    this.#entries = entries;
    this.#source = source;
    this.#id = id;
  }
  get id(): string {
    if (this.#id === undefined) this.#id = newSnapshotId();
    return this.#id;
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
      id: this.id,
      parents: [...this.parents],
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
  /** @internal */
  static namesOf(snapshot: Snapshot): readonly string[] | undefined {
    return #names in snapshot ? snapshot.#names : undefined;
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
  parents: readonly string[] = NO_PARENTS,
  id?: string,
): Snapshot {
  return Object.freeze(new FrozenSnapshot(seq, at, tag, names, entries, source, parents, id));
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

/** @internal The slice names of a snapshot made by {@link makeSnapshot}, in capture order. */
export const snapshotNames = (snapshot: Snapshot): readonly string[] | undefined => FrozenSnapshot.namesOf(snapshot);
