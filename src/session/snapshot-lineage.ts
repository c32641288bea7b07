import { isRxSliceError } from '../internal/errors';
import type { SnapshotInfo } from '../snapshot-store/store-contract';
import { InvalidSnapshotError } from '../snapshots/codec';
import type { Snapshot } from '../snapshots/snapshot';
import type { SnapshotQueries } from './snapshot-queries';

// Loaded by `snapshotLineage` (snapshot-queries.ts) with `import()` on the first call (docs/SIZE.md).

/**
 * @internal `session.snapshotLineage` with a store or catalogue: the lineage of a snapshot (or of the id of a stored one),
 * oldest first and ending with the snapshot itself. A snapshot not in the store (taken and not
 * saved) ends the list as an entry made from it (`saved: 0`), after the stored lineage of its
 * first parent.
 */
export async function lineageOf(store: SnapshotQueries, target: Snapshot | string): Promise<SnapshotInfo[]> {
  if (typeof target === 'string') return (await store.lineage(target)).reverse();
  const own = infoOf(target);
  const stored = await storedLineage(store, own.id);
  if (stored !== undefined) return stored;
  const parent = own.parents[0];
  const ancestors = parent === undefined ? [] : ((await storedLineage(store, parent)) ?? []);
  return [...ancestors, own];
}

/** The stored lineage of `id`, oldest first, or `undefined` when the store does not hold `id`. */
async function storedLineage(store: SnapshotQueries, id: string): Promise<SnapshotInfo[] | undefined> {
  try {
    return (await store.lineage(id)).reverse();
  } catch (error) {
    if (isRxSliceError(error) && error.code === 'SNAPSHOT_NOT_FOUND') return undefined;
    throw error;
  }
}

/** What a store would keep about `snapshot`, read once and checked. @throws {@link InvalidSnapshotError} */
function infoOf(snapshot: Snapshot): SnapshotInfo {
  if (snapshot === null || typeof snapshot !== 'object') {
    throw new InvalidSnapshotError(`snapshotLineage expects a snapshot or a snapshot id, got ${snapshot === null ? 'null' : typeof snapshot}`);
  }
  const { id, tag, seq, at, parents, slices } = snapshot;
  if (typeof id !== 'string' || id.length === 0) throw new InvalidSnapshotError('snapshotLineage: the snapshot has no id');
  if (!Array.isArray(parents) || !parents.every((p) => typeof p === 'string')) throw new InvalidSnapshotError('snapshotLineage: the snapshot has no parents list');
  if (slices === null || typeof slices !== 'object') throw new InvalidSnapshotError('snapshotLineage: the snapshot has no slices record');
  return Object.freeze({ id, tag, seq, at, parents: Object.freeze([...parents]), slices: Object.freeze(Object.keys(slices)), saved: 0 });
}
