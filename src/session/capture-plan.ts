// The capture plan of a session's snapshots (which slices, their storages, what the last
// snapshot and restore of the plan left to share) and the plan's pure steps: the lists kept
// between snapshots, and the direct restore of memory slices (session-snapshots.ts uses them).
import type { SliceDef } from '../slices/reducer';
import type { SnapshotSlice } from '../snapshots/snapshot';
import type { SliceStorage, StoredSlice } from '../storage/slice-storage';
import type { MemoryStorage } from '../storage/memory-storage';
import type { SessionSnapshots } from './session-snapshots';
import type { SliceRecord } from './slice-handle';

/**
 * @internal The slices a session's `snapshot()` captures, in registration order, with their last entries.
 * Every snapshot keeps its plan (privately), so restoring it needs no lookups by name.
 */
export interface CapturePlan extends RestoredSlices {
  /** The session's snapshots: tells its own snapshots from any other. */
  readonly owner: SessionSnapshots;
  /** How many slices the session had when the plan was made. */
  readonly recordCount: number;
  readonly names: readonly string[];
  readonly records: readonly SliceRecord<any>[];
  /** The slices' storages, in plan order (read by every snapshot: one load fewer a slice than through the records). */
  readonly storages: readonly SliceStorage<unknown>[];
  /** `storages` when every one is a `MemoryStorage` (the only ones a restore may swap in directly), else `undefined`. */
  readonly memory: readonly MemoryStorage<unknown>[] | undefined;
  /** The entry of slice `index` for `stored` at `version`: shared by the snapshots of the slice's current capture and version. */
  entry(index: number, stored: StoredSlice<unknown>, version: number): SnapshotSlice;
  /**
   * The last two capture lists found swappable by {@link swapped} (their captures are contents of
   * memory storages without a window memo: what the direct restore checks per slice, and what
   * never changes for a list, as committed contents are immutable and lists are never written).
   * Two: undo and redo restore two snapshots in turn.
   */
  swappable: [readonly StoredSlice<unknown>[] | undefined, readonly StoredSlice<unknown>[] | undefined];
  /** {@link SessionSnapshots.windowChanges} when no slice of the plan had a window (checked with {@link swappable}'s lists), else -1. */
  windowlessAt: number;
  /** The captures of the plan's last snapshot taken, or restored whole (shared by the next snapshot when no slice changed since). */
  lastStored: readonly StoredSlice<unknown>[] | undefined;
  /** The version differences (`version - version of the first slice`) of the plan's last snapshot taken (shared by the next snapshot when they did not change). */
  deltas: readonly number[] | undefined;
  /**
   * The session's `lastSeq` at which {@link lastStored} and {@link deltas} were exactly the
   * storages' captures and version differences (set by a snapshot, and carried over a whole
   * restore swapped in right after one), else -1. Slices change only in a commit, which moves
   * `lastSeq` on: while it stays, the next snapshot reads no storage but the first's version.
   */
  validAt: number;
  /** The definition of slice `name` (a `SnapshotProvenance`: another session with the same definitions trusts the items). */
  defOf(name: string): SliceDef<string, unknown> | undefined;
}

/**
 * @internal The slices a whole-snapshot restore changed, in plan order, with their names (frozen)
 * and, made on first use, the set of those names: what the commit publishes, made once per plan.
 */
export interface RestoredSlices {
  readonly records: readonly SliceRecord<any>[];
  readonly names: readonly string[];
  nameSet(): ReadonlySet<string>;
}

/**
 * `made` with `value` at `i`; or, while `made` is `undefined` (every value so far equal to
 * `last`'s), `undefined` when `value` is `last[i]` too, else a new list of `last`'s first `i`
 * values and `value`. Two copies, one per element type (captures, version differences): one
 * generic function would see arrays of both kinds and stay polymorphic in the snapshot's loop.
 */
export function keptCapture(made: StoredSlice<unknown>[] | undefined, last: readonly StoredSlice<unknown>[] | undefined, i: number, value: StoredSlice<unknown>): StoredSlice<unknown>[] | undefined {
  if (made === undefined) {
    if (last !== undefined && last[i] === value) return undefined;
    made = last === undefined ? [] : last.slice(0, i);
  }
  made[i] = value;
  return made;
}

/** {@link keptCapture} for the version differences. */
export function keptDelta(made: number[] | undefined, last: readonly number[] | undefined, i: number, value: number): number[] | undefined {
  if (made === undefined) {
    if (last !== undefined && last[i] === value) return undefined;
    made = last === undefined ? [] : last.slice(0, i);
  }
  made[i] = value;
  return made;
}

/**
 * Restores a whole snapshot of memory slices without windows by swapping each slice's captured
 * content back in (O(1) per slice, no stage), when every slice allows it; else changes nothing
 * and returns false (the caller stages the restore). `storages` are the plan's (checked to be
 * memory storages once when it was made). Only for a restore that nothing else in the same
 * event can change or fail (see `SessionCore.reduceSystem`). A capture list found swappable
 * once is not checked again slice by slice, only the windows when one changed since
 * (`windowChanges`): issue 36, the checks were ~10 % of 7m's iteration.
 */
export function swapped(plan: CapturePlan, storages: readonly MemoryStorage<unknown>[], captures: readonly StoredSlice<unknown>[], windowChanges: number): boolean {
  const known = plan.swappable;
  // A known list needs no check of the stages either: none is open while a restored event is
  // reduced on this path (stages open per envelope through `pendingOf`, and this step runs before
  // any route of its envelope; the storages' own writes close theirs before they return).
  if (captures !== known[0] && captures !== known[1]) {
    const records = plan.records;
    for (let i = 0; i < records.length; i++) {
      if ((records[i] as SliceRecord<any>).window !== undefined || !(storages[i] as MemoryStorage<unknown>).canSwapCapture(captures[i] as StoredSlice<unknown>)) return false;
    }
    known[1] = known[0];
    known[0] = captures;
    plan.windowlessAt = windowChanges;
  } else if (plan.windowlessAt !== windowChanges) {
    const records = plan.records;
    for (let i = 0; i < records.length; i++) if ((records[i] as SliceRecord<any>).window !== undefined) return false;
    plan.windowlessAt = windowChanges;
  }
  for (let i = 0; i < storages.length; i++) (storages[i] as MemoryStorage<unknown>).swapCapture(captures[i] as StoredSlice<unknown>);
  return true;
}
