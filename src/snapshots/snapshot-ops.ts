import { RxSliceError } from '../internal/errors';
import type { SlicePolicy } from '../slices/reducer';
import { checkedDefOf, makeSnapshot, type SnapshotJSON, type SnapshotProvenance, type SnapshotSlice } from './snapshot';
import { quote } from '../internal/quote';

/** Thrown by {@link Snapshot | Snapshot.merge}, {@link Snapshot | Snapshot.diff} and {@link Snapshot | Snapshot.apply} for arguments that are not snapshots or diffs, or do not fit together. */
export class SnapshotOperationError extends RxSliceError {
  override readonly name = 'SnapshotOperationError';
  constructor(message: string) {
    super('SNAPSHOT_OPERATION', message);
  }
}

/**
 * How one slice changed between two snapshots (see {@link Snapshot | Snapshot.diff}):
 * - `'log'`: `after` is `before` without its first `evicted.length` items, plus `appended`
 *   (the shape of a log slice that appended and evicted from its front);
 * - `'fields'`: one item (at `index`; every other item equal) is a plain object in both whose
 *   top-level fields changed: `set` holds the new or changed fields with their new values,
 *   `unset` the removed ones, `previous` the old values of both (the shape of a state slice's
 *   latest item); `before` and `after` are that whole item before and after the change;
 * - `'items'`: anything else; `items` are all the new items.
 *
 * A `'state'` slice's change (of any kind) also holds `before` and `after`: the slice's value
 * before and after, as a pair, i.e. its latest item (`undefined` when it held none), or, for a
 * `'fields'` change, the item that changed.
 */
export type SliceChange =
  | {
      readonly kind: 'log';
      readonly policy: SlicePolicy;
      readonly evicted: readonly unknown[];
      readonly appended: readonly unknown[];
      /** State slices only: the latest item before the change. */
      readonly before?: unknown;
      /** State slices only: the latest item after the change. */
      readonly after?: unknown;
    }
  | {
      readonly kind: 'fields';
      readonly policy: SlicePolicy;
      readonly index: number;
      readonly set: Readonly<Record<string, unknown>>;
      readonly unset: readonly string[];
      readonly previous: Readonly<Record<string, unknown>>;
      /** The item at `index` before the change. */
      readonly before: Readonly<Record<string, unknown>>;
      /** The item at `index` after the change. */
      readonly after: Readonly<Record<string, unknown>>;
    }
  | {
      readonly kind: 'items';
      readonly policy: SlicePolicy;
      readonly items: readonly unknown[];
      /** State slices only: the latest item before the change. */
      readonly before?: unknown;
      /** State slices only: the latest item after the change. */
      readonly after?: unknown;
    };

/** The difference between two snapshots, plain JSON data (print it, store it, send it). */
export interface SnapshotDiff {
  readonly fromSeq: number;
  readonly toSeq: number;
  /** `at` of the `after` snapshot. */
  readonly toAt: number;
  /** Slices only in `after`, with their policy and items. */
  readonly added: Readonly<Record<string, { readonly policy: SlicePolicy; readonly items: readonly unknown[] }>>;
  /** Names of the slices only in `before`. */
  readonly removed: readonly string[];
  /** Slices in both whose items differ; unchanged slices are absent. */
  readonly modified: Readonly<Record<string, SliceChange>>;
}

const MAX_DEPTH = 1024;

/** Structural equality of JSON data (items of a slice); `===` first, so shared items cost nothing. */
function same(a: unknown, b: unknown, depth = 0): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (depth > MAX_DEPTH) throw new SnapshotOperationError(`items nest deeper than ${MAX_DEPTH} levels`);
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!same(a[i], b[i], depth + 1)) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) {
    if (!Object.hasOwn(b, k) || !same((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], depth + 1)) return false;
  }
  return true;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The front-eviction-plus-append change from `b` to `a`, if `a` has that shape. */
