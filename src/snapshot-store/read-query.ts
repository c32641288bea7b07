import type { SliceDef } from '../slices/reducer';
import { SnapshotStoreError, type SnapshotInfo } from './store-contract';

/** A query of a snapshot catalogue's `find` (the store's and the session's); every given criterion must hold. */
export interface SnapshotQuery {
  /**
   * Glob over tags (`tool:*`, `{plan,tool}:*`, `!debug:*` for every tag but those). An untagged
   * snapshot never matches a tag query. The store takes picomatch's syntax; the session's own
   * catalogue the part of it tags use (see `compileTagGlob`).
   */
  readonly tag?: string;
  /** Only snapshots captured strictly after this time (ms, or a `Date`). */
  readonly createdAfter?: number | Date;
  /** Only snapshots captured strictly before this time (ms, or a `Date`). */
  readonly createdBefore?: number | Date;
  /** Only snapshots holding this slice (definition or name). */
  readonly containsSlice?: SliceDef<string, any> | string;
  /** At most this many (the newest). */
  readonly limit?: number;
}

/** A query read once and checked: one predicate over what a catalogue keeps, and the limit. */
export interface CheckedQuery {
  matches(info: SnapshotInfo): boolean;
  readonly limit: number | undefined;
}

const timeOf = (t: number | Date, what: string): number => {
  const ms = t instanceof Date ? t.getTime() : t;
  if (typeof ms !== 'number' || Number.isNaN(ms)) throw new SnapshotStoreError('INVALID_SNAPSHOT_QUERY', `${what} must be a time in ms or a Date`);
  return ms;
};

/**
 * @internal Reads and checks `query` (tags compiled with `compileTag`).
 * @throws {@link SnapshotStoreError} `INVALID_SNAPSHOT_QUERY` for a malformed criterion.
 */
export function readQuery(query: SnapshotQuery, compileTag: (glob: unknown, what: string) => (tag: string) => boolean): CheckedQuery {
  const matchTag = query.tag === undefined ? undefined : compileTag(query.tag, 'find option "tag"');
  const after = query.createdAfter === undefined ? undefined : timeOf(query.createdAfter, 'createdAfter');
  const before = query.createdBefore === undefined ? undefined : timeOf(query.createdBefore, 'createdBefore');
  const slice = query.containsSlice === undefined ? undefined : typeof query.containsSlice === 'string' ? query.containsSlice : query.containsSlice.name;
  const limit = query.limit;
  if (limit !== undefined && !(Number.isInteger(limit) && limit >= 0)) throw new SnapshotStoreError('INVALID_SNAPSHOT_QUERY', 'find option "limit" must be an integer ≥ 0');
  return {
    matches: (i) =>
      (matchTag === undefined || (i.tag !== undefined && matchTag(i.tag))) &&
      (after === undefined || i.at > after) &&
      (before === undefined || i.at < before) &&
      (slice === undefined || i.slices.includes(slice)),
    limit,
  };
}

/** Newest first: capture time, then save order. */
export const newestFirst = (a: SnapshotInfo, b: SnapshotInfo): number => b.at - a.at || b.saved - a.saved;
