import { isRxSliceError } from '../internal/errors';
import type { SnapshotQuery, SnapshotStore } from '../snapshot-store/snapshot-store';
import type { SnapshotInfo } from '../snapshot-store/store-contract';
import { InvalidSnapshotError } from '../snapshots/codec';
import type { Snapshot } from '../snapshots/snapshot';
import { InvalidSnapshotStoreOptionError, NoSnapshotStoreError } from './errors';

// Type-only imports from snapshot-store/: the session never loads the store's code (nor its
// optional picomatch peer); it only calls the store it was given.

/**
 * @internal Checks `createSession({ snapshotStore })`: absent, or an object with `find` and `lineage`.
 * @throws {@link InvalidSnapshotStoreOptionError}
 */
export function checkSnapshotStore(store: unknown): SnapshotStore | undefined {
  if (store === undefined) return undefined;
  const s = store as Partial<SnapshotStore> | null;
  if (s === null || typeof s !== 'object' || typeof s.find !== 'function' || typeof s.lineage !== 'function') {
    throw new InvalidSnapshotStoreOptionError();
  }
  return store as SnapshotStore;
}

/** @internal `session.findSnapshots`: the store's `find`, or a rejection naming what is missing. */
export function findSnapshots(store: SnapshotStore | undefined, query: SnapshotQuery | undefined): Promise<SnapshotInfo[]> {
  if (store === undefined) return Promise.reject(new NoSnapshotStoreError('session.findSnapshots'));
  return store.find(query);
}

/**
 * @internal `session.snapshotLineage`: the lineage of a snapshot (or of the id of a stored one),
 * oldest first and ending with the snapshot itself. A snapshot not in the store (taken and not
 * saved) ends the list as an entry made from it (`saved: 0`), after the stored lineage of its
 * first parent.
 */
export async function snapshotLineage(store: SnapshotStore | undefined, target: Snapshot | string): Promise<SnapshotInfo[]> {
  if (store === undefined) throw new NoSnapshotStoreError('session.snapshotLineage');
  if (typeof target === 'string') return (await store.lineage(target)).reverse();
  const own = infoOf(target);
  const stored = await storedLineage(store, own.id);
  if (stored !== undefined) return stored;
  const parent = own.parents[0];
  const ancestors = parent === undefined ? [] : ((await storedLineage(store, parent)) ?? []);
  return [...ancestors, own];
}

/** The stored lineage of `id`, oldest first, or `undefined` when the store does not hold `id`. */
async function storedLineage(store: SnapshotStore, id: string): Promise<SnapshotInfo[] | undefined> {
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
