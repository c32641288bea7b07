import { ftruncateSync, fsyncSync, openSync, readdirSync, readFileSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { CorruptStorageError, decodeBase, scanJournal, type JournalRecord, type SliceChange } from './journal-format';
import { SliceFold, type RawSlice } from './slice-fold';
import { fsyncDirectory } from './snapshot-file';

// Opening a JSONL directory: which base file and journal segment are current, what is left over
// from a compaction cut short, and what a damaged journal tail does (the recovery mode). The
// journal (./jsonl-journal.ts) continues from what this finds.

/**
 * What opening does with damaged records (named after RocksDB's WAL recovery modes):
 *
 * - `'tolerate-torn-tail'` (default): a damaged LAST record (a write cut by a crash: no newline,
 *   or a bad CRC with nothing after it) is truncated and reported; damage before the last
 *   record throws {@link CorruptStorageError} naming the file and byte offset.
 * - `'absolute'`: any damage, a torn tail included, throws {@link CorruptStorageError}.
 * - `'point-in-time'`: opens at the last good record before the first damage, truncating
 *   everything from there; what was dropped is reported in {@link JsonlRecovery.dropped}.
 */
export type JsonlRecoveryMode = 'tolerate-torn-tail' | 'absolute' | 'point-in-time';

/** What an open found in the directory. */
export interface JsonlRecovery {
  readonly dir: string;
  /** The `seq` of the base file the journal continues (0: none). */
  readonly baseSeq: number;
  /** The `seq` of the last recovered event (the session continues after it). */
  readonly lastSeq: number;
  /** Journal records replayed on top of the base. */
  readonly records: number;
  /**
   * What was truncated, when a torn tail (`'tolerate-torn-tail'`) or damaged records
   * (`'point-in-time'`) were dropped: the file, the byte offset where the first bad record
   * started, the bytes and lines removed from there, and why the first one was bad.
   */
  readonly dropped?: { readonly file: string; readonly offset: number; readonly bytes: number; readonly lines: number; readonly reason: string };
}

export type { RawSlice } from './slice-fold';

/** What {@link recoverJournal} found and opened: where the journal continues. */
export interface RecoveredJournal {
  /** The current journal segment, open for appends. */
  readonly fd: number;
  readonly baseSeq: number;
  /** The `seq` of the last recovered record (`baseSeq` when there is none). */
  readonly lastSeq: number;
  /** Bytes in the journal segment (after any truncation) and in the base file. */
  readonly journalBytes: number;
  readonly baseBytes: number;
  readonly recovery: JsonlRecovery;
}

/** The journal segment that continues the base file of `baseSeq` (0: no base). */
export const journalFileOf = (dir: string, baseSeq: number): string => join(dir, `journal-${baseSeq}.jsonl`);

/**
 * Reads the newest base file and its journal segment in `dir`, checks them, removes what a cut
 * compaction left, truncates what `mode` allows, and opens the segment for appends. Each slice's
 * base and records go into `raw` (the slices are opened later, by name). `syncNewJournal`
 * (default true): fsync the directory when the segment is new.
 * @throws {@link CorruptStorageError} for damage `mode` may not skip.
 */
export function recoverJournal(dir: string, mode: JsonlRecoveryMode, raw: Map<string, RawSlice>, syncNewJournal = true): RecoveredJournal {
  const names = readdirSync(dir);
  // Each slice's records are folded as they are read (see ./slice-fold.ts), then handed to `raw`.
  const folds = new Map<string, SliceFold>();
  let baseSeq = 0;
  for (const name of names) {
    const m = /^base-(\d+)\.json$/.exec(name);
    if (m !== null) baseSeq = Math.max(baseSeq, Number(m[1]));
    // Only the compaction's own temp files: others in the directory belong to other protocols (the
    // lock's `LOCK.*.tmp`, written by a process acquiring it right now).
    else if (/^base-\d+\.json\.tmp$/.test(name)) unlinkSync(join(dir, name));
  }
  let baseBytes = 0;
  if (baseSeq > 0) {
    const file = join(dir, `base-${baseSeq}.json`);
    const buf = readFileSync(file);
    const base = decodeBase(buf);
    if (typeof base === 'string') throw new CorruptStorageError(file, 0, base);
    if (base.seq !== baseSeq) throw new CorruptStorageError(file, 0, `it holds seq ${base.seq}, its name says ${baseSeq}`);
    baseBytes = buf.length;
    for (const [name, slice] of Object.entries(base.slices)) folds.set(name, new SliceFold(slice));
  }
  // Segments and bases older than the chosen base are left by a compaction cut short.
  for (const name of names) {
    const m = /^(base|journal)-(\d+)\.jsonl?$/.exec(name);
    if (m !== null && Number(m[2]) < baseSeq) unlinkSync(join(dir, name));
  }
  const file = journalFileOf(dir, baseSeq);
  let buf: Buffer;
  try {
    buf = readFileSync(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    buf = Buffer.alloc(0);
  }
  const scan = scanJournal(buf, baseSeq, (rec) => addRecord(folds, rec));
  for (const [name, fold] of folds) raw.set(name, fold.finish());
  let dropped: JsonlRecovery['dropped'];
  if (scan.bad !== undefined) {
    const bad = scan.bad;
    if (mode === 'absolute' || (mode === 'tolerate-torn-tail' && !bad.tail)) throw new CorruptStorageError(file, bad.offset, bad.reason);
    dropped = { file, offset: bad.offset, bytes: buf.length - bad.offset, lines: bad.droppedLines, reason: bad.reason };
  }
  const fd = openSync(file, 'a');
  if (dropped !== undefined) {
    ftruncateSync(fd, scan.goodBytes);
    fsyncSync(fd);
  }
  // A new segment's directory entry is made durable, unless the caller never syncs (`fsync:
  // 'never'`, where a power loss may lose any number of records: the whole segment is one such loss).
  if (buf.length === 0 && syncNewJournal) fsyncDirectory(file);
  const lastSeq = scan.lastSeq;
  return {
    fd,
    baseSeq,
    lastSeq,
    journalBytes: scan.goodBytes,
    baseBytes,
    recovery: { dir, baseSeq, lastSeq, records: scan.count, ...(dropped === undefined ? {} : { dropped }) },
  };
}

/** Folds one journal record's slice changes into their slices' folds. */
function addRecord(folds: Map<string, SliceFold>, rec: JournalRecord): void {
  const slices = rec.slices;
  for (const name in slices) {
    if (!Object.hasOwn(slices, name)) continue;
    const change = slices[name] as SliceChange;
    let fold = folds.get(name);
    if (fold === undefined) folds.set(name, (fold = new SliceFold(undefined)));
    fold.add(rec.at, change.v, change.ops);
  }
}