function logChange(policy: SlicePolicy, b: readonly unknown[], a: readonly unknown[]): Extract<SliceChange, { kind: 'log' }> | undefined {
  if (a.length === 0) return b.length === 0 ? undefined : { kind: 'log', policy, evicted: b.slice(), appended: [] };
  // The first kept item: where `a` starts inside `b` (b.length when every old item was evicted).
  let e = 0;
  while (e < b.length && !same(b[e], a[0])) e++;
  const kept = b.length - e;
  // Nothing kept: every old item evicted and all new ones appended is a replacement ('items').
  if (kept === 0 || kept > a.length) return undefined;
  for (let i = 1; i < kept; i++) if (!same(b[e + i], a[i])) return undefined;
  return { kind: 'log', policy, evicted: b.slice(0, e), appended: a.slice(kept) };
}

/** The one-item, top-level-fields change from `b` to `a`, if `a` has that shape. */
function fieldsChange(policy: SlicePolicy, b: readonly unknown[], a: readonly unknown[]): SliceChange | undefined {
  if (a.length !== b.length || a.length === 0) return undefined;
  let index = -1;
  for (let i = a.length - 1; i >= 0; i--) {
    if (same(b[i], a[i])) continue;
    if (index >= 0) return undefined;
    index = i;
  }
  const before = b[index];
  const after = a[index];
  if (!isPlainObject(before) || !isPlainObject(after)) return undefined;
  const set: Record<string, unknown> = {};
  const previous: Record<string, unknown> = {};
  const unset: string[] = [];
  for (const k of Object.keys(after)) {
    if (Object.hasOwn(before, k) && same(before[k], after[k])) continue;
    set[k] = after[k];
    if (Object.hasOwn(before, k)) previous[k] = before[k];
  }
  for (const k of Object.keys(before)) {
    if (!Object.hasOwn(after, k)) {
      unset.push(k);
      previous[k] = before[k];
    }
  }
  return { kind: 'fields', policy, index, set, unset, previous, before, after };
}

function sliceChange(policy: SlicePolicy, before: SnapshotSlice, after: SnapshotSlice): SliceChange | undefined {
  const b = before.items;
  const a = after.items;
  if (a === b) return undefined;
  if (a.length === b.length) {
    let equal = true;
    for (let i = 0; i < a.length && equal; i++) equal = same(b[i], a[i]);
    if (equal) return undefined;
  }
  if (policy === 'log') return logChange(policy, b, a) ?? fieldsChange(policy, b, a) ?? { kind: 'items', policy, items: a.slice() };
  const fields = fieldsChange(policy, b, a);
  if (fields !== undefined) return fields;
  // A state slice's value is its latest item: the pair (before, after) is what changed.
  const pair = { before: b[b.length - 1], after: a[a.length - 1] };
  const log = logChange(policy, b, a);
  return log !== undefined ? { ...log, ...pair } : { kind: 'items', policy, items: a.slice(), ...pair };
}

function slicesOf(value: unknown, what: string): Readonly<Record<string, SnapshotSlice>> {
  const slices: unknown = value !== null && typeof value === 'object' ? (value as { slices?: unknown }).slices : undefined;
  if (slices === null || typeof slices !== 'object') throw new SnapshotOperationError(`${what} is not a snapshot (no slices record)`);
  return slices as Readonly<Record<string, SnapshotSlice>>;
}

/**
 * The difference from `before` to `after`, per slice: added, removed, and for the slices in both
 * whose items differ, a {@link SliceChange}. Items are compared by reference first (a slice a
 * session did not change since shares its items array and costs O(1); an unchanged item shared by
 * reference costs one comparison), then structurally (snapshots read from JSON).
 * @throws {@link SnapshotOperationError} when an argument is not a snapshot.
 * @example
 * ```ts
 * const before = session.snapshot({ includeLogs: true });
 * session.dispatch(MessageAdded({ text: 'hi' }));
 * Snapshot.diff(before, session.snapshot({ includeLogs: true })).modified['messages'];
 * // { kind: 'log', policy: 'log', evicted: [], appended: [{ text: 'hi' }] }
 *
 * // A state slice: the field-level change, and the (before, after) pair of its value.
 * const { before: was, after: now, set } = Snapshot.diff(s1, s2).modified['plan'] as Extract<SliceChange, { kind: 'fields' }>;
 * // was: { goal: 'ship', steps: ['a'] }, now: { goal: 'ship', steps: ['a', 'b'] }, set: { steps: ['a', 'b'] }
 * ```
 */
