import { isAscii } from 'node:buffer';
import { RxSliceError } from '../internal/errors';
import { BODY_OFFSET, crcOf, encodeLine, lineCrc } from './recording-format';
import { CAUSE_CHARS, clip, quote } from '../internal/quote';

/**
 * @internal The files of a JSONL storage directory (one journal for every slice of the factory):
 *
 * - `base-<S>.json` — the state after event `S` (S = 0: none), one line in the recording line
 *   format `{"crc":"<8 hex>","rec":<body>}\n` with body
 *   `{"format":"rxslice.journal-base","formatVersion":1,"seq":S,"slices":{"<name>":{"v":<schema version>,"items":[...],"times":[...],"appended":N,"tail":[<records>]?}}}`;
 *   written temp + fsync + rename + directory fsync, so it is either whole or absent.
 * - `journal-<S>.jsonl` — the records of the events after `S`, one line each (same line
 *   format, CRC32 of the body): `{"seq":Q,"prev":P,"at":T,"slices":{"<name>":{"v":V,"ops":[...]}}}`
 *   where `prev` is the previous record's `seq` (`S` for the first), so a missing record is
 *   detected. A record with no slices (`"slices":{}`) is a seq-only record: a committed event
 *   that changed nothing stored here, kept so that a reopen continues after its `seq` (written
 *   since issue 37; every reader of the format takes it as a record that changes nothing, and
 *   a directory without them, whose seqs may skip, opens as before). Ops, applied in order: `["a",[items]]` append, `["r",[items]]` replace,
 *   `["s",[items],appended]` restore, `["u",index,[item]]` the item at index replaced (the other
 *   items keep their place and time), `["c"]` clear all, `["f",n]` / `["b",n]` drop n items at the
 *   front / back, `["i",[indices]]` drop those indices (ascending).
 * - `LOCK` (proper-lockfile's lock directory), `LOCK.owner.json` (pid, host, since: written before
 *   `LOCK` is made) and, while a process acquires or releases the lock, `LOCK.takeover` (its mutex,
 *   naming its maker); see `directory-lock.ts`.
 */
export const BASE_FORMAT = 'rxslice.journal-base';
/** @internal */
export const BASE_FORMAT_VERSION = 1;

/** @internal One op of a slice in a record (see the file comment). */
export type JournalOp =
  | readonly ['a', readonly unknown[]]
  | readonly ['r', readonly unknown[]]
  | readonly ['s', readonly unknown[], number]
  | readonly ['u', number, readonly unknown[]]
  | readonly ['c']
  | readonly ['f', number]
  | readonly ['b', number]
  | readonly ['i', readonly number[]];

/** @internal The ops of one slice in one record, at its schema version. */
export interface SliceChange {
  readonly v: number;
  readonly ops: readonly JournalOp[];
}

/** @internal One decoded record. */
export interface JournalRecord {
  readonly seq: number;
  readonly prev: number;
  readonly at: number;
  readonly slices: Readonly<Record<string, SliceChange>>;
}

/** @internal A slice in a base file. */
export interface BaseSlice {
  readonly v: number;
  /** Absent: the slice starts from its definition's `initial` items. */
  readonly items?: readonly unknown[];
  readonly times?: readonly number[];
  readonly appended?: number;
  /** Records of a slice that no session has opened since they were written (kept as they were). */
  readonly tail?: readonly { readonly at: number; readonly v: number; readonly ops: readonly JournalOp[] }[];
}

/**
 * Thrown when a storage file is damaged where recovery may not skip it: `file` and `offset`
 * (bytes from the start of the file) locate the first bad record, `reason` says what is wrong.
 * Nothing was opened. Under `recovery: 'point-in-time'` the store opens at the last good
 * record instead (see `JsonlRecovery`).
 */
export class CorruptStorageError extends RxSliceError {
  override readonly name = 'CorruptStorageError';
  constructor(readonly file: string, readonly offset: number, readonly reason: string) {
    super('STORAGE_CORRUPT', `Storage file ${quote(file)} is damaged at byte ${offset}: ${clip(reason, CAUSE_CHARS)}. Nothing was opened; restore the file from a copy, or open with recovery: 'point-in-time' to keep the records before this point.`);
  }
}

/** @internal Encodes one record (newline included). */
export function encodeRecord(seq: number, prev: number, at: number, slicesJson: string): string {
  return encodeLine(`{"seq":${seq},"prev":${prev},"at":${at},"slices":${slicesJson}}`);
}

/** @internal The result of scanning a journal buffer. */
export interface ScanResult {
  /** The good records, in order (empty when {@link scanJournal} was given `onRecord`). */
  readonly records: JournalRecord[];
  /** How many good records there are. */
  readonly count: number;
  /** The `seq` of the last good record (`baseSeq` when there is none). */
  readonly lastSeq: number;
  /** Bytes of good records (the offset where the first bad one starts, or the length). */
  readonly goodBytes: number;
  /** The first bad record, if any: where it starts, why, and whether only a tail follows it. */
  readonly bad?: { readonly offset: number; readonly reason: string; readonly tail: boolean; readonly droppedLines: number };
}

