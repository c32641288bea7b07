import type { SlicePolicy } from '../slices/reducer';
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
  readonly slices: Readonly<Record<string, { readonly policy: SlicePolicy; readonly items: readonly unknown[] }>>;
}

/**
 * An immutable capture of a session's slices at one sequence number. Taking it is
 * O(number of slices): items are shared with the session, never copied.
 * `JSON.stringify(snapshot)` writes the versioned JSON form.
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

/** The JSON format version this build writes. */
export const SNAPSHOT_FORMAT_VERSION = 1;

/** @internal Builds a frozen snapshot value. */
export function makeSnapshot(
  seq: number,
  at: number,
  tag: string | undefined,
  slices: Record<string, SnapshotSlice>,
): Snapshot {
  Object.freeze(slices);
  const snapshot: Snapshot = {
    formatVersion: SNAPSHOT_FORMAT_VERSION,
    seq,
    at,
    tag,
    slices,
    toJSON(): SnapshotJSON {
      const out: Record<string, { policy: SlicePolicy; items: readonly unknown[] }> = {};
      for (const name of Object.keys(slices)) {
        const s = slices[name] as SnapshotSlice;
        out[name] = { policy: s.policy, items: Array.from(s.items) };
      }
      return {
        format: 'rxslice.snapshot',
        formatVersion: SNAPSHOT_FORMAT_VERSION,
        seq,
        at,
        ...(tag === undefined ? {} : { tag }),
        slices: out,
      };
    },
  };
  return Object.freeze(snapshot);
}