function diff(before: Snapshot, after: Snapshot): SnapshotDiff {
  const b = slicesOf(before, 'before');
  const a = slicesOf(after, 'after');
  const added: Record<string, { policy: SlicePolicy; items: readonly unknown[] }> = {};
  const modified: Record<string, SliceChange> = {};
  const removed: string[] = [];
  for (const name of Object.keys(a)) {
    const entry = a[name] as SnapshotSlice;
    const old = b[name];
    if (old === undefined) added[name] = { policy: entry.policy, items: entry.items.slice() };
    else {
      const change = sliceChange(entry.policy, old, entry);
      if (change !== undefined) modified[name] = change;
    }
  }
  for (const name of Object.keys(b)) if (!Object.hasOwn(a, name)) removed.push(name);
  return { fromSeq: before.seq, toSeq: after.seq, toAt: after.at, added, removed, modified };
}

function applyChange(name: string, entry: SnapshotSlice, change: SliceChange): readonly unknown[] {
  const items = entry.items;
  switch (change.kind) {
    case 'log': {
      const n = change.evicted.length;
      if (n > items.length) throw new SnapshotOperationError(`slice ${quote(name)}: the diff evicts ${n} items, the snapshot holds ${items.length}`);
      return [...items.slice(n), ...change.appended];
    }
    case 'fields': {
      const item = items[change.index];
      if (!isPlainObject(item)) throw new SnapshotOperationError(`slice ${quote(name)}: the diff changes fields of item ${change.index}, which is not an object in the snapshot`);
      const next: Record<string, unknown> = { ...item };
      for (const k of change.unset) delete next[k];
      for (const k of Object.keys(change.set)) next[k] = change.set[k];
      const out = items.slice();
      out[change.index] = next;
      return out;
    }
    case 'items':
      return change.items.slice();
    default:
      throw new SnapshotOperationError(`slice ${quote(name)}: unknown change kind ${String((change as { kind?: unknown }).kind)}`);
  }
}

/**
 * Applies `diff` (from {@link Snapshot | Snapshot.diff}) to `before`: a new snapshot whose slices equal the
 * diff's `after` (`Snapshot.apply(a, Snapshot.diff(a, b))` holds the same items as `b`, at
 * `b.seq`), with `before` as its parent. Items are not validated here: `session.restore`
 * validates a snapshot it did not take.
 * @throws {@link SnapshotOperationError} when `diff` does not fit `before` (a slice to modify is
 * missing, more evictions than items, fields of a non-object).
 */
function apply(before: Snapshot, diff: SnapshotDiff): Snapshot {
  const b = slicesOf(before, 'before');
  const names: string[] = [];
  const entries: SnapshotSlice[] = [];
  for (const name of Object.keys(b)) {
    if (diff.removed.includes(name)) continue;
    const entry = b[name] as SnapshotSlice;
    const change = diff.modified[name];
    names.push(name);
    entries.push(change === undefined ? entry : Object.freeze({ policy: entry.policy, version: 0, items: Object.freeze(applyChange(name, entry, change)) }));
  }
  for (const name of Object.keys(diff.modified)) if (!Object.hasOwn(b, name)) throw new SnapshotOperationError(`the diff modifies slice ${quote(name)}, which the snapshot does not hold`);
  for (const name of Object.keys(diff.added)) {
    if (Object.hasOwn(b, name) && !diff.removed.includes(name)) throw new SnapshotOperationError(`the diff adds slice ${quote(name)}, which the snapshot already holds`);
    const added = diff.added[name] as { policy: SlicePolicy; items: readonly unknown[] };
    names.push(name);
    entries.push(Object.freeze({ policy: added.policy, version: 0, items: Object.freeze(added.items.slice()) }));
  }
  return makeSnapshot(diff.toSeq, diff.toAt, undefined, Object.freeze(names), Object.freeze(entries), undefined, Object.freeze([before.id]));
}