/**
 * @internal Scans `buf` (a journal after base `baseSeq`): every line is checked for its CRC,
 * its JSON and seq continuity (`prev` equals the previous record's `seq`, `seq` above it).
 * Stops at the first bad line; `tail` is true when nothing but that line (or a line without
 * its newline) follows, i.e. the damage is what a crash during the last write leaves.
 * Each good record goes to `onRecord` as soon as it is checked (then `records` stays empty,
 * and a record's parse tree can be dropped before the scan ends), or into `records`.
 */
export function scanJournal(buf: Buffer, baseSeq: number, onRecord?: (record: JournalRecord) => void): ScanResult {
  const records: JournalRecord[] = [];
  const text = asciiText(buf);
  let count = 0;
  let pos = 0;
  let last = baseSeq;
  const n = buf.length;
  while (pos < n) {
    const nl = buf.indexOf(10, pos);
    const end = nl === -1 ? n : nl;
    const checked = nl === -1 ? 'the last record has no newline (a torn write)' : checkLine(buf, text, pos, end, last);
    if (typeof checked === 'string') {
      let droppedLines = 0;
      for (let p = pos; p < n; ) {
        const q = buf.indexOf(10, p);
        droppedLines++;
        if (q === -1) break;
        p = q + 1;
      }
      // A tail: the bad line is the last one (with or without its newline), and it is not an
      // intact record followed by more (a damaged newline merged it with the next record).
      const tail = (nl === -1 || nl + 1 >= n) && !holdsIntactRecord(buf, pos, end, last);
      return { records, count, lastSeq: last, goodBytes: pos, bad: { offset: pos, reason: checked, tail, droppedLines } };
    }
    if (onRecord === undefined) records.push(checked);
    else onRecord(checked);
    count++;
    last = checked.seq;
    pos = end + 1;
  }
  return { records, count, lastSeq: last, goodBytes: pos };
}

/**
 * The whole buffer as one string when it is all ASCII (the common case: `JSON.stringify`
 * escapes nothing above it, but items may hold such characters): byte offsets are then string
 * offsets, and each record is parsed from a slice of it instead of being decoded on its own.
 */
function asciiText(buf: Buffer): string | undefined {
  return buf.length > 0 && isAscii(buf) ? buf.toString('latin1') : undefined;
}

/** True when `[start, end)` starts with a whole record (good CRC) followed by more bytes. */
function holdsIntactRecord(buf: Buffer, start: number, end: number, last: number): boolean {
  const marker = Buffer.from('{"crc":"', 'latin1');
  for (let p = buf.indexOf(marker, start + 1); p !== -1 && p < end; p = buf.indexOf(marker, p + 1)) {
    if (p - 1 > start && typeof checkLine(buf, undefined, start, p - 1, last) !== 'string') return true;
  }
  return false;
}

/** The record of line `[start, end)` of `buf`, or why it is bad. `text`: `buf` as a string when it is all ASCII. */
function checkLine(buf: Buffer, text: string | undefined, start: number, end: number, last: number): JournalRecord | string {
  if (end - start < BODY_OFFSET + 2) return 'the line is too short to be a record';
  const crc = lineCrc(buf, start);
  if (crc < 0) return 'the line does not start with a CRC prefix';
  if (buf[end - 1] !== 0x7d /* } */) return 'the line does not end its record';
  if (crcOf(buf, start + BODY_OFFSET, end - 1) !== crc) return 'CRC32 mismatch';
  let rec: JournalRecord;
  try {
    rec = JSON.parse(text === undefined ? buf.toString('utf8', start + BODY_OFFSET, end - 1) : text.slice(start + BODY_OFFSET, end - 1)) as JournalRecord;
  } catch {
    return 'the record is not JSON';
  }
  if (rec === null || typeof rec !== 'object' || !Number.isInteger(rec.seq) || typeof rec.at !== 'number' || rec.slices === null || typeof rec.slices !== 'object') {
    return 'the record lacks seq, at or slices';
  }
  if (rec.prev !== last || rec.seq <= last) return `sequence break: record seq ${rec.seq} with prev ${String(rec.prev)} follows seq ${last}`;
  return rec;
}

/** @internal Decodes a base file's buffer, or returns why it is damaged. */
export function decodeBase(buf: Buffer): { seq: number; slices: Record<string, BaseSlice> } | string {
  let end = buf.length;
  if (buf[end - 1] === 10) end--;
  if (end < BODY_OFFSET + 2) return 'the file is too short';
  const crc = lineCrc(buf, 0);
  if (crc < 0 || buf[end - 1] !== 0x7d) return 'not a base file';
  if (crcOf(buf, BODY_OFFSET, end - 1) !== crc) return 'CRC32 mismatch';
  try {
    const body = JSON.parse(buf.toString('utf8', BODY_OFFSET, end - 1)) as { format?: unknown; seq?: unknown; slices?: unknown };
    if (body.format !== BASE_FORMAT || !Number.isInteger(body.seq) || body.slices === null || typeof body.slices !== 'object') return 'not a base file';
    return { seq: body.seq as number, slices: body.slices as Record<string, BaseSlice> };
  } catch {
    return 'the file is not JSON';
  }
}

/** @internal Encodes a base file. */
export function encodeBase(seq: number, slicesJson: string): string {
  return encodeLine(`{"format":"${BASE_FORMAT}","formatVersion":${BASE_FORMAT_VERSION},"seq":${seq},"slices":${slicesJson}}`);
}
