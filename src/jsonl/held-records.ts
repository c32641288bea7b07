import { writeSync } from 'node:fs';

/** A held buffer larger than this is dropped once written (the next run starts small again). */
const KEPT_MAX = 1 << 20;

/**
 * @internal The lines of journal records held in memory while a journal defers its writes (see
 * `StorageJournal.deferWrites`): copied in order into one growing buffer, then written with one
 * `write` call (more only when the system writes less than asked).
 */
export class HeldRecords {
  private buffer: Buffer = Buffer.alloc(0);
  /** Bytes held. */
  length = 0;

  /** Copies `bytes[0, length)` after the lines held (the caller reuses `bytes`). */
  add(bytes: Uint8Array, length: number): void {
    const need = this.length + length;
    if (need > this.buffer.length) {
      const next = Buffer.allocUnsafe(Math.max(need, 2 * this.buffer.length, 64 * 1024));
      this.buffer.copy(next, 0, 0, this.length);
      this.buffer = next;
    }
    this.buffer.set(bytes.subarray(0, length), this.length);
    this.length = need;
  }

  /** Writes every held byte to `fd` at its current end and forgets them. @throws the file system's error (the bytes are forgotten too: the journal fails). */
  writeTo(fd: number): void {
    const length = this.length;
    this.length = 0;
    const buffer = this.buffer;
    if (buffer.length > KEPT_MAX) this.buffer = Buffer.alloc(0);
    let off = 0;
    while (off < length) off += writeSync(fd, buffer, off, length - off);
  }
}
