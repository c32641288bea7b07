import { z } from 'zod';
import { formatIssues, RxSliceError, toIssues, type ValidationIssue } from '../internal/errors';
import { deepFreeze } from '../internal/freeze';
import { jsonIssue, jsonProblem, MAX_ITEM_DEPTH } from '../internal/json-data';
import { migrateItems } from '../slices/migrations';
import type { SliceDef } from '../slices/reducer';
import { makeSnapshot, SNAPSHOT_FORMAT_VERSION, type Snapshot, type SnapshotProvenance, type SnapshotSlice } from './snapshot';
import { clip, messageOf, quote } from '../internal/quote';

/** Thrown when a JSON snapshot is malformed, too large or too deep, or its items are invalid. */
export class InvalidSnapshotError extends RxSliceError {
  override readonly name = 'InvalidSnapshotError';
  constructor(reason: string, readonly issues: readonly ValidationIssue[] = []) {
    super('INVALID_SNAPSHOT', `The snapshot cannot be read: ${reason}${issues.length ? ` (${formatIssues(issues)})` : ''}. Nothing was restored.`);
  }
}

/** Thrown when a snapshot names a slice the target session or slice list does not have. */
export class UnknownSliceError extends RxSliceError {
  override readonly name = 'UnknownSliceError';
  /**
   * @param where - What lacks the slice: `'registered'` (default: a snapshot holds a slice the
   * session or definitions do not know), `'snapshot'` (restore asked for a slice the snapshot
   * does not hold) or `'session'` (a snapshot selection named a slice the session does not have).
   */
  constructor(
    readonly sliceName: string,
    known: readonly string[],
    readonly where: 'registered' | 'snapshot' | 'session' = 'registered',
  ) {
    const list = clip(known.join(', ') || 'none');
    super(
      'UNKNOWN_SLICE',
      where === 'snapshot'
        ? `The snapshot does not hold slice ${quote(sliceName)} (it holds: ${list}). Restore only slices it holds, or take the snapshot with includeLogs / include naming it.`
        : where === 'session'
          ? `The session has no slice ${quote(sliceName)} (registered: ${list}). Name registered slices in include / exclude.`
          : `The snapshot holds slice ${quote(sliceName)}, which is not registered (known: ${list}). Register it, or restore with { slices: [...] } naming the ones to restore.`,
    );
  }
}

/** Limits applied when reading untrusted snapshot JSON. */
export interface SnapshotReadLimits {
  /** Maximum JSON text length in characters. Default 64 MiB. */
  readonly maxBytes?: number;
  /**
   * Maximum nesting depth of any value (the snapshot's root at 0, an item at 4). Default
   * {@link DEFAULT_SNAPSHOT_MAX_DEPTH} (517): deep enough for every item a session accepts
   * (items nest at most 512 levels), so a session's own snapshot always reads back.
   */
  readonly maxDepth?: number;
  /**
   * Deep-freeze the items read. Default: on unless `process.env.NODE_ENV === 'production'`, as
   * `createSession`'s `freeze` option (a session then freezes its own items, and its snapshots'
   * items are frozen only as it freezes them). The snapshot, its `slices` record, its entries and
   * their items arrays are frozen either way; a session with `freeze` on that restores items read
   * without freezing deep-freezes them as it restores them. Off, a 10 × 1,000-item snapshot reads
   * ~0.3 ms faster (the freeze of 10,000 objects), and the items stay plain JSON data, checked
   * for depth and shape all the same.
   */
  readonly freeze?: boolean;
}

