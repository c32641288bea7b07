import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { linkSync, lstatSync, readdirSync, readFileSync, renameSync, rmdirSync, statSync, unlinkSync, writeFileSync, type Stats } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import lockfile from 'proper-lockfile';
import { RxSliceError } from '../internal/errors';
import { messageOf, quote } from '../internal/quote';

/** Who holds a storage directory's lock (the owner file written next to the lock). */
export interface LockHolder {
  readonly pid: number;
  readonly host: string;
  /** When the holder took the lock (ISO 8601). */
  readonly since: string;
  /** Inode of the lock directory the holder made: written by older versions only (the owner file is now written before the lock is made), and still checked when present. */
  readonly ino?: number;
}

/**
 * Thrown when a storage directory is locked by another live writer (another process, or another
 * open in this one). `holder` names it (pid, host, since) when its owner file could be read.
 * Nothing was read or written.
 */
export class StorageLockedError extends RxSliceError {
  override readonly name = 'StorageLockedError';
  constructor(readonly dir: string, readonly holder: LockHolder | undefined) {
    super(
      'STORAGE_LOCKED',
      `Storage directory ${quote(dir)} is locked by ${holder === undefined ? 'another writer (owner unknown)' : `pid ${holder.pid} on ${holder.host} since ${holder.since}`}. Only one session may write a directory; dispose the other session, or wait for its lock to go stale if that process died.`,
    );
  }
}

/** Reported (never thrown from a timer) when the lock was lost: its directory was removed or taken over. */
export class StorageLockCompromisedError extends RxSliceError {
  override readonly name = 'StorageLockCompromisedError';
  constructor(readonly dir: string, cause: unknown) {
    super('STORAGE_LOCK_COMPROMISED', `The lock of storage directory ${quote(dir)} was compromised (${messageOf(cause)}); this writer stopped writing.`, { cause });
  }
}

/** @internal Paths of the lock of `dir`. */
const lockPath = (dir: string): string => join(dir, 'LOCK');
const ownerPath = (dir: string): string => join(dir, 'LOCK.owner.json');
const mutexPath = (dir: string): string => join(dir, 'LOCK.takeover');
/** Temp and reaped files of the protocol, left behind only by a process killed between two steps. */
const LEFTOVER = /^LOCK\.(?:owner\.json|takeover)\.\d+(?:\.[0-9a-f]+)?\.(?:tmp|reap)$/;

/** What the acquisition mutex file holds: its maker, and a token telling this mutex from a later one. */
interface MutexRecord {
  readonly pid: number;
  readonly host: string;
  readonly token: string;
}

function readJson<T>(file: string): T | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

function readHolder(dir: string): LockHolder | undefined {
  const parsed = readJson<LockHolder>(ownerPath(dir));
  return typeof parsed?.pid === 'number' && typeof parsed.host === 'string' ? parsed : undefined;
}