/**
 * Merges snapshots: every slice of every input, the later input winning per slice. The result's
 * `seq` and `at` are the largest of the inputs', its `parents` the inputs' ids (lineage), no tag.
 * Taking it is O(total slices); items are shared, never copied. Restoring it into
 * a session whose definitions made the inputs' items needs no validation (as for the inputs).
 * @throws {@link SnapshotOperationError} with no input, or an input that is not a snapshot.
 * @example
 * ```ts
 * const plan = session.snapshot({ include: [Plan] });
 * const usage = session.snapshot({ include: [Usage] });
 * session.restore(Snapshot.merge(plan, usage)); // both slices, as one restored event
 * ```
 */
function merge(...inputs: readonly Snapshot[]): Snapshot {
  if (inputs.length === 0) throw new SnapshotOperationError('Snapshot.merge needs at least one snapshot');
  const winner = new Map<string, Snapshot>();
  const order: string[] = [];
  let seq = 0;
  let at = Number.NEGATIVE_INFINITY;
  inputs.forEach((snapshot, i) => {
    const slices = slicesOf(snapshot, `input ${i}`);
    for (const name of Object.keys(slices)) {
      if (!winner.has(name)) order.push(name);
      winner.set(name, snapshot);
    }
    seq = Math.max(seq, snapshot.seq);
    at = Math.max(at, snapshot.at);
  });
  const entries = order.map((name) => (winner.get(name) as Snapshot).slices[name] as SnapshotSlice);
  const provenance: SnapshotProvenance = { defOf: (name) => (winner.has(name) ? checkedDefOf(winner.get(name) as Snapshot, name) : undefined) };
  return makeSnapshot(seq, at, undefined, Object.freeze(order), Object.freeze(entries), provenance, Object.freeze(inputs.map((s) => s.id)));
}

/**
 * Operations on snapshots (the value beside the `Snapshot` type):
 * `merge` (selective snapshots into one), `diff` (what changed, per slice and item) and `apply`
 * (a diff onto a snapshot). Pure: no session involved. Frozen.
 */
export const Snapshot = Object.freeze({
  /** Merges snapshots into one, the later input winning per slice. */
  merge,
  /** What changed from one snapshot to another, per slice and item. */
  diff,
  /** Applies a {@link SnapshotDiff} to a snapshot, giving a new snapshot. */
  apply,
});

/**
 * An immutable capture of a session's slices at one sequence number. Taking it is
 * O(number of slices): items are shared with the session, never copied, and a slice that
 * did not change since the previous snapshot shares that snapshot's entry.
 * `JSON.stringify(snapshot)` writes the versioned JSON form.
 *
 * @remarks The snapshot and its `slices` record are frozen. In a session's snapshot the
 * entries and their items are frozen as the session freezes its items (its `freeze` option,
 * off in production); `snapshotFromJSON` freezes the arrays it reads and deep-freezes the
 * items by the same rule (its `freeze` limit, off in production). Later changes to
 * the session never show through a snapshot.
 */
export interface Snapshot {
  /** The JSON format version of the snapshot ({@link SNAPSHOT_FORMAT_VERSION} for one taken by this build). */
  readonly formatVersion: number;
  /**
   * Unique id (a UUID from `crypto.randomUUID()`, made on first read, kept in the JSON form and
   * read back by `snapshotFromJSON`). Names the snapshot in a snapshot store and in lineage.
   */
  readonly id: string;
  /**
   * Lineage: the ids of the snapshots this one derives from. A session's snapshot names the
   * snapshot last restored into the session (none before any restore); `Snapshot.merge` names
   * every input, in order. Empty for a root.
   */
  readonly parents: readonly string[];
  /** `seq` of the last envelope committed before the capture (0 when none). */
  readonly seq: number;
  /** Scheduler time (ms) of the capture. */
  readonly at: number;
  /** The label given to `session.snapshot({ tag })`, else `undefined`. */
  readonly tag: string | undefined;
  /** The captured slices by name (frozen). */
  readonly slices: Readonly<Record<string, SnapshotSlice>>;
  /** The versioned JSON form (what `JSON.stringify(snapshot)` writes; read back by `snapshotFromJSON`). */
  toJSON(): SnapshotJSON;
}
