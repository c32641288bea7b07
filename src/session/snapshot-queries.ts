import { isRxSliceError } from '../internal/errors';
import type { SnapshotQuery } from '../snapshot-store/read-query';
import { DEFAULT_CATALOGUED_SNAPSHOTS, SnapshotCatalogue, type SnapshotCatalogueOptions } from '../snapshot-store/snapshot-catalogue';
import type { SnapshotStore } from '../snapshot-store/snapshot-store';
import type { SnapshotInfo } from '../snapshot-store/store-contract';
import { InvalidSnapshotError } from '../snapshots/codec';
import type { Snapshot } from '../snapshots/snapshot';
import { InvalidSnapshotCatalogueOptionError, InvalidSnapshotStoreOptionError, NoSnapshotStoreError, SnapshotSaveError } from './errors';

// Type-only imports from snapshot-store/snapshot-store.ts: the session never loads the store's
// code (nor its optional picomatch peer); it only calls the store it was given. The catalogue it
// keeps without a store (snapshot-catalogue.ts) matches tags with its own globs (tag-glob.ts).

/** @internal What answers `session.findSnapshots` and `session.snapshotLineage`: the store, or the session's catalogue. */
export type SnapshotQueries = Pick<SnapshotStore, 'find' | 'lineage'>;

/**
 * @internal What a session does with each snapshot it takes for its caller (`session.snapshot()`):
 * catalogue it, or hand it to the store; `undefined` for neither (`snapshotCatalogue: false`).
 */
export interface SnapshotKeeper {
  readonly queries: SnapshotQueries | undefined;
  /** Called with every snapshot `session.snapshot()` returns; O(1), never throws. */
  readonly keep: ((snapshot: Snapshot) => void) | undefined;
}

/**
 * @internal Reads `createSession({ snapshotStore, snapshotCatalogue })`: a store (checked: an object
 * with `save`, `find` and `lineage`) takes every snapshot, its failures reported with `report`;
 * else the session keeps a catalogue of its last `keepLast` snapshots (default 100), unless
 * `snapshotCatalogue` is `false`.
 * @throws {@link InvalidSnapshotStoreOptionError}, {@link InvalidSnapshotCatalogueOptionError}
 */
export function snapshotKeeper(store: unknown, catalogue: unknown, now: () => number, report: (error: SnapshotSaveError) => void): SnapshotKeeper {
  if (store !== undefined) {
    const s = store as Partial<SnapshotStore> | null;
    if (s === null || typeof s !== 'object' || typeof s.save !== 'function' || typeof s.find !== 'function' || typeof s.lineage !== 'function') {
      throw new InvalidSnapshotStoreOptionError();
    }
    if (catalogue !== undefined) throw new InvalidSnapshotCatalogueOptionError('give either snapshotStore or snapshotCatalogue: with a store, the store is the catalogue (its retention is store.forget)');
    const given = store as SnapshotStore;
    const failed = (snapshot: Snapshot) => (error: unknown) => report(new SnapshotSaveError(snapshot.id, snapshot.tag, error));
    return {
      queries: given,
      keep(snapshot) {
        try {
          given.save(snapshot).then(undefined, failed(snapshot));
        } catch (error) {
          failed(snapshot)(error);
        }
      },
    };
  }
  if (catalogue === false) return { queries: undefined, keep: undefined };
  if (catalogue !== undefined && (catalogue === null || typeof catalogue !== 'object' || Array.isArray(catalogue))) {
    throw new InvalidSnapshotCatalogueOptionError(`expected { keepLast?, maxAgeMs? } or false (got ${catalogue === null ? 'null' : Array.isArray(catalogue) ? 'an array' : typeof catalogue})`);
  }
  const { keepLast = DEFAULT_CATALOGUED_SNAPSHOTS, maxAgeMs } = (catalogue ?? {}) as SnapshotCatalogueOptions;
  if (!(Number.isSafeInteger(keepLast) && keepLast >= 1)) throw new InvalidSnapshotCatalogueOptionError(`keepLast must be an integer ≥ 1 (got ${String(keepLast)}); pass snapshotCatalogue: false to keep none`);
  if (maxAgeMs !== undefined && !(typeof maxAgeMs === 'number' && maxAgeMs > 0)) throw new InvalidSnapshotCatalogueOptionError(`maxAgeMs must be a number of ms > 0 (got ${String(maxAgeMs)})`);
  const kept = new SnapshotCatalogue(keepLast, maxAgeMs, now);
  return { queries: kept, keep: (snapshot) => kept.add(snapshot) };
}

/** @internal `session.findSnapshots`: the store's or catalogue's `find`, or a rejection naming what is missing. */
export function findSnapshots(store: SnapshotQueries | undefined, query: SnapshotQuery | undefined): Promise<SnapshotInfo[]> {
  if (store === undefined) return Promise.reject(new NoSnapshotStoreError('session.findSnapshots'));
  return store.find(query);
}

/**
 * @internal `session.snapshotLineage`: the lineage of a snapshot (or of the id of a stored one),
 * oldest first and ending with the snapshot itself. A snapshot not in the store (taken and not
 * saved) ends the list as an entry made from it (`saved: 0`), after the stored lineage of its
 * first parent.
 */
export async function snapshotLineage(store: SnapshotQueries | undefined, target: Snapshot | string): Promise<SnapshotInfo[]> {
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
