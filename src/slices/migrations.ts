import { formatIssues, RxSliceError, toIssues, type ValidationIssue } from '../internal/errors';
import type { SliceDef } from './reducer';
import { clip, messageOf, quote } from '../internal/quote';

export type { SliceMigrations } from './reducer';

/**
 * Thrown when stored data cannot be read by this code because of its schema version:
 * `code` is `'SLICE_VERSION_TOO_NEW'` when the data was written by a newer slice definition
 * (upgrade the code, never downgrade the data), `'SLICE_VERSION_INVALID'` when the stored
 * version is not an integer ≥ 1 (the data is damaged or not rxslice's).
 */
export class SliceVersionError extends RxSliceError {
  override readonly name = 'SliceVersionError';
  constructor(
    readonly sliceName: string,
    readonly storedVersion: unknown,
    readonly codeVersion: number,
  ) {
    const tooNew = typeof storedVersion === 'number' && Number.isInteger(storedVersion) && storedVersion > codeVersion;
    super(
      tooNew ? 'SLICE_VERSION_TOO_NEW' : 'SLICE_VERSION_INVALID',
      tooNew
        ? `Slice ${quote(sliceName)} was stored at schema version ${String(storedVersion)}, newer than this code's version ${codeVersion}. Run the newer code, or add version ${String(storedVersion)} and its migrations to defineSlice(${quote(sliceName)}, ...); data is never migrated downwards.`
        : `Slice ${quote(sliceName)} was stored with schema version ${clip(JSON.stringify(storedVersion))}, which is not an integer ≥ 1. The stored data is damaged or was not written by rxslice.`,
    );
  }
}

/**
 * Thrown when stored items cannot be brought to the slice's current schema: a migration step
 * threw (`step` is its key, `cause` the error), or the result does not match the current
 * schema (`step` is `undefined`, `issues` holds zod's issues). Nothing is read.
 */
export class MigrationError extends RxSliceError {
  override readonly name = 'MigrationError';
  constructor(
    readonly sliceName: string,
    readonly fromVersion: number,
    readonly toVersion: number,
    readonly itemIndex: number,
    readonly step: number | undefined,
    readonly issues: readonly ValidationIssue[] = [],
    options?: { cause?: unknown },
  ) {
    super(
      'MIGRATION_FAILED',
      step !== undefined
        ? `Migration ${step} → ${step + 1} of slice ${quote(sliceName)} failed on stored item ${itemIndex}: ${describe(options?.cause)}. Fix migrations[${step}] in defineSlice(${quote(sliceName)}, ...); nothing was read.`
        : fromVersion === toVersion
          ? `Stored item ${itemIndex} of slice ${quote(sliceName)} (version ${toVersion}) does not match its schema (${formatIssues(issues)}). Nothing was read.`
          : `Stored item ${itemIndex} of slice ${quote(sliceName)}, migrated from version ${fromVersion} to ${toVersion}, does not match the current schema (${formatIssues(issues)}). Make the migrations produce items of the current schema; nothing was read.`,
      options,
    );
  }
}

const describe = messageOf;

/**
 * @internal Checks a slice's `version` and `migrations` at definition time and returns the
 * problem as a sentence, or `undefined` when they are valid: `version` is an integer ≥ 1, every
 * step `1 .. version - 1` is a function, and no key lies outside that range.
 */
export function migrationConfigProblem(version: unknown, migrations: unknown): string | undefined {
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) {
    return `version must be an integer ≥ 1, got ${clip(JSON.stringify(version) ?? String(version))}.`;
  }
  if (migrations === undefined) {
    return version === 1 ? undefined : `version ${version} needs migrations for steps 1 to ${version - 1} ({ migrations: { 1: (item) => ..., ... } }).`;
  }
  if (migrations === null || typeof migrations !== 'object' || Array.isArray(migrations)) {
    return 'migrations must be an object keyed by the version each step upgrades from: { 1: (item) => ... }.';
  }
  const steps = migrations as Record<string, unknown>;
  for (const key of Object.keys(steps)) {
    const k = Number(key);
    if (!Number.isInteger(k) || k < 1 || k >= version || String(k) !== key) {
      return `migrations has key ${quote(key)}, but with version ${version} the keys are the versions 1 to ${version - 1} that each step upgrades from.`;
    }
  }
  for (let k = 1; k < version; k++) {
    const step = steps[k];
    if (typeof step !== 'function') {
      return `migrations[${k}] (version ${k} → ${k + 1}) is missing${step === undefined ? '' : ' or not a function'}; the chain 1 → ${version} must have every step.`;
    }
  }
  return undefined;
}

/**
 * Brings items stored at schema version `fromVersion` to the slice's current version: runs
 * `def.migrations[fromVersion]`, then `[fromVersion + 1]`, ... up to `def.version - 1` on each
 * item, then validates every result with `def.schema` (when the slice has one) and returns the
 * schema's output (unknown keys stripped, defaults filled).
 *
 * @remarks Synchronous and pure; the input array and items are not changed. With `fromVersion`
 * equal to the slice's version no step runs and the items are only validated. The result is a
 * fresh array (not frozen; callers freeze what they keep) of the schema's outputs, or of the
 * migrated values when the slice has no schema. Cost: one call per
 * step per item plus one schema parse per item.
 * @param def - The slice definition (its `version`, `migrations` and `schema`).
 * @param items - Items as stored (parsed JSON).
 * @param fromVersion - The schema version the items were stored at.
 * @throws {@link SliceVersionError} `SLICE_VERSION_TOO_NEW` when `fromVersion > def.version`,
 * `SLICE_VERSION_INVALID` when `fromVersion` is not an integer ≥ 1.
 * @throws {@link MigrationError} when a step throws or a result fails the current schema.
 * @example
 * ```ts
 * const Notes = defineSlice('notes', {
 *   policy: 'log',
 *   schema: z.object({ text: z.string(), tags: z.array(z.string()) }),
 *   version: 3,
 *   migrations: {
 *     1: (n: string) => ({ text: n }),            // v1 stored plain strings
 *     2: (n: { text: string }) => ({ ...n, tags: [] }),
 *   },
 * });
 * migrateItems(Notes, ['hi'], 1); // [{ text: 'hi', tags: [] }]
 * ```
 */
export function migrateItems<T>(def: SliceDef<string, T>, items: readonly unknown[], fromVersion: number): T[] {
  const toVersion = def.version;
  if (typeof fromVersion !== 'number' || !Number.isInteger(fromVersion) || fromVersion < 1 || fromVersion > toVersion) {
    throw new SliceVersionError(def.name, fromVersion, toVersion);
  }
  const out = new Array<T>(items.length);
  for (let i = 0; i < items.length; i++) {
    let item: unknown = items[i];
    for (let k = fromVersion; k < toVersion; k++) {
      const step = def.migrations[k];
      if (step === undefined) {
        // defineSlice rejects incomplete chains; this guards hand-made definitions.
        throw new MigrationError(def.name, fromVersion, toVersion, i, k, [], { cause: new Error(`migrations[${k}] is missing`) });
      }
      try {
        item = step(item);
      } catch (e) {
        throw new MigrationError(def.name, fromVersion, toVersion, i, k, [], { cause: e });
      }
    }
    if (def.schema !== undefined) {
      const r = def.schema.safeParse(item);
      if (!r.success) throw new MigrationError(def.name, fromVersion, toVersion, i, undefined, toIssues(r.error.issues));
      item = r.data;
    }
    out[i] = item as T;
  }
  return out;
}
