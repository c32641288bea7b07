import type { Snapshot } from '../snapshots/snapshot';
import { snapshotIdentity, type SnapshotIdentity } from '../snapshots/snapshot';
import type { SnapshotQuery } from './read-query';
import type { SnapshotInfo } from './store-contract';

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
 * snapshot store: what `find` and `lineage` read of its last `keepLast` snapshots (their
 * identity, which makes the id on first read, `seq`, `at`, `tag` and parents), in a ring.
 * Not the snapshots themselves: a catalogued snapshot's content (slices restored from JSON, say,
 * a new copy each time) is not kept alive by the catalogue. Adding one costs a slot write;
 * what `find` and `lineage` read (ids, slice names) is made at query time, once per snapshot.
 */
export class SnapshotCatalogue {
  /** The snapshots' identities (a session's snapshots are made by rxslice), oldest first from `head` once the ring is full. */
  private readonly ring: SnapshotIdentity[] = [];
  private head = 0;
  /** How many snapshots were ever added (the `saved` order of the newest one). */
  private added = 0;
  private readonly infos = new WeakMap<SnapshotIdentity, SnapshotInfo>();

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
    const kept = snapshotIdentity(snapshot) as SnapshotIdentity;
    if (ring.length < this.keepLast) {
      ring.push(kept);
      return;
    }
    const i = this.head;
    ring[i] = kept;
    this.head = i + 1 === ring.length ? 0 : i + 1;
  }

  /**
   * Like `SnapshotStore.find`: the catalogued snapshots matching `query`, newest first. The
   * catalogue is read now (`maxAgeMs` counts from this call); the query code (`readQuery`, the
   * tag globs) is loaded on the first query (`import()`, a chunk of its own in a code-splitting
   * bundle), so a program that never queries does not load it.
   */
  find(query: SnapshotQuery = {}): Promise<SnapshotInfo[]> {
    const entries = this.entries();
    return import('./catalogue-queries').then((q) => q.findIn(entries, query));
  }

  /** Like `SnapshotStore.lineage`: `id`, then its first parent, and so on while catalogued (query code loaded as `find`'s). */
  lineage(id: string): Promise<SnapshotInfo[]> {
    const entries = this.entries();
    return import('./catalogue-queries').then((q) => q.lineageIn(entries, id, this.keepLast));
  }

  /** What the catalogue keeps about each snapshot it holds (within `maxAgeMs`), oldest first. */
  private entries(): SnapshotInfo[] {
    const ring = this.ring;
    const n = ring.length;
    const oldest = this.maxAgeMs === undefined ? -Infinity : this.now() - this.maxAgeMs;
    const out: SnapshotInfo[] = [];
    for (let k = 0; k < n; k++) {
      const kept = ring[(this.head + k) % n] as SnapshotIdentity;
      if (kept.at < oldest) continue;
      let info = this.infos.get(kept);
      if (info === undefined) {
        info = Object.freeze({ id: kept.idOf(), tag: kept.tag, seq: kept.seq, at: kept.at, parents: kept.parents, slices: kept.names, saved: this.added - n + k + 1 });
        this.infos.set(kept, info);
      }
      out.push(info);
    }
    return out;
  }
}
