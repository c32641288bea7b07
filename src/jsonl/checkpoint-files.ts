import { closeSync, existsSync, fdatasyncSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { CheckpointError, type CheckpointRecord, type ThreadRecordStorage } from '../state/checkpoint-storage';
import { BODY_OFFSET, crcOf, encodeLine, lineCrc } from './recording-format';
import { fsyncDirectory } from './snapshot-file';

const SUFFIX = '.checkpoints.jsonl';

/**
 * Checkpoint storage on a directory (`createCheckpointer({ state, storage: checkpointFiles(dir) })`):
 * one append-only JSONL file per thread, one CRC32-framed line per checkpoint (the framing of the
 * flight recorder), appended with one write and, with `fsync: true` (default), one fdatasync.
 * One writer per thread at a time (the process that appends keeps where its lines end).
 * Reading checks every line: a torn last line (no newline: a crash mid-append) is ignored and
 * overwritten by the next append; any other damage is a `CheckpointError` (`CHECKPOINT_CORRUPT`,
 * file and line). Retention rewrites a thread atomically (write-file-atomic, then a directory fsync).
 * @param dir - Created if missing. Thread ids become file names (percent-encoded).
 * @example
 * ```ts
 * const checkpoints = createCheckpointer({ state: Execution, storage: checkpointFiles('.agent/checkpoints') });
 * ```
 */
export function checkpointFiles<TRecord extends { readonly threadId: string } = CheckpointRecord>(dir: string, options: { readonly fsync?: boolean } = {}): ThreadRecordStorage<TRecord> {
  mkdirSync(dir, { recursive: true });
  const fsync = options.fsync ?? true;
  const fileOf = (threadId: string): string => {
    const name = encodeURIComponent(threadId).replace(/\./g, '%2E');
    if (name.length > 200) throw new CheckpointError('INVALID_CHECKPOINT_OPTIONS', `thread id "${threadId.slice(0, 40)}…" is too long for a file name`);
    return join(dir, `${name}${SUFFIX}`);
  };
  /** The good lines of a thread file and the byte length they end at. */
  const scan = (threadId: string): { records: TRecord[]; end: number } => {
    const file = fileOf(threadId);
    if (!existsSync(file)) return { records: [], end: 0 };
    const buf = readFileSync(file);
    const records: TRecord[] = [];
    let start = 0;
    let line = 1;
    while (start < buf.length) {
      const nl = buf.indexOf(0x0a, start);
      if (nl < 0) break; // a torn last line: ignored, overwritten by the next append
      const crc = lineCrc(buf, start);
      if (crc < 0 || buf[nl - 1] !== 0x7d || crcOf(buf, start + BODY_OFFSET, nl - 1) !== crc) {
        throw new CheckpointError('CHECKPOINT_CORRUPT', `${file}: line ${line} fails its CRC32 check; nothing was read`);
      }
      try {
        records.push(JSON.parse(buf.toString('utf8', start + BODY_OFFSET, nl - 1)) as TRecord);
      } catch (e) {
        throw new CheckpointError('CHECKPOINT_CORRUPT', `${file}: line ${line} is not JSON`, { cause: e });
      }
      start = nl + 1;
      line++;
    }
    return { records, end: start };
  };
  /** Per thread this storage appended to or read: where its good lines end (so appends read nothing). */
  const ends = new Map<string, number>();
  let bytes = 0;
  for (const name of readdirSync(dir)) if (name.endsWith(SUFFIX)) bytes += statSync(join(dir, name)).size;
  return {
    append: (record) => {
      const file = fileOf(record.threadId);
      let end = ends.get(record.threadId);
      if (end === undefined) end = scan(record.threadId).end;
      const text = encodeLine(JSON.stringify(record));
      // Drop a torn tail left by a crash, then append the whole line with one write.
      if (existsSync(file) && statSync(file).size !== end) writeFileAtomic.sync(file, readFileSync(file).subarray(0, end), { fsync });
      const fd = openSync(file, 'a');
      try {
        writeSync(fd, text);
        if (fsync) fdatasyncSync(fd);
      } finally {
        closeSync(fd);
      }
      const length = Buffer.byteLength(text);
      ends.set(record.threadId, end + length);
      bytes += length;
    },
    read: (threadId) => {
      const { records, end } = scan(threadId);
      ends.set(threadId, end);
      return records;
    },
    rewrite: (threadId, records) => {
      const file = fileOf(threadId);
      const before = existsSync(file) ? statSync(file).size : 0;
      const text = records.map((r) => encodeLine(JSON.stringify(r))).join('');
      writeFileAtomic.sync(file, text, { fsync });
      if (fsync) fsyncDirectory(file);
      bytes += Buffer.byteLength(text) - before;
      ends.set(threadId, Buffer.byteLength(text));
    },
    delete: (threadId) => {
      const file = fileOf(threadId);
      if (!existsSync(file)) return;
      bytes -= statSync(file).size;
      rmSync(file);
      ends.delete(threadId);
      if (fsync) fsyncDirectory(file);
    },
    threads: () => readdirSync(dir).filter((n) => n.endsWith(SUFFIX)).map((n) => decodeURIComponent(n.slice(0, -SUFFIX.length))),
    bytes: () => bytes,
  };
}
