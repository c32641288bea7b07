import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmdirSync, statSync, utimesSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import lockfile from 'proper-lockfile';
import { RxSliceError } from '../../internal/errors';

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
 * (under a short takeover mutex, after checking that the lock is still the one that holder
 * made); any other lock is taken over by proper-lockfile once it is stale.
 * @throws {@link StorageLockedError} when a live writer holds it.
 */
export function lockDirectory(dir: string, options: LockOptions): DirectoryLock {
  const lockOptions = {
    stale: options.stale,
    realpath: false,
    lockfilePath: lockPath(dir),
    onCompromised: (e: Error) => options.onCompromised(new StorageLockCompromisedError(dir, e)),
  };
  let release: (() => void) | undefined;
  // ENOENT: another process removed the stale lock between our mkdir (EEXIST) and stat; try again.
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
  const releaseLock = release;
  try {
    const ino = statSync(lockPath(dir)).ino;
    writeOwner(dir, { pid: process.pid, host: hostname(), since: new Date().toISOString(), ino });
  } catch (e) {
    releaseLock();
    throw e;
  }
  return { release: releaseLock };
}

function writeOwner(dir: string, holder: LockHolder): void {
  const tmp = `${ownerPath(dir)}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'w');
  try {
    writeSync(fd, JSON.stringify(holder));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, ownerPath(dir));
}

/** Takes over the lock of a dead holder on this host, or throws StorageLockedError. */
function takeOver(dir: string, lockOptions: Parameters<typeof lockfile.lockSync>[1]): () => void {
  const holder = readHolder(dir);
  const locked = (): never => {
    throw new StorageLockedError(dir, readHolder(dir) ?? holder);
  };
  if (holder === undefined || holder.host !== hostname() || holder.pid === process.pid || !isDead(holder.pid)) return locked();
  // The mutex is held for a few system calls; one older than 2 s belongs to a killed taker.
  try {
    mkdirSync(takeoverPath(dir));
  } catch {
    try {
      if (Date.now() - statSync(takeoverPath(dir)).mtimeMs < 2000) return locked();
      utimesSync(takeoverPath(dir), new Date(), new Date());
    } catch {
      return locked();
    }
  }
  try {
    const now = readHolder(dir);
    let ino: number;
    try {
      ino = statSync(lockPath(dir)).ino;
    } catch {
      ino = -1;
    }
    if (now === undefined || now.pid !== holder.pid || now.host !== holder.host || (now.ino !== undefined && ino !== -1 && now.ino !== ino)) return locked();
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
  } finally {
    try {
      rmdirSync(takeoverPath(dir));
    } catch {
      // another taker removed a stale mutex
    }
  }
}
