import type { Snapshot } from '../snapshots/snapshot';
import { snapshotSliceNames } from '../snapshots/snapshot';
import { newestFirst, readQuery, type SnapshotQuery } from './read-query';
import { SnapshotStoreError, type SnapshotInfo } from './store-contract';
import { compileTagGlob } from './tag-glob';

/**
 * Retention of the catalogue a session keeps of its own snapshots (`createSession({
 * snapshotCatalogue })`).
 */
export interface SnapshotCatalogueOptions {
  /**
   * How many of the session's latest snapshots it keeps (an integer ≥ 1). Default
   * 100. Older ones leave the catalogue (not your variables).
   */
  readonly keepLast?: number;
  /**
   * Also forget snapshots captured more than this long ago (ms of the session's scheduler) at the
   * time of a query. Memory is bounded by `keepLast` either way. Default: no age limit.
   */
  readonly maxAgeMs?: number;
}

/** How many snapshots a session's catalogue keeps by default. */
export const DEFAULT_CATALOGUED_SNAPSHOTS = 100;

/**
 * @internal The catalogue a session keeps of the snapshots it takes, when it was given no
 * snapshot store: the last `keepLast` snapshots themselves (no copy: a snapshot is immutable and
 * shares the slices' contents), in a ring. Adding one costs a slot write; what `find` and
 * `lineage` read (ids, slice names) is made at query time, once per snapshot.
 */
export class SnapshotCatalogue {
  /** The snapshots, oldest first from `head` once the ring is full. */
  private readonly ring: Snapshot[] = [];
  private head = 0;
  /** How many snapshots were ever added (the `saved` order of the newest one). */
  private added = 0;
  private readonly infos = new WeakMap<Snapshot, SnapshotInfo>();

  /** Options checked by the caller: `keepLast` an integer ≥ 1, `maxAgeMs` a number > 0 or `undefined`. */
  constructor(
    readonly keepLast: number,
    private readonly maxAgeMs: number | undefined,
    /** The session's clock (ms), for `maxAgeMs`. */
    private readonly now: () => number,
  ) {}

  /** Catalogues `snapshot`, forgetting the oldest one past `keepLast`. O(1). */
  add(snapshot: Snapshot): void {
    this.added++;
    const ring = this.ring;
    if (ring.length < this.keepLast) {
      ring.push(snapshot);
      return;
    }
    const i = this.head;
    ring[i] = snapshot;
    this.head = i + 1 === ring.length ? 0 : i + 1;
  }

  /** Like `SnapshotStore.find`: the catalogued snapshots matching `query`, newest first. */
  find(query: SnapshotQuery = {}): Promise<SnapshotInfo[]> {
    try {
      const checked = readQuery(query, compileTagGlob);
      const found = this.entries().filter(checked.matches);
      found.sort(newestFirst);
      return Promise.resolve(checked.limit === undefined ? found : found.slice(0, checked.limit));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Like `SnapshotStore.lineage`: `id`, then its first parent, and so on while catalogued. */
  lineage(id: string): Promise<SnapshotInfo[]> {
    const byId = new Map(this.entries().map((info) => [info.id, info]));
    const first = byId.get(id);
    if (first === undefined) return Promise.reject(new SnapshotStoreError('SNAPSHOT_NOT_FOUND', `No snapshot "${id}" in the session's catalogue (it keeps the last ${this.keepLast})`));
    const chain = [first];
    const seen = new Set([id]);
    for (let parent = first.parents[0]; parent !== undefined && !seen.has(parent); ) {
      const info = byId.get(parent);
      if (info === undefined) break;
      chain.push(info);
      seen.add(parent);
      parent = info.parents[0];
    }
    return Promise.resolve(chain);
  }

  /** What the catalogue keeps about each snapshot it holds (within `maxAgeMs`), oldest first. */
  private entries(): SnapshotInfo[] {
    const ring = this.ring;
    const n = ring.length;
    const oldest = this.maxAgeMs === undefined ? -Infinity : this.now() - this.maxAgeMs;
    const out: SnapshotInfo[] = [];
    for (let k = 0; k < n; k++) {
      const snapshot = ring[(this.head + k) % n] as Snapshot;
      if (snapshot.at < oldest) continue;
      let info = this.infos.get(snapshot);
      if (info === undefined) {
        info = Object.freeze({
          id: snapshot.id,
          tag: snapshot.tag,
          seq: snapshot.seq,
          at: snapshot.at,
          parents: snapshot.parents,
          slices: snapshotSliceNames(snapshot),
          saved: this.added - n + k + 1,
        });
        this.infos.set(snapshot, info);
      }
      out.push(info);
    }
    return out;
  }
}
