/**
 * Reads what was appended to a file since the last read, line by line: only the new bytes are
 * read, a partial last line is held until its `\n` arrives, and a file that shrank or whose
 * inode changed is reported so that its reader can start it over.
 */
import { closeSync, fstatSync, openSync, readSync, statSync } from 'node:fs';

/** One complete line: its text (without `\n` or `\r\n`) and its byte range `[start, end)`, `end` just past the `\n`. */
export interface TailLine {
  readonly text: string;
  readonly start: number;
  readonly end: number;
}

/** What one {@link FileTail.read} found. */
export interface TailRead {
  /** Complete lines, in file order. */
  readonly lines: readonly TailLine[];
  /** The file was truncated (smaller than what was read) or replaced (another inode): reading started over at byte 0. */
  readonly restarted?: 'truncated' | 'replaced';
  /** The inode of the file read. */
  readonly ino: number;
}

const NEWLINE = 0x0a;
const CHUNK_BYTES = 1 << 20;

/**
 * A cursor on one file. `offset` is where the next unread line starts (a reader resuming from a
 * committed offset passes it, with the inode it saw).
 *
 * @remarks Synchronous (`readSync`). Bytes after the last `\n` are kept (as bytes, so a UTF-8
 * character cut by a write is decoded once whole) and not read again.
 * @example
 * ```ts
 * const tail = new FileTail('t.jsonl');     // appended so far: '{"a":1}\n{"b"'
 * tail.read().lines.map((l) => l.text);     // ['{"a":1}']  ('{"b"' waits for its newline)
 * ```
 */
export class FileTail {
  private pending: Buffer = Buffer.alloc(0);

  constructor(
    readonly file: string,
    private offset = 0,
    private ino: number | null = null,
  ) {}

  /** Offset just past the last complete line returned. */
  get committedOffset(): number {
    return this.offset;
  }

  /** Bytes read so far: the committed offset plus the held partial line. */
  get position(): number {
    return this.offset + this.pending.length;
  }

  /** The inode read last (`null` before the first read of a new cursor). */
  get inode(): number | null {
    return this.ino;
  }

  /** Bytes held after the last `\n`. */
  get pendingBytes(): number {
    return this.pending.length;
  }

  /**
   * Reads the bytes appended since the last call and returns the lines they complete.
   * @throws the `fs` error (`ENOENT` when the file is gone, `EACCES`) unchanged; nothing moves then.
   */
  read(): TailRead {
    const fd = openSync(this.file, 'r');
    try {
      const st = fstatSync(fd);
      let restarted: TailRead['restarted'];
      if (this.ino !== null && st.ino !== this.ino) restarted = 'replaced';
      else if (st.size < this.offset + this.pending.length) restarted = 'truncated';
      if (restarted !== undefined) {
        this.offset = 0;
        this.pending = Buffer.alloc(0);
      }
      this.ino = st.ino;
      const lines: TailLine[] = [];
      let position = this.offset + this.pending.length;
      while (position < st.size) {
        const buffer = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, st.size - position));
        const n = readSync(fd, buffer, 0, buffer.length, position);
        if (n === 0) break;
        position += n;
        this.take(this.pending.length === 0 ? buffer.subarray(0, n) : Buffer.concat([this.pending, buffer.subarray(0, n)]), lines);
      }
      return restarted === undefined ? { lines, ino: st.ino } : { lines, restarted, ino: st.ino };
    } finally {
      closeSync(fd);
    }
  }

  /** Splits `bytes` (starting at `this.offset`) into complete lines; keeps the rest as pending. */
  private take(bytes: Buffer, lines: TailLine[]): void {
    let from = 0;
    for (let nl = bytes.indexOf(NEWLINE, from); nl !== -1; nl = bytes.indexOf(NEWLINE, from)) {
      const endOfText = nl > from && bytes[nl - 1] === 0x0d ? nl - 1 : nl;
      lines.push({ text: bytes.toString('utf8', from, endOfText), start: this.offset, end: this.offset + (nl + 1 - from) });
      this.offset += nl + 1 - from;
      from = nl + 1;
    }
    this.pending = Buffer.from(bytes.subarray(from));
  }
}

/** The inode and size of `file`, or `undefined` when it does not exist. Other errors are thrown. */
export function statFile(file: string): { ino: number; size: number } | undefined {
  try {
    const st = statSync(file);
    return { ino: st.ino, size: st.size };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}
