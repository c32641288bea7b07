import { codedMessage } from '../internal/coded-message';
import { DEV } from '../internal/dev';
import type { SnapshotQuery } from '../snapshot-store/read-query';
import { DEFAULT_CATALOGUED_SNAPSHOTS, SnapshotCatalogue, type SnapshotCatalogueOptions } from '../snapshot-store/snapshot-catalogue';
import type { SnapshotStore } from '../snapshot-store/snapshot-store';
import type { SnapshotInfo } from '../snapshot-store/store-contract';
import type { Snapshot } from '../snapshots/snapshot';
import { InvalidSnapshotCatalogueOptionError, InvalidSnapshotStoreOptionError, NoSnapshotStoreError, SnapshotSaveError } from './errors';
import { clip } from '../internal/quote';

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
    if (catalogue !== undefined) throw new InvalidSnapshotCatalogueOptionError(!DEV ? codedMessage('E61', 'both') : 'give either snapshotStore or snapshotCatalogue: with a store, the store is the catalogue (its retention is store.forget)');
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
    const got = catalogue === null ? 'null' : Array.isArray(catalogue) ? 'an array' : typeof catalogue;
    throw new InvalidSnapshotCatalogueOptionError(!DEV ? codedMessage('E62', got) : `expected { keepLast?, maxAgeMs? } or false (got ${got})`);
  }
  const { keepLast = DEFAULT_CATALOGUED_SNAPSHOTS, maxAgeMs } = (catalogue ?? {}) as SnapshotCatalogueOptions;
  if (!(Number.isSafeInteger(keepLast) && keepLast >= 1)) throw new InvalidSnapshotCatalogueOptionError(!DEV ? codedMessage('E63', clip(keepLast)) : `keepLast must be an integer ≥ 1 (got ${clip(keepLast)}); pass snapshotCatalogue: false to keep none`);
  if (maxAgeMs !== undefined && !(typeof maxAgeMs === 'number' && maxAgeMs > 0)) throw new InvalidSnapshotCatalogueOptionError(`maxAgeMs must be a number of ms > 0 (got ${clip(maxAgeMs)})`);
  const kept = new SnapshotCatalogue(keepLast, maxAgeMs, now);
  return { queries: kept, keep: (snapshot) => kept.add(snapshot) };
}

/** @internal `session.findSnapshots`: the store's or catalogue's `find`, or a rejection naming what is missing. */
export function findSnapshots(store: SnapshotQueries | undefined, query: SnapshotQuery | undefined): Promise<SnapshotInfo[]> {
  if (store === undefined) return Promise.reject(new NoSnapshotStoreError('session.findSnapshots'));
  return store.find(query);
}

/**
 * @internal `session.snapshotLineage` (see snapshot-lineage.ts), its code loaded with `import()` on
 * the first call: a program that never asks for a lineage does not load it.
 */
export function snapshotLineage(store: SnapshotQueries | undefined, target: Snapshot | string): Promise<SnapshotInfo[]> {
  if (store === undefined) return Promise.reject(new NoSnapshotStoreError('session.snapshotLineage'));
  return import('./snapshot-lineage').then((l) => l.lineageOf(store, target));
}
