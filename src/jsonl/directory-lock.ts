import { closeSync, mkdirSync, openSync, readFileSync, renameSync, rmdirSync, statSync, unlinkSync, utimesSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import lockfile from 'proper-lockfile';
import { RxSliceError } from '../internal/errors';

/** Who holds a storage directory's lock (the owner file written next to the lock). */
export interface LockHolder {
  readonly pid: number;
  readonly host: string;
  /** When the holder took the lock (ISO 8601). */
  readonly since: string;
  /** Inode of the lock directory the holder made (tells a dead holder's lock from a new one). */
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
      `Storage directory "${dir}" is locked by ${holder === undefined ? 'another writer (owner unknown)' : `pid ${holder.pid} on ${holder.host} since ${holder.since}`}. Only one session may write a directory; dispose the other session, or wait for its lock to go stale if that process died.`,
    );
  }
}

/** Reported (never thrown from a timer) when the lock was lost: its directory was removed or taken over. */
export class StorageLockCompromisedError extends RxSliceError {
  override readonly name = 'StorageLockCompromisedError';
  constructor(readonly dir: string, cause: unknown) {
    super('STORAGE_LOCK_COMPROMISED', `The lock of storage directory "${dir}" was compromised (${cause instanceof Error ? cause.message : String(cause)}); this writer stopped writing.`, { cause });
  }
}

/** @internal Paths of the lock of `dir`. */
const lockPath = (dir: string): string => join(dir, 'LOCK');
const ownerPath = (dir: string): string => join(dir, 'LOCK.owner.json');
const takeoverPath = (dir: string): string => join(dir, 'LOCK.takeover');

function readHolder(dir: string): LockHolder | undefined {
  try {
    const parsed = JSON.parse(readFileSync(ownerPath(dir), 'utf8')) as LockHolder;
    return typeof parsed.pid === 'number' && typeof parsed.host === 'string' ? parsed : undefined;
  } catch {
    return undefined;
  }
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
}

/**
 * @internal Locks `dir` (which must exist) with proper-lockfile (`dir/LOCK`, refreshed every
 * `stale / 2` ms) and writes the owner file `dir/LOCK.owner.json` (pid, host, time, inode of
 * the lock). A lock whose recorded holder is a dead process on this host is taken over at once
 * (after checking that the lock is still the one that holder made); any other lock is taken
 * over by proper-lockfile once it is stale.
 *
 * Every acquisition, plain or takeover, runs under a short mutex (`dir/LOCK.takeover`) up to and
 * including the owner file's write, so no process ever judges a lock by an owner file that its
 * maker has not yet replaced: without it, a process taking over a dead holder's lock could
 * remove a lock another process had just made, when that lock reused the dead lock's inode.
 * The owner file is removed on release.
 * @throws {@link StorageLockedError} when a live writer holds it, or another process is acquiring it.
 */
export function lockDirectory(dir: string, options: LockOptions): DirectoryLock {
  const lockOptions = {
    stale: options.stale,
    realpath: false,
    lockfilePath: lockPath(dir),
    onCompromised: (e: Error) => options.onCompromised(new StorageLockCompromisedError(dir, e)),
  };
  const unlockMutex = acquireMutex(dir);
  let releaseLock: () => void;
  try {
    let release: (() => void) | undefined;
    // ENOENT: proper-lockfile found the lock gone between its mkdir (EEXIST) and stat; try again.
    for (let attempt = 0; release === undefined; attempt++) {
      try {
        release = lockfile.lockSync(dir, lockOptions);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' && attempt < 3) continue;
        if (code !== 'ELOCKED') throw e;
        release = takeOver(dir, lockOptions);
      }
    }
    releaseLock = release;
    try {
      const ino = statSync(lockPath(dir)).ino;
      writeOwner(dir, { pid: process.pid, host: hostname(), since: new Date().toISOString(), ino });
    } catch (e) {
      releaseLock();
      throw e;
    }
  } finally {
    unlockMutex();
  }
  return {
    release: () => {
      try {
        unlinkSync(ownerPath(dir));
      } catch {
        // already gone (a taker replaced it after this lock was compromised)
      }
      releaseLock();
    },
  };
}

/**
 * Takes the acquisition mutex of `dir` (a directory made with mkdir, atomic on every local file
 * system). One older than 2 s belongs to a killed process and is taken over.
 * @throws {@link StorageLockedError} when another process holds it (it is acquiring the lock).
 */
function acquireMutex(dir: string): () => void {
  try {
    mkdirSync(takeoverPath(dir));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    try {
      if (Date.now() - statSync(takeoverPath(dir)).mtimeMs < 2000) throw new StorageLockedError(dir, readHolder(dir));
      utimesSync(takeoverPath(dir), new Date(), new Date());
    } catch (error) {
      if (error instanceof StorageLockedError) throw error;
      throw new StorageLockedError(dir, readHolder(dir));
    }
  }
  return () => {
    try {
      rmdirSync(takeoverPath(dir));
    } catch {
      // a process that judged this mutex stale removed it
    }
  };
}

/**
 * Writes the owner file (temp + rename: readers see the old file or the new one, never a part).
 * Not fsynced: other processes read it from the page cache, and after a power loss it is no
 * more durable than the lock directory it describes (proper-lockfile's mkdir, not fsynced
 * either); a lock whose owner file is missing or empty is taken over once stale. Its fsync cost
 * a few ms of every open.
 */
function writeOwner(dir: string, holder: LockHolder): void {
  const tmp = `${ownerPath(dir)}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'w');
  try {
    writeSync(fd, JSON.stringify(holder));
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, ownerPath(dir));
}

/** Takes over the lock of a dead holder on this host (the caller holds the mutex), or throws StorageLockedError. */
function takeOver(dir: string, lockOptions: Parameters<typeof lockfile.lockSync>[1]): () => void {
  const holder = readHolder(dir);
  const locked = (): never => {
    throw new StorageLockedError(dir, readHolder(dir) ?? holder);
  };
  if (holder === undefined || holder.host !== hostname() || holder.pid === process.pid || !isDead(holder.pid)) return locked();
  let ino: number;
  try {
    ino = statSync(lockPath(dir)).ino;
  } catch {
    ino = -1;
  }
  if (holder.ino !== undefined && ino !== -1 && holder.ino !== ino) return locked();
  if (ino !== -1) {
    try {
      rmdirSync(lockPath(dir));
    } catch {
      return locked();
    }
  }
  try {
    return lockfile.lockSync(dir, lockOptions);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ELOCKED') return locked();
    throw e;
  }
}
