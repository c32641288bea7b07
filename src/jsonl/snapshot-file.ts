import { closeSync, fsyncSync, openSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { RxSliceError } from '../internal/errors';
import type { SliceDef } from '../slices/reducer';
import { InvalidSnapshotError, snapshotFromJSON, type SnapshotReadLimits } from '../snapshots/codec';
import { SNAPSHOT_FORMAT_VERSION, type Snapshot } from '../snapshots/snapshot';
import { quote } from '../internal/quote';

/** Thrown by {@link loadSnapshot} when there is no file at the path. */
export class SnapshotFileNotFoundError extends RxSliceError {
  override readonly name = 'SnapshotFileNotFoundError';
  constructor(readonly path: string) {
    super(
      'SNAPSHOT_FILE_NOT_FOUND',
      `No snapshot file at ${quote(path)}. Save one first with saveSnapshot(path, session.snapshot()), check the path, ` +
        `or pass loadSnapshot(path, { slices, ifMissing: 'initial' }) to start from defaults.`,
    );
  }
}

/** Thrown by {@link saveSnapshot} and {@link loadSnapshot} when the file system fails (permissions, disk full, a directory at the path); `cause` is the system error. */
export class SnapshotFileError extends RxSliceError {
  override readonly name = 'SnapshotFileError';
  constructor(
    readonly path: string,
    operation: 'save' | 'load',
    cause: unknown,
  ) {
    super(
      'SNAPSHOT_FILE_IO',
      `Could not ${operation} the snapshot file ${quote(path)}: ${(cause as Error)?.message ?? String(cause)}.${operation === 'save' ? ' The previous file, if any, is unchanged.' : ''}`,
      { cause },
    );
  }
}

/** Options of {@link saveSnapshot}. */
export interface SaveSnapshotOptions {
  /** File mode of a new file. Default `0o666` minus the umask. */
  readonly mode?: number;
}

/**
 * fsyncs the directory holding `path`, so that a rename into it survives a power loss (POSIX
 * makes the new directory entry durable only then). Windows cannot open a directory for this
 * and orders renames itself: skipped there.
 */
export function fsyncDirectory(path: string): void {
  if (process.platform === 'win32') return;
  const fd = openSync(dirname(path), 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Thrown by {@link saveSnapshot} when its argument is not a snapshot; nothing is written. */
export class NotASnapshotError extends RxSliceError {
  override readonly name = 'NotASnapshotError';
  constructor(readonly path: string) {
    super('INVALID_SNAPSHOT', `saveSnapshot(${quote(path)}, ...) expects a Snapshot: pass session.snapshot() or a snapshot from loadSnapshot/snapshotFromJSON. Nothing was written.`);
  }
}

function snapshotText(path: string, snapshot: Snapshot): string {
  if (snapshot === null || typeof snapshot !== 'object' || typeof (snapshot as { toJSON?: unknown }).toJSON !== 'function') {
    throw new NotASnapshotError(path);
  }
  return JSON.stringify(snapshot);
}

/**
 * Writes `snapshot` to `path` atomically and durably: the JSON goes to a temporary file in the
 * same directory, which is fsynced and renamed over `path` (write-file-atomic), then the
 * directory is fsynced. After a crash at any instant, `path` holds either the previous file or
 * the whole new one, never a mix or a truncated file.
 *
 * @remarks Async (resolves once the directory fsync is done); concurrent saves to one path are
 * serialized by write-file-atomic. The JSON is the snapshot codec's (format version and each
 * slice's schema version), read back by {@link loadSnapshot} or `snapshotFromJSON`.
 * Source: the seed's "temp file + rename" rule; POSIX rename(2) atomicity.
 * @param path - The file to write (its directory must exist).
 * @param snapshot - A snapshot (`session.snapshot({ includeLogs: true })` to keep the logs too).
 * @throws {@link NotASnapshotError} (synchronously, code `INVALID_SNAPSHOT`) when `snapshot` is not a snapshot.
 * @throws {@link SnapshotFileError} (rejects) when writing, renaming or fsyncing fails; the old file is kept.
 * @example
 * ```ts
 * await saveSnapshot('.agent/state.json', session.snapshot({ includeLogs: true }));
 * const again = loadSnapshot('.agent/state.json', [Plan, Messages]); // the same state
 * ```
 */
export function saveSnapshot(path: string, snapshot: Snapshot, options: SaveSnapshotOptions = {}): Promise<void> {
  const text = snapshotText(path, snapshot);
  return writeFileAtomic(path, text, { fsync: true, ...(options.mode === undefined ? {} : { mode: options.mode }) }).then(
    () => {
      try {
        fsyncDirectory(path);
      } catch (e) {
        throw new SnapshotFileError(path, 'save', e);
      }
    },
    (e: unknown) => {
      throw new SnapshotFileError(path, 'save', e);
    },
  );
}

/**
 * The synchronous form of {@link saveSnapshot} (same guarantees), for code that must finish the
 * write before it goes on, such as a process about to exit.
 *
 * @throws {@link NotASnapshotError} when `snapshot` is not a snapshot; {@link SnapshotFileError} when the file system fails.
 * @example
 * ```ts
 * saveSnapshotSync('.agent/state.json', session.snapshot({ includeLogs: true }));
 * ```
 */
export function saveSnapshotSync(path: string, snapshot: Snapshot, options: SaveSnapshotOptions = {}): void {
  const text = snapshotText(path, snapshot);
  try {
    writeFileAtomic.sync(path, text, { fsync: true, ...(options.mode === undefined ? {} : { mode: options.mode }) });
    fsyncDirectory(path);
  } catch (e) {
    throw new SnapshotFileError(path, 'save', e);
  }
}

/**
 * What {@link loadSnapshot} returns when there is no file at the path (`ENOENT`; any other failure
 * still throws): `'throw'` (default) throws {@link SnapshotFileNotFoundError}; `'initial'` gives a
 * snapshot holding every slice of `slices` at its `initial` items (the slices' own defaults); a
 * snapshot is returned as it is; a function is called (only then) for the snapshot to return.
 */
export type IfSnapshotMissing = 'throw' | 'initial' | Snapshot | (() => Snapshot);

/** Options of {@link loadSnapshot}: the read limits of `snapshotFromJSON`, and what a missing file gives. */
export interface LoadSnapshotOptions extends SnapshotReadLimits {
  /** See {@link IfSnapshotMissing}. Default `'throw'`. */
  readonly ifMissing?: IfSnapshotMissing;
}

/**
 * Reads a snapshot file written by {@link saveSnapshot}, validated exactly as `snapshotFromJSON`
 * validates: size and depth limits, the envelope, every item with its slice's schema, older
 * schema versions migrated, no prototype pollution. Synchronous, like `createSession`.
 *
 * @remarks A state file that does not exist yet is the normal first run of a program: with
 * `ifMissing`, a missing file (`ENOENT` only) gives defaults instead of an error. A file that
 * exists but cannot be read, or is corrupt, truncated or over the limits, still throws: defaults
 * never hide damage. `'initial'` defaults go through the same validation as a file (each slice's
 * `initial` items against its schema), at `seq` 0 and `at` 0, untagged, with no parents.
 * Called as `loadSnapshot(path, { slices, ifMissing, ...limits })` or `loadSnapshot(path, slices, options)`;
 * `slices` are the slice definitions the snapshot may contain.
 * @param path - The file to read.
 * @param options - `slices`, read limits (`maxBytes`, `maxDepth`) and `ifMissing` (see {@link IfSnapshotMissing}).
 * @throws {@link SnapshotFileNotFoundError} when there is no file at `path` and `ifMissing` is
 * `'throw'` (the default); {@link SnapshotFileError} on other file system errors (permissions, a
 * directory at the path), whatever `ifMissing` says;
 * `InvalidSnapshotError` when the file is not valid snapshot JSON (corrupt, truncated, over the
 * limits), or when `ifMissing` is neither `'throw'`, `'initial'`, a snapshot nor a function
 * returning one; `SliceVersionError` when it was written by newer slice definitions;
 * `MigrationError` when a migration fails; `UnknownSliceError` when it holds a slice not in `slices`.
 * @example
 * ```ts
 * // First run: no file yet, so the session starts from the slices' initial items.
 * const state = loadSnapshot('.agent/state.json', { slices: [Plan, Settings], ifMissing: 'initial' });
 * session.restore(state);
 * state.seq; // 0 when the file was missing
 * loadSnapshot('.agent/none.json', { slices: [Plan], ifMissing: () => defaults }); // defaults, built only when needed
 * ```
 */
export function loadSnapshot(path: string, options: LoadSnapshotOptions & { readonly slices: readonly SliceDef<string, any>[] }): Snapshot;
export function loadSnapshot(path: string, slices: readonly SliceDef<string, any>[], options?: LoadSnapshotOptions): Snapshot;
export function loadSnapshot(
  path: string,
  slicesOrOptions: readonly SliceDef<string, any>[] | (LoadSnapshotOptions & { readonly slices: readonly SliceDef<string, any>[] }),
  third: LoadSnapshotOptions = {},
): Snapshot {
  const options: LoadSnapshotOptions = Array.isArray(slicesOrOptions) ? third : (slicesOrOptions as LoadSnapshotOptions);
  const slices: readonly SliceDef<string, any>[] = Array.isArray(slicesOrOptions)
    ? slicesOrOptions
    : ((slicesOrOptions as { slices?: readonly SliceDef<string, any>[] } | null)?.slices as readonly SliceDef<string, any>[]);
  if (!Array.isArray(slices)) throw new InvalidSnapshotError(`loadSnapshot(${quote(path)}, { slices }) needs slices, an array of the slice definitions the file may hold`);
  const ifMissing = options.ifMissing ?? 'throw';
  checkIfMissing(ifMissing);
  const limits: SnapshotReadLimits = {
    ...(options.maxBytes === undefined ? {} : { maxBytes: options.maxBytes }),
    ...(options.maxDepth === undefined ? {} : { maxDepth: options.maxDepth }),
  };
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw new SnapshotFileError(path, 'load', e);
    if (ifMissing === 'throw') throw new SnapshotFileNotFoundError(path);
    return defaults(path, ifMissing, slices, limits);
  }
  return snapshotFromJSON(text, slices, limits);
}

function checkIfMissing(ifMissing: unknown): void {
  if (ifMissing === 'throw' || ifMissing === 'initial' || typeof ifMissing === 'function') return;
  if (ifMissing !== null && typeof ifMissing === 'object' && typeof (ifMissing as { toJSON?: unknown }).toJSON === 'function') return;
  throw new InvalidSnapshotError(`loadSnapshot option ifMissing must be 'throw', 'initial', a snapshot or a function returning one (got ${typeof ifMissing === 'string' ? `${quote(ifMissing)}` : String(ifMissing)})`);
}

/** The snapshot `ifMissing` gives for a missing file. */
function defaults(path: string, ifMissing: Exclude<IfSnapshotMissing, 'throw'>, slices: readonly SliceDef<string, any>[], limits: SnapshotReadLimits): Snapshot {
  if (ifMissing === 'initial') {
    // Through the codec, so the defaults are validated, frozen and trusted exactly as a file would be.
    const entries: Record<string, { policy: string; schemaVersion: number; items: readonly unknown[] }> = {};
    for (const def of slices) entries[def.name] = { policy: def.policy, schemaVersion: def.version ?? 1, items: def.initial };
    return snapshotFromJSON({ format: 'rxslice.snapshot', formatVersion: SNAPSHOT_FORMAT_VERSION, parents: [], seq: 0, at: 0, slices: entries }, slices, limits);
  }
  const snapshot = typeof ifMissing === 'function' ? ifMissing() : ifMissing;
  if (snapshot === null || typeof snapshot !== 'object' || typeof (snapshot as { toJSON?: unknown }).toJSON !== 'function') {
    throw new InvalidSnapshotError(`the ifMissing function of loadSnapshot(${quote(path)}) returned ${snapshot === null ? 'null' : typeof snapshot}, not a snapshot`);
  }
  return snapshot;
}
