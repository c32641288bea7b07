import { newestFirst, readQuery, type SnapshotQuery } from './read-query';
import { SnapshotStoreError, type SnapshotInfo } from './store-contract';
import { compileTagGlob } from './tag-glob';
import { quote } from '../internal/quote';

// The query side of a session's snapshot catalogue (snapshot-catalogue.ts), which loads this module
// with `import()` on its first query: a program that takes snapshots but never queries them does
// not load the query reader nor the tag globs (docs/SIZE.md).

/** @internal `SnapshotCatalogue.find` over `entries` (oldest first): those matching `query`, newest first. */
export function findIn(entries: SnapshotInfo[], query: SnapshotQuery): SnapshotInfo[] {
  const checked = readQuery(query, compileTagGlob);
  const found = entries.filter(checked.matches);
  found.sort(newestFirst);
  return checked.limit === undefined ? found : found.slice(0, checked.limit);
}

/**
 * @internal `SnapshotCatalogue.lineage` over `entries`: `id`, then its first parent, and so on while
 * catalogued. @throws `SnapshotStoreError` `SNAPSHOT_NOT_FOUND` when `id` is not catalogued.
 */
export function lineageIn(entries: readonly SnapshotInfo[], id: string, keepLast: number): SnapshotInfo[] {
  const byId = new Map(entries.map((info) => [info.id, info]));
  const first = byId.get(id);
  if (first === undefined) throw new SnapshotStoreError('SNAPSHOT_NOT_FOUND', `No snapshot ${quote(id)} in the session's catalogue (it keeps the last ${keepLast})`);
  const chain = [first];
  const seen = new Set([id]);
  for (let parent = first.parents[0]; parent !== undefined && !seen.has(parent); ) {
    const info = byId.get(parent);
    if (info === undefined) break;
    chain.push(info);
    seen.add(parent);
    parent = info.parents[0];
  }
  return chain;
}
