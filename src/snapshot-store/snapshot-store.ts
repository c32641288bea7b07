import picomatch from 'picomatch';
import type { Snapshot } from '../snapshots/snapshot';
import { newestFirst, readQuery, type SnapshotQuery } from './read-query';
import { isStorableId, SnapshotStoreError, type SnapshotInfo, type SnapshotStoreBackend } from './store-contract';
import { clip, quote } from '../internal/quote';

export type { SnapshotQuery };


/** Options of {@link SnapshotStore.forget}. At least one is required. */
export interface RetentionOptions {
  /** Keep the newest `keepLast` snapshots (by capture time, then save order). */
  readonly keepLast?: number;
  /** Keep every tagged snapshot (`true`), or those whose tag matches this glob. */
  readonly keepTagged?: boolean | string;
}

/** A catalogue of snapshots: save, load, find by tag / time / slice, lineage and retention. */
export interface SnapshotStore {
  /** Saves `snapshot` (by its `id`); resolves with what the store keeps about it. */
  save(snapshot: Snapshot): Promise<SnapshotInfo>;
  /** The snapshot of `id`. @throws {@link SnapshotStoreError} `SNAPSHOT_NOT_FOUND` */
  load(id: string): Promise<Snapshot>;
  /** The snapshots matching `query`, newest first (capture time, then save order). */
  find(query?: SnapshotQuery): Promise<SnapshotInfo[]>;
  /**
   * The lineage of `id`: the snapshot itself, then its first parent, that one's first parent, and
   * so on, while the store holds them (a merge's other parents are in each entry's `parents`).
   * @throws {@link SnapshotStoreError} `SNAPSHOT_NOT_FOUND` when `id` itself is not stored.
   */
  lineage(id: string): Promise<SnapshotInfo[]>;
  /** Deletes every snapshot that no retention option keeps; resolves with the deleted ids. */
  forget(options: RetentionOptions): Promise<string[]>;
}

/** Snapshots kept in memory (the default backend of {@link createSnapshotStore}). Snapshots are immutable, so they are kept as they are. */
export function memorySnapshots(): SnapshotStoreBackend {
  const byId = new Map<string, { info: SnapshotInfo; snapshot: Snapshot }>();
  return {
    put: async (info, snapshot) => void byId.set(info.id, { info, snapshot }),
    get: async (id) => byId.get(id)?.snapshot,
    list: async () => [...byId.values()].map((e) => e.info),
    delete: async (id) => void byId.delete(id),
  };
}

const tagMatcher = (glob: unknown, what: string): ((tag: string) => boolean) => {
  if (typeof glob !== 'string' || glob.length === 0) throw new SnapshotStoreError('INVALID_SNAPSHOT_QUERY', `${what} must be a non-empty glob such as "tool:*"`);
  return picomatch(glob, { dot: true });
};

/**
 * A snapshot catalogue over `storage` (default: memory). Saving records each snapshot's id, tag,
 * seq, capture time, parents and slice names, so `find` and `lineage` never load a snapshot's
 * items. Operations are serialised (one at a time, in call order), so `forget` never races a `save`.
 *
 * @remarks Tags are matched with picomatch (the glob matcher of micromatch, chokidar and
 * fast-glob). Retention follows the usual keep-last plus keep-tagged policy of backup tools:
 * a snapshot survives `forget` when any option keeps it.
 * @throws (from the returned promises) {@link SnapshotStoreError} for an unknown id, a malformed
 * query or retention options, a snapshot without a usable id.
 * @example
 * ```ts
 * const store = createSnapshotStore();
 * await store.save(session.snapshot({ tag: 'tool:search' }));
 * const [latest] = await store.find({ tag: 'tool:*', containsSlice: Plan });
 * session.restore(await store.load(latest.id));
 * await store.forget({ keepLast: 10, keepTagged: 'release:*' });
 * ```
 */
export function createSnapshotStore(options: { readonly storage?: SnapshotStoreBackend } = {}): SnapshotStore {
  const storage = options.storage ?? memorySnapshots();
  let saved = 0;
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(op: () => Promise<T>): Promise<T> => {
    const next = queue.then(op, op);
    queue = next.catch(() => undefined);
    return next;
  };
  const infoOf = async (id: string): Promise<SnapshotInfo> => {
    const info = (await storage.list()).find((i) => i.id === id);
    if (info === undefined) throw new SnapshotStoreError('SNAPSHOT_NOT_FOUND', `No snapshot ${quote(id)} in the store`);
    return info;
  };
  return {
    save: (snapshot) =>
      serial(async () => {
        const id: unknown = snapshot?.id;
        if (!isStorableId(id)) {
          throw new SnapshotStoreError('INVALID_SNAPSHOT_ID', `A snapshot id must be 1-200 letters, digits or _ . - (not starting with a dot); got ${clip(JSON.stringify(id))}`);
        }
        const existing = (await storage.list()).reduce((max, i) => Math.max(max, i.saved), 0);
        saved = Math.max(saved, existing) + 1;
        const info: SnapshotInfo = Object.freeze({
          id,
          tag: snapshot.tag,
          seq: snapshot.seq,
          at: snapshot.at,
          parents: Object.freeze([...snapshot.parents]),
          slices: Object.freeze(Object.keys(snapshot.slices)),
          saved,
        });
        await storage.put(info, snapshot);
        return info;
      }),
    load: (id) =>
      serial(async () => {
        const snapshot = await storage.get(id);
        if (snapshot === undefined) throw new SnapshotStoreError('SNAPSHOT_NOT_FOUND', `No snapshot ${quote(id)} in the store`);
        return snapshot;
      }),
    find: (query = {}) =>
      serial(async () => {
        const checked = readQuery(query, tagMatcher);
        const found = (await storage.list()).filter(checked.matches);
        found.sort(newestFirst);
        return checked.limit === undefined ? found : found.slice(0, checked.limit);
      }),
    lineage: (id) =>
      serial(async () => {
        const all = new Map((await storage.list()).map((i) => [i.id, i]));
        const chain: SnapshotInfo[] = [await infoOf(id)];
        const seen = new Set([id]);
        for (let parent = chain[0]?.parents[0]; parent !== undefined && !seen.has(parent); ) {
          const info = all.get(parent);
          if (info === undefined) break;
          chain.push(info);
          seen.add(parent);
          parent = info.parents[0];
        }
        return chain;
      }),
    forget: (retention) =>
      serial(async () => {
        const { keepLast, keepTagged } = retention ?? {};
        if (keepLast === undefined && keepTagged === undefined) {
          throw new SnapshotStoreError('INVALID_SNAPSHOT_QUERY', 'forget needs keepLast and/or keepTagged (forgetting everything is not a retention policy)');
        }
        if (keepLast !== undefined && !(Number.isInteger(keepLast) && keepLast >= 0)) throw new SnapshotStoreError('INVALID_SNAPSHOT_QUERY', 'keepLast must be an integer ≥ 0');
        const keepTag = keepTagged === undefined || keepTagged === false ? () => false : keepTagged === true ? () => true : tagMatcher(keepTagged, 'keepTagged');
        const all = [...(await storage.list())].sort(newestFirst);
        const doomed = all.filter((info, rank) => !(keepLast !== undefined && rank < keepLast) && !(info.tag !== undefined && keepTag(info.tag)));
        for (const info of doomed) await storage.delete(info.id);
        return doomed.map((i) => i.id);
      }),
  };
}
