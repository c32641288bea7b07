// The snapshot store's contract, apart from its picomatch-based implementation, so that
// backends (rxslice/storage/jsonl's snapshotDirectory) do not pull picomatch in.
import { RxSliceError } from '../internal/errors';
import type { Snapshot } from '../snapshots/snapshot';

/** What a snapshot store keeps about each snapshot besides its slices (JSON data). */
export interface SnapshotInfo {
  readonly id: string;
  readonly tag: string | undefined;
  /** `seq` of the snapshot (its position in the session's event sequence). */
  readonly seq: number;
  /** Capture time of the snapshot (ms, the session scheduler's clock; `Date.now()` by default). */
  readonly at: number;
  /** Lineage: ids of the snapshots it was restored or merged from. */
  readonly parents: readonly string[];
  /** Names of the slices it holds. */
  readonly slices: readonly string[];
  /** Save order within the store (ties of `at` are ordered by it). */
  readonly saved: number;
}

/**
 * Where a snapshot store keeps snapshots: {@link memorySnapshots}, or `snapshotDirectory(dir,
 * { slices })` from `rxslice/storage/jsonl` (atomic files). Implement it to keep them elsewhere.
 */
export interface SnapshotStoreBackend {
  /** Stores `snapshot` under `info.id`, replacing any snapshot of that id. */
  put(info: SnapshotInfo, snapshot: Snapshot): Promise<void>;
  /** The snapshot of `id`, or `undefined`. A backend that reads untrusted data validates it. */
  get(id: string): Promise<Snapshot | undefined>;
  /** Every stored snapshot's info, in any order. */
  list(): Promise<readonly SnapshotInfo[]>;
  /** Removes the snapshot of `id` (nothing when absent). */
  delete(id: string): Promise<void>;
}

/** Thrown by a snapshot store: an unknown id, a bad query or retention option, an id unfit for storage. */
export class SnapshotStoreError extends RxSliceError {
  override readonly name = 'SnapshotStoreError';
  constructor(code: 'SNAPSHOT_NOT_FOUND' | 'INVALID_SNAPSHOT_QUERY' | 'INVALID_SNAPSHOT_ID', message: string) {
    super(code, message);
  }
}

/** True for an id a store accepts (also a safe file name on every platform). */
export const isStorableId = (id: unknown): id is string => typeof id === 'string' && /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,199}$/.test(id);