/** True when process `pid` provably does not exist on this host. */
function isDead(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** True when `holder` is a process of this host, not this one, that no longer exists. */
const provablyDead = (holder: { readonly pid: number; readonly host: string } | undefined): boolean =>
  holder !== undefined && holder.host === hostname() && holder.pid !== process.pid && isDead(holder.pid);

const codeOf = (e: unknown): string | undefined => (e as NodeJS.ErrnoException).code;

function statOf(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (e) {
    if (codeOf(e) === 'ENOENT') return undefined;
    throw e;
  }
}

/** @internal A held directory lock. */
export interface DirectoryLock {
  release(): void;
}

/** @internal Options of {@link lockDirectory}. */
export interface LockOptions {
  /** ms after which a lock whose mtime was not refreshed counts as stale (proper-lockfile; ≥ 2000). */
  readonly stale: number;
  /** Told when the lock is compromised (from proper-lockfile's update timer). Must not throw. */
  readonly onCompromised: (error: StorageLockCompromisedError) => void;
  /**
   * Test hook: called after each change that acquisition and release make to the directory
   * (proper-lockfile's included), with its name, so a test can kill the process between any two.
   */
  readonly onStep?: (step: string) => void;
}

/**
 * @internal Locks `dir` (which must exist) with proper-lockfile (`dir/LOCK`, refreshed every
 * `stale / 2` ms) and an owner file `dir/LOCK.owner.json` (pid, host, time). The owner is known
 * before the lock is visible, so a process killed at any instant leaves a lock that the next
 * opener takes over at once (its holder provably dead), never one it must wait out.
 *
 * Acquisition and release run under a short mutex, `dir/LOCK.takeover`: a file made by linking a
 * fully written temp file (`link` fails when the name exists), so the mutex too names its maker
 * from the instant it exists. Under the mutex, acquisition writes the owner file first, then
 * makes `LOCK` (proper-lockfile's mkdir); release removes `LOCK` first, then the owner file. So
 * `LOCK` never exists without an owner file naming its maker: a lock whose recorded holder is a
 * dead process on this host is taken over at once, and any other lock (another host's, or a live
 * holder whose refresh stopped) by proper-lockfile once it is stale. A mutex whose maker is dead
 * is removed at once (renamed aside first and checked to be the dead maker's, so a mutex made
 * meanwhile is never removed); one whose maker lives is waited out (`stale`).
 * @throws {@link StorageLockedError} when a live writer holds it, or another process is acquiring it.
 */
export function lockDirectory(dir: string, options: LockOptions): DirectoryLock {
  const step = options.onStep ?? ((): void => undefined);
  const stale = Math.max(options.stale, 2000);
  const lockOptions: LockfileOptions = {
    stale,
    realpath: false,
    lockfilePath: lockPath(dir),
    onCompromised: (e: Error) => options.onCompromised(new StorageLockCompromisedError(dir, e)),
    ...(options.onStep === undefined ? {} : { fs: steppedFs(options.onStep) }),
  };
  const me: LockHolder = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
  const unlockMutex = acquireMutex(dir, stale, step);
  let releaseLock: () => void;
  try {
    removeLeftovers(dir, stale);
    releaseLock = acquireLock(dir, me, lockOptions, step);
  } finally {
    unlockMutex();
  }
  return { release: () => releaseDirectory(dir, me, releaseLock, stale, step) };
}

type LockfileOptions = NonNullable<Parameters<typeof lockfile.lockSync>[1]> & { readonly stale: number };

/** Takes `LOCK` (the caller holds the mutex): the owner file first, then the lock directory. */
function acquireLock(dir: string, me: LockHolder, lockOptions: LockfileOptions, step: (name: string) => void): () => void {
  const holder = readHolder(dir);
  const existing = statOf(lockPath(dir));
  // An owner file of an older rxslice records the inode of the lock its holder made.
  const deadLock = existing !== undefined && provablyDead(holder) && (holder?.ino === undefined || holder.ino === existing.ino);
  if (existing !== undefined && !deadLock && existing.mtimeMs >= Date.now() - lockOptions.stale) throw new StorageLockedError(dir, holder);
  let previous: string | undefined;
  try {
    previous = readFileSync(ownerPath(dir), 'utf8');
  } catch {
    previous = undefined;
  }
  writeOwner(dir, me, step);
  try {
    if (deadLock) {
      try {
        rmdirSync(lockPath(dir));
        step('dead-lock-removed');
      } catch (e) {
        if (codeOf(e) !== 'ENOENT') throw e;
      }
    }
    // ENOENT: proper-lockfile found the lock gone between its mkdir (EEXIST) and stat; try again.
    for (let attempt = 0; ; attempt++) {
      try {
        return lockfile.lockSync(dir, lockOptions);
      } catch (e) {
        if (codeOf(e) === 'ENOENT' && attempt < 3) continue;
        // ELOCKED: a lock made outside this protocol (an older rxslice) or refreshed since the check above.
        if (codeOf(e) === 'ELOCKED') throw new StorageLockedError(dir, holder);
        throw e;
      }
    }
  } catch (e) {
    // The owner file names this process but the lock is not ours: put back what was there.
    try {
      if (previous === undefined) unlinkSync(ownerPath(dir));
      else writeFileSync(ownerPath(dir), previous);
    } catch {
      // best effort: a lock whose owner file names a live process that does not hold it is taken over once stale
    }
    throw e;
  }
}

/** Releases: `LOCK` first, then (when the mutex is free) the owner file; a lock that was compromised is left to its taker. */
function releaseDirectory(dir: string, me: LockHolder, releaseLock: () => void, stale: number, step: (name: string) => void): void {
  let unlockMutex: (() => void) | undefined;
  try {
    unlockMutex = acquireMutex(dir, stale, step);
  } catch {
    // Another process is acquiring: the owner file stays, naming this process. Without `LOCK`
    // it means nothing, and the next acquirer replaces it.
  }
  try {
    releaseLock();
    const holder = readHolder(dir);
    if (unlockMutex !== undefined && holder?.pid === me.pid && holder.host === me.host && holder.since === me.since) {
      unlinkSync(ownerPath(dir));
      step('owner-removed');
    }
  } finally {
    unlockMutex?.();
  }
}

/**
 * Takes the acquisition mutex of `dir`: links a temp file holding this process's record to
 * `LOCK.takeover` (atomic, and exclusive on every local file system). A mutex whose maker is
 * dead, or that is older than `stale` ms (its maker unknown or stuck), is removed first.
 * @throws {@link StorageLockedError} when another live process holds it (it is acquiring or releasing the lock).
 */
function acquireMutex(dir: string, stale: number, step: (name: string) => void): () => void {
  const record: MutexRecord = { pid: process.pid, host: hostname(), token: randomBytes(8).toString('hex') };
  const tmp = `${mutexPath(dir)}.${process.pid}.${record.token}.tmp`;
  writeFileSync(tmp, JSON.stringify(record));
  step('mutex-temp-written');
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        linkSync(tmp, mutexPath(dir));
        step('mutex-made');
        break;
      } catch (e) {
        if (codeOf(e) !== 'EEXIST') throw e;
        if (attempt === 2 || !removeDeadMutex(dir, stale, record.token, step)) throw new StorageLockedError(dir, readHolder(dir));
      }
    }
  } finally {
    try {
      unlinkSync(tmp);
      step('mutex-temp-removed');
    } catch {
      // nothing to do: a leftover temp file is removed by a later acquisition
    }
  }
  return () => {
    if (readJson<MutexRecord>(mutexPath(dir))?.token !== record.token) return; // removed as stale meanwhile
    try {
      unlinkSync(mutexPath(dir));
      step('mutex-removed');
    } catch {
      // removed as stale meanwhile
    }
  };
}

