import type { EvictionDecision } from '../slices/window-contract';

/** The decision that evicts nothing (shared: decisions are never mutated). */
export const NONE: EvictionDecision = { kind: 'none' };

/** Turns ascending indices into the cheapest equivalent decision (a front or back run when it is one). */
export function toDecision(indices: readonly number[], size: number): EvictionDecision {
  const n = indices.length;
  if (n === 0) return NONE;
  if (indices[n - 1] === n - 1) return { kind: 'front', count: n };
  if (indices[0] === size - n) return { kind: 'back', count: n };
  return { kind: 'indices', indices };
}

/**
 * Every index of `[0, size)` not in `kept` (ascending, distinct, within range). O(1) when
 * nothing or one run is missing, else O(e log n) for e missing indices: `kept[j] - j` never
 * decreases, so each jump (a gap) is found by binary search.
 */
export function complement(kept: readonly number[], size: number): EvictionDecision {
  const n = kept.length;
  const missing = size - n;
  if (missing <= 0) return NONE;
  if (n === 0) return { kind: 'front', count: size };
  const first = kept[0] as number;
  const last = kept[n - 1] as number;
  if (last - first + 1 === n) {
    if (first === 0) return { kind: 'back', count: size - 1 - last };
    if (last === size - 1) return { kind: 'front', count: first };
  }
  const out: number[] = [];
  let gap = 0; // kept[j] - j so far: how many indices are missing before kept[j]
  let lo = 0;
  while (out.length < missing) {
    // The first j >= lo with kept[j] - j > gap, or n when there is none.
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((kept[mid] as number) - mid > gap) hi = mid;
      else lo = mid + 1;
    }
    const until = lo < n ? (kept[lo] as number) : size;
    for (let i = lo + gap; i < until; i++) out.push(i);
    if (lo >= n) break;
    gap = (kept[lo] as number) - lo;
    lo++;
  }
  return toDecision(out, size);
}

/**
 * The items of `decision` that are not in `kept` (ascending indices): O(evicted + protected
 * among them) for front and back runs, O(evicted + protected) for index lists.
 */
export function spare(decision: EvictionDecision, kept: readonly number[], size: number): EvictionDecision {
  if (decision.kind === 'none' || kept.length === 0) return decision;
  let from = 0;
  let to = 0;
  let list: readonly number[] | undefined;
  if (decision.kind === 'front') to = Math.min(Math.max(decision.count, 0), size);
  else if (decision.kind === 'back') {
    from = size - Math.min(Math.max(decision.count, 0), size);
    to = size;
  } else list = decision.indices;
  let k = lowerBound(kept, list === undefined ? from : 0);
  if (list === undefined && (k === kept.length || (kept[k] as number) >= to)) return decision; // nothing protected in the run
  const out: number[] = [];
  const take = (i: number): void => {
    while (k < kept.length && (kept[k] as number) < i) k++;
    if (k < kept.length && kept[k] === i) return;
    out.push(i);
  };
  if (list === undefined) for (let i = from; i < to; i++) take(i);
  else for (const i of list) take(i);
  return toDecision(out, size);
}

/** The first position in ascending `list` whose value is >= `value`. */
export function lowerBound(list: readonly number[], value: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((list[mid] as number) < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The indices of ascending `list` that `decision` does not drop (a content of `size` items). */
export function without(list: readonly number[], decision: EvictionDecision, size: number): readonly number[] {
  switch (decision.kind) {
    case 'none':
      return list;
    case 'front':
      return list.slice(lowerBound(list, decision.count));
    case 'back':
      return list.slice(0, lowerBound(list, size - decision.count));
    case 'indices': {
      const dropped = decision.indices;
      const out: number[] = [];
      let d = 0;
      for (const i of list) {
        while (d < dropped.length && (dropped[d] as number) < i) d++;
        if (d < dropped.length && dropped[d] === i) continue;
        out.push(i);
      }
      return out;
    }
  }
}

/** Unites the decisions of a composite's windows (each item evicted by any of them goes). */
export function unite(decisions: readonly EvictionDecision[], size: number): EvictionDecision {
  if (decisions.length === 0) return NONE;
  if (decisions.length === 1) return decisions[0] as EvictionDecision;
  if (decisions.every((d) => d.kind === 'front')) {
    return { kind: 'front', count: Math.max(...decisions.map((d) => (d.kind === 'front' ? d.count : 0))) };
  }
  if (decisions.every((d) => d.kind === 'back')) {
    return { kind: 'back', count: Math.max(...decisions.map((d) => (d.kind === 'back' ? d.count : 0))) };
  }
  const evicted = new Uint8Array(size);
  for (const d of decisions) {
    if (d.kind === 'front') evicted.fill(1, 0, Math.min(d.count, size));
    else if (d.kind === 'back') evicted.fill(1, Math.max(0, size - d.count), size);
    else if (d.kind === 'indices') for (const i of d.indices) if (i >= 0 && i < size) evicted[i] = 1;
  }
  const indices: number[] = [];
  for (let i = 0; i < size; i++) if (evicted[i] === 1) indices.push(i);
  let prefix = 0;
  while (prefix < indices.length && indices[prefix] === prefix) prefix++;
  return prefix === indices.length ? { kind: 'front', count: prefix } : { kind: 'indices', indices };
}

/** Merges ascending index lists into one ascending list without duplicates, in O(total length). */
export function union(lists: readonly (readonly number[])[]): readonly number[] {
  let merged = lists[0] as readonly number[];
  for (let k = 1; k < lists.length; k++) {
    const other = lists[k] as readonly number[];
    if (other.length === 0) continue;
    if (merged.length === 0) {
      merged = other;
      continue;
    }
    const out = new Array<number>(merged.length + other.length);
    let i = 0;
    let j = 0;
    let w = 0;
    while (i < merged.length || j < other.length) {
      const x = i < merged.length ? (merged[i] as number) : Number.POSITIVE_INFINITY;
      const y = j < other.length ? (other[j] as number) : Number.POSITIVE_INFINITY;
      if (x <= y) {
        out[w++] = x;
        i++;
        if (x === y) j++;
      } else {
        out[w++] = y;
        j++;
      }
    }
    out.length = w;
    merged = out;
  }
  return merged;
}