const isProduction = (): boolean =>
  (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.['NODE_ENV'] === 'production';

/** Default depth limit of {@link snapshotFromJSON}: the live item limit (512) plus the snapshot's own levels. */
export const DEFAULT_SNAPSHOT_MAX_DEPTH = MAX_ITEM_DEPTH + 5;

/**
 * The JSON form of a snapshot. Built in a pure call, so that a bundle that never reads snapshot
 * JSON drops it (module-level zod calls are kept otherwise: rxslice is `"sideEffects": false`,
 * but a bundler cannot know that a call has none).
 */
const Envelope = /* @__PURE__ */ (() => {
  /** An array, checked without zod's per-element copy (each item is validated with its slice's schema after). */
  const ItemArray = z.custom<readonly unknown[]>((value) => Array.isArray(value), { message: 'Expected an array of items' });
  return z.object({
    format: z.literal('rxslice.snapshot'),
    formatVersion: z.number().int().positive(),
    id: z.string().min(1).max(200).optional(),
    parents: z.array(z.string().min(1).max(200)).max(1000).optional(),
    seq: z.number().int().nonnegative(),
    at: z.number(),
    tag: z.string().optional(),
    // `schemaVersion` is checked by `migrateItems` (SliceVersionError), absent in format 1.
    slices: z.record(
      z.string(),
      z.object({ policy: z.enum(['state', 'log']), schemaVersion: z.unknown().optional(), items: ItemArray, appended: z.number().int().nonnegative().optional() }),
    ),
  });
})();

/**
 * Throws when an object or array sits at depth `maxDepth` or deeper (the root is at depth 0).
 * Iterative (no recursion limit) and allocation-free apart from its two stacks: only objects
 * are pushed, with their depth on a parallel stack. Freezes, on the way, every object at or below
 * one of the arrays of `freeze` (their depth is pushed negated): the items of slices kept as read
 * are deep-frozen by this walk, not by a second one. Without `freezeItems` only those arrays
 * are frozen (see `SnapshotReadLimits.freeze`), and their elements are read as any other value.
 *
 * `root` is this call's own data (parsed, or a structured clone): nothing in it was frozen before
 * this walk, so nothing is asked `Object.isFrozen` (an object reached twice through a shared
 * reference of a structured clone is frozen twice, which changes nothing). The elements of an
 * array being frozen (a slice's items, the usual case) are frozen as the array is read, and only
 * their own object children are pushed: an item costs no push of its own. An object is frozen
 * after its children were read: V8 reads the elements of a frozen array on a slower path
 * (~10 ns each in optimized code against ~2), and the order changes nothing else (a walk that
 * throws leaves only this call's own data partly frozen).
 */
function checkDepth(root: unknown, maxDepth: number, freeze: ReadonlySet<object>, freezeItems: boolean): void {
  if (root === null || typeof root !== 'object') return;
  const values: object[] = [root];
  const depths: number[] = [0];
  while (values.length > 0) {
    const value = values.pop() as Record<string, unknown>;
    const pushed = depths.pop() as number;
    // (A slice's items array sits at depth 3: root, slices, entry, items.)
    const frozen = pushed < 0 || (pushed === 3 && freeze.has(value));
    const depth = pushed < 0 ? -pushed - 1 : pushed;
    if (depth >= maxDepth) throw new InvalidSnapshotError(`it nests deeper than ${maxDepth} levels`);
    const next = frozen ? -depth - 2 : depth + 1;
    if (Array.isArray(value)) {
      if (frozen && depth + 1 < maxDepth) {
        // Each object element (at depth + 1, within the limit) is frozen here; its object
        // children, at depth + 2, are pushed to be frozen and checked in turn.
        // Without `freezeItems` the array alone is frozen: its elements and their children are
        // read (the children pushed at depth + 2, unfrozen) but not frozen.
        const inner = freezeItems ? -depth - 3 : depth + 2;
        for (let i = 0; i < value.length; i++) {
          const child: unknown = value[i];
          if (child === null || typeof child !== 'object') continue;
          if (Array.isArray(child)) {
            for (let j = 0; j < child.length; j++) {
              const grandchild: unknown = child[j];
              if (grandchild !== null && typeof grandchild === 'object') {
                values.push(grandchild);
                depths.push(inner);
              }
            }
          } else {
            for (const key in child) {
              const grandchild = (child as Record<string, unknown>)[key];
              if (grandchild !== null && typeof grandchild === 'object') {
                values.push(grandchild);
                depths.push(inner);
              }
            }
          }
          if (freezeItems) Object.freeze(child);
        }
        Object.freeze(value);
        continue;
      }
      for (let i = 0; i < value.length; i++) {
        const child: unknown = value[i];
        if (child !== null && typeof child === 'object') {
          values.push(child);
          depths.push(next);
        }
      }
    } else {
      // `for...in` (twice as fast as `Object.keys` here) also visits inherited enumerable keys,
      // which only makes the check stricter.
      for (const key in value) {
        const child = value[key];
        if (child !== null && typeof child === 'object') {
          values.push(child);
          depths.push(next);
        }
      }
    }
    if (frozen) Object.freeze(value);
  }
}

/**
 * The items arrays of the slices of `data` (parsed JSON, not validated yet) that are kept as read,
 * so may be frozen while their depth is checked: a known slice without a schema, at the
 * definition's schema version. Anything else (missing, malformed) is left to the validation.
 */
function keptAsRead(data: unknown, byName: ReadonlyMap<string, SliceDef<string, any>>): ReadonlySet<object> {
  const kept = new Set<object>();
  const raw = data !== null && typeof data === 'object' ? (data as { slices?: unknown }).slices : undefined;
  if (raw === null || typeof raw !== 'object') return kept;
  for (const name of Object.keys(raw)) {
    const def = byName.get(name);
    const entry = (raw as Record<string, unknown>)[name];
    if (def === undefined || def.schema !== undefined || entry === null || typeof entry !== 'object') continue;
    const { items, schemaVersion } = entry as { items?: unknown; schemaVersion?: unknown };
    if (Array.isArray(items) && (schemaVersion ?? 1) === def.version) kept.add(items);
  }
  return kept;
}

/**
 * Reads a snapshot from its JSON form (a string, or the parsed object), safely: size and
 * depth limits, the envelope validated with zod, every item validated with its slice's
 * schema (the parsed output is kept, so unknown keys are stripped), no prototype pollution
 * (`JSON.parse` makes `__proto__` an own key; zod >= 4.4.1 never assigns it as a prototype).
 * A slice written at an older schema version (`schemaVersion`, absent = 1) is brought to the
 * current one by its migrations (`migrateItems`) before the schema check. The snapshot, its
 * entries and items arrays are frozen; the items are deep-frozen unless `limits.freeze` is
 * false (default: on unless `NODE_ENV` is `production`, as a session's `freeze`).
 *
 * @param json - `JSON.stringify(snapshot)` output, or the object it parses to.
 * @param slices - The slice definitions the snapshot may contain.
 * @param limits - Size and depth limits, and whether to deep-freeze the items ({@link SnapshotReadLimits}).
 * @throws {@link InvalidSnapshotError} on malformed JSON, a newer format version, limits or invalid items.
 * @throws {@link UnknownSliceError} when the snapshot holds a slice not in `slices`.
 * @throws `SliceVersionError` (`SLICE_VERSION_TOO_NEW`) when a slice was written by a newer
 * slice definition than `slices` holds; `MigrationError` when a migration step throws or its
 * result fails the current schema.
 * @example
 * ```ts
 * const text = JSON.stringify(session.snapshot());
 * session.restore(snapshotFromJSON(text, [Plan, Usage]));
 * ```
 */
export function snapshotFromJSON(
  json: string | unknown,
  slices: readonly SliceDef<string, any>[],
  limits: SnapshotReadLimits = {},
): Snapshot {
  const maxBytes = limits.maxBytes ?? 64 * 1024 * 1024;
  let data: unknown = json;
  if (typeof json === 'string') {
    if (json.length > maxBytes) throw new InvalidSnapshotError(`it is ${json.length} characters long, over the limit of ${maxBytes}`);
    try {
      data = JSON.parse(json);
    } catch (e) {
      throw new InvalidSnapshotError(`it is not valid JSON (${messageOf(e)})`);
    }
  }
  if (typeof json !== 'string') {
    // A parsed object may hold what JSON text cannot (getters, proxies, functions, BigInt,
    // cycles): copy it into inert data first, then check that it is JSON data.
    try {
      data = structuredClone(json);
    } catch (e) {
      throw new InvalidSnapshotError(`it cannot be copied (${messageOf(e)}); pass JSON text or plain JSON data`);
    }
    const problem = jsonProblem(data, limits.maxDepth ?? DEFAULT_SNAPSHOT_MAX_DEPTH);
    if (problem !== undefined) throw new InvalidSnapshotError(`it is not JSON data`, [jsonIssue(problem)]);
  }
  const byName = new Map(slices.map((s) => [s.name, s]));
  const freezeItems = limits.freeze ?? !isProduction();
  checkDepth(data, limits.maxDepth ?? DEFAULT_SNAPSHOT_MAX_DEPTH, keptAsRead(data, byName), freezeItems);
  // Every slice key must name a known slice, checked on the raw data: a "__proto__" key would
  // not survive as an own key of a parsed record (and slice names never are "__proto__").
  const rawSlices = data !== null && typeof data === 'object' ? (data as { slices?: unknown }).slices : undefined;
  if (rawSlices !== null && typeof rawSlices === 'object') {
    const known = new Set(slices.map((s) => s.name));
    for (const name of Object.keys(rawSlices)) if (!known.has(name)) throw new UnknownSliceError(name, [...known]);
  }
  const parsed = Envelope.safeParse(data);
  if (!parsed.success) throw new InvalidSnapshotError('its envelope is malformed', toIssues(parsed.error.issues));
  const body = parsed.data;
  if (body.formatVersion > SNAPSHOT_FORMAT_VERSION) {
    throw new InvalidSnapshotError(
      `it has format version ${body.formatVersion}, newer than this rxslice reads (${SNAPSHOT_FORMAT_VERSION}); upgrade rxslice`,
    );
  }
  const names = Object.keys(body.slices);
  const entries: SnapshotSlice[] = [];
  for (const name of names) {
    const def = byName.get(name);
    if (def === undefined) throw new UnknownSliceError(name, [...byName.keys()]);
    const entry = body.slices[name] as { policy: 'state' | 'log'; schemaVersion?: unknown; items: readonly unknown[]; appended?: number };
    if (entry.appended !== undefined && entry.appended < entry.items.length) {
      throw new InvalidSnapshotError(`slice ${quote(name)} says it appended ${entry.appended} items but holds ${entry.items.length}`);
    }
    const schemaVersion = entry.schemaVersion ?? 1;
    // Without a schema the parsed array itself is kept (it is this call's own: parsed, or a structured clone).
    const items = schemaVersion !== def.version ? migrateItems(def, entry.items, schemaVersion as number) : def.schema === undefined ? entry.items : entry.items.map((item, index) => {
      const r = (def.schema as NonNullable<typeof def.schema>).safeParse(item);
      if (!r.success) {
        throw new InvalidSnapshotError(`item ${index} of slice ${quote(name)} does not match its schema`, toIssues(r.error.issues));
      }
      return r.data;
    });
    const frozen = freezeItems ? deepFreeze(items) : Object.freeze(items);
    // With `appended`, the entry carries a capture (no backend token): a restore sets the count too.
    entries.push(
      Object.freeze(
        entry.appended === undefined ? { policy: def.policy, version: 0, items: frozen } : { policy: def.policy, version: 0, items: frozen, stored: Object.freeze({ items: frozen, appended: entry.appended }) },
      ),
    );
  }
  // Restoring it into a session with the same definitions needs no second validation.
  const provenance: SnapshotProvenance = { defOf: (name) => byName.get(name) };
  return makeSnapshot(body.seq, body.at, body.tag, names, entries, provenance, Object.freeze([...(body.parents ?? [])]), body.id);
}
