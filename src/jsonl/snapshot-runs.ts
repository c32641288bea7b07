import { quote } from '../internal/quote';
// The relative snapshot lines of a flight recording (format version 2): the writer's runs of the
// previous snapshot's items (`keptRuns`, in `flightRecorder`) and the reader's fold of them back
// into whole slices (`foldSnapshotLine`, in `readRecording`). A line with `"base": <seq>` is
// relative to the snapshot line before it; a slice in it may hold `"runs": [from, keep, add, ...]`.

/** @internal A snapshot line's body as parsed: `base` (format version 2) makes it relative to the line before it. */
export interface SnapshotLine {
  readonly seq: number;
  readonly base?: number;
  readonly snapshot: { readonly slices?: Readonly<Record<string, unknown>> | null; readonly [key: string]: unknown };
}

/**
 * @internal How `items` is made of runs of `prev` (by identity) and new items, as the recording's `"runs"`:
 * triples `from, keep, add` — `keep` items of `prev` from index `from`, then the next `add` new
 * items. `undefined` when no item is kept (the slice is written whole). O(prev + items): an item
 * that does not continue the current run is looked for further on in `prev` (a log that grew,
 * whose window moved or evicted from its middle), in at most `prev.length + items.length` steps
 * in all; an item not found so is written as new (the runs are a compression: any split reads
 * back as the same items).
 */
export function keptRuns(prev: readonly unknown[], items: readonly unknown[]): number[] | undefined {
  const runs: number[] = [];
  let budget = prev.length + items.length;
  let next = 0; // where the last run ended in `prev`
  let any = false;
  for (let i = 0; i < items.length; ) {
    const item = items[i];
    let from = -1;
    if (next < prev.length && prev[next] === item) from = next;
    else {
      for (let j = next + 1; j < prev.length && budget > 0; j++, budget--) {
        if (prev[j] === item) {
          from = j;
          break;
        }
      }
    }
    if (from < 0) {
      if (runs.length === 0) runs.push(0, 0, 0);
      runs[runs.length - 1] = (runs[runs.length - 1] as number) + 1;
      i++;
      continue;
    }
    let keep = 0;
    while (i < items.length && from + keep < prev.length && prev[from + keep] === items[i]) {
      i++;
      keep++;
    }
    runs.push(from, keep, 0);
    next = from + keep;
    any = true;
  }
  if (!any && items.length > 0) return undefined;
  if (runs.length === 0) runs.push(0, 0, 0);
  return runs;
}

/**
 * @internal `line`'s snapshot with its relative slices (`runs`) resolved against `base`, the
 * whole JSON of the snapshot line before it; a line without `base` is returned as it is.
 * @throws what `bad(reason)` makes (the reader's `RECORDING_CORRUPT`) when the runs do not fit `base`.
 */
export function foldSnapshotLine(base: SnapshotLine['snapshot'] | undefined, line: SnapshotLine, bad: (what: string) => Error): SnapshotLine['snapshot'] {
  const snapshot = line.snapshot;
  if (line.base === undefined) return snapshot;
  if (snapshot === null || typeof snapshot !== 'object' || snapshot.slices === null || typeof snapshot.slices !== 'object') throw bad('is not a snapshot');
  const slices: Record<string, unknown> = {};
  for (const [name, slice] of Object.entries(snapshot.slices)) {
    if (slice === null || typeof slice !== 'object' || !('runs' in slice)) {
      slices[name] = slice;
      continue;
    }
    const { runs, items, ...rest } = slice as { runs: unknown; items: unknown };
    const before = (base?.slices as Record<string, { items?: unknown } | undefined> | undefined)?.[name]?.items;
    if (!Array.isArray(before)) throw bad(`keeps items of slice ${quote(name)}, which the snapshot before it does not hold`);
    if (!Array.isArray(runs) || runs.length % 3 !== 0 || !runs.every((n) => Number.isInteger(n) && (n as number) >= 0) || !Array.isArray(items)) {
      throw bad(`has runs of slice ${quote(name)} that are not triples of counts (from, keep, add)`);
    }
    const out: unknown[] = [];
    let added = 0;
    for (let r = 0; r < runs.length; r += 3) {
      const [from, keep, add] = runs.slice(r, r + 3) as [number, number, number];
      if (from + keep > before.length) throw bad(`keeps items ${from} to ${from} + ${keep} of slice ${quote(name)}, outside the ${before.length} of the snapshot before it`);
      for (let j = from; j < from + keep; j++) out.push(before[j]);
      if (added + add > items.length) throw bad(`adds more items to slice ${quote(name)} than it holds (${items.length})`);
      for (let j = added; j < added + add; j++) out.push(items[j]);
      added += add;
    }
    if (added !== items.length) throw bad(`holds ${items.length - added} items of slice ${quote(name)} that its runs do not place`);
    slices[name] = { ...rest, items: out };
  }
  return { ...snapshot, slices };
}