/**
 * Removes the mutex when its maker is provably dead or it is older than `stale` ms, and says
 * whether the place is free now. The mutex is renamed aside first and checked to be the one
 * judged: one that another process made meanwhile is put back, never removed.
 */
function removeDeadMutex(dir: string, stale: number, token: string, step: (name: string) => void): boolean {
  const path = mutexPath(dir);
  const stat = statOf(path);
  if (stat === undefined) return true;
  const old = stat.mtimeMs < Date.now() - stale;
  if (stat.isDirectory()) {
    // The mutex of an older rxslice: a directory, its maker unknown.
    if (!old) return false;
    try {
      rmdirSync(path);
    } catch (e) {
      return codeOf(e) === 'ENOENT';
    }
    step('mutex-removed-as-stale');
    return true;
  }
  const held = readJson<MutexRecord>(path);
  if (!old && !provablyDead(held)) return false;
  const aside = `${path}.${process.pid}.${token}.reap`;
  try {
    renameSync(path, aside);
  } catch (e) {
    return codeOf(e) === 'ENOENT';
  }
  step('mutex-moved-aside');
  const moved = readJson<MutexRecord>(aside);
  if (moved?.token !== held?.token) {
    try {
      linkSync(aside, path);
    } catch {
      // the place was taken again meanwhile: its maker holds the mutex
    }
    unlinkSync(aside);
    return false;
  }
  unlinkSync(aside);
  step('mutex-removed-as-dead');
  return true;
}

/** Removes temp files of this protocol older than `stale` ms (a process was killed between two of its steps). */
function removeLeftovers(dir: string, stale: number): void {
  for (const name of readdirSync(dir)) {
    if (!LEFTOVER.test(name)) continue;
    try {
      if (statSync(join(dir, name)).mtimeMs < Date.now() - stale) unlinkSync(join(dir, name));
    } catch {
      // gone meanwhile
    }
  }
}

/**
 * Writes the owner file (temp + rename: readers see the old file or the new one, never a part).
 * Not fsynced: other processes read it from the page cache, and after a power loss it is no
 * more durable than the lock directory it describes (proper-lockfile's mkdir, not fsynced
 * either); a lock whose owner file is missing or empty is taken over once stale. Its fsync cost
 * a few ms of every open.
 */
function writeOwner(dir: string, holder: LockHolder, step: (name: string) => void): void {
  const tmp = `${ownerPath(dir)}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(holder));
  step('owner-temp-written');
  renameSync(tmp, ownerPath(dir));
  step('owner-written');
}

/** The file system proper-lockfile uses under a test hook: its changes (mkdir, utimes, rmdir) call the hook. */
function steppedFs(onStep: (step: string) => void): typeof fs {
  const after =
    <TArgs extends unknown[], TResult>(name: string, f: (...args: TArgs) => TResult) =>
    (...args: TArgs): TResult => {
      const result = f(...args);
      onStep(name);
      return result;
    };
  return {
    ...fs,
    mkdirSync: after('lock-made', fs.mkdirSync as (...args: unknown[]) => unknown),
    utimesSync: after('lock-touched', fs.utimesSync),
    rmdirSync: after('lock-removed', fs.rmdirSync),
  } as typeof fs;
}
