/**
 * What a path given to the command line is, told from its name and first bytes, so that every
 * command refuses what it cannot read with one line naming the path, what it is and what was
 * expected (never a report of nothing, a stack trace, or a watch waiting forever).
 */
import { closeSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import path from 'node:path';
import { messageOf, quote } from '../internal/quote';

/** The kinds of input the commands are told about. */
export type InputKind =
  | 'missing'
  | 'unreadable'
  | 'transcript'
  | 'transcripts-directory'
  | 'store-directory'
  | 'recording'
  | 'checkpoints-directory'
  | 'langgraph-directory'
  | 'empty-directory'
  | 'other-directory'
  | 'other-file';

/** What {@link inputKind} found. */
export interface Input {
  readonly kind: InputKind;
  /** What it is, as it follows "is": `a flight recording`, `an empty directory`, `a file of another kind (binary, not JSON lines)`. */
  readonly description: string;
}

/** How many bytes of a file are read to tell its kind. */
const HEAD_BYTES = 65536;
const CHECKPOINTS = '.checkpoints.jsonl';
const STORE_FILE = /^(journal-\d+\.jsonl|base-\d+\.json)$/;
/** The first line of every rxslice JSONL file: `{"crc":"<8 hex>","rec":`. */
const FRAMED = /^\{"crc":"[0-9a-f]{8}","rec":/;

function head(file: string): Buffer {
  const buf = Buffer.alloc(HEAD_BYTES);
  const fd = openSync(file, 'r');
  try {
    return buf.subarray(0, readSync(fd, buf, 0, buf.length, 0));
  } finally {
    closeSync(fd);
  }
}

const firstLine = (buf: Buffer): string => {
  const nl = buf.indexOf(0x0a);
  return buf.toString('utf8', 0, nl < 0 ? buf.length : nl).replace(/\r$/, '');
};

/** Control bytes other than tab, newline and carriage return: not a text file. */
const isBinary = (buf: Buffer): boolean => buf.subarray(0, 1024).some((b) => (b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d) || b === 0x7f);

/** The kind of a file, from its name and first 64 KiB. */
function fileKind(file: string): Input {
  const name = path.basename(file);
  const buf = head(file);
  const line = firstLine(buf);
  if (FRAMED.test(line)) {
    if (line.includes('"format":"rxslice.recording"')) return { kind: 'recording', description: 'a flight recording' };
    if (name.endsWith(CHECKPOINTS)) return { kind: 'other-file', description: 'a checkpoint thread file (give its directory to rxslice history)' };
    if (STORE_FILE.test(name)) return { kind: 'other-file', description: 'a journal file of a JSONL store (jsonl({ dir }))' };
    return { kind: 'other-file', description: 'an rxslice JSONL file, but not a flight recording' };
  }
  if (buf.length === 0) return name.endsWith('.jsonl') ? { kind: 'transcript', description: 'an empty transcript' } : { kind: 'other-file', description: 'an empty file' };
  if (isBinary(buf)) return { kind: 'other-file', description: 'a file of another kind (binary, not JSON lines)' };
  // The first line that is a JSON object decides (a transcript may start with a line cut off by a crash).
  const complete = buf.lastIndexOf(0x0a);
  for (const text of buf.toString('utf8', 0, complete < 0 ? buf.length : complete).split('\n')) {
    if (text.trim() === '') continue;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      continue;
    }
    if (json === null || typeof json !== 'object' || Array.isArray(json)) continue;
    if (typeof (json as { type?: unknown }).type === 'string') return { kind: 'transcript', description: 'a Claude Code transcript' };
    return { kind: 'other-file', description: 'a file of another kind (JSON lines, but no transcript lines)' };
  }
  // A transcript whose first line is still being written (or was cut off) has no newline yet.
  if (complete < 0 && name.endsWith('.jsonl') && line.startsWith('{"')) return { kind: 'transcript', description: 'a transcript whose first line is not complete' };
  return { kind: 'other-file', description: 'a file of another kind (no line of it is a JSON object)' };
}

/** Whether the first record of a checkpoint thread file is one of the LangGraph saver's. */
function writtenBySaver(file: string): boolean {
  const line = firstLine(head(file));
  return /^\{"crc":"[0-9a-f]{8}","rec":\{"kind":"(checkpoint|write)"/.test(line);
}

/** The kind of a directory, from the names of its entries (and the first line of one checkpoint file). */
function directoryKind(dir: string): Input {
  const names = readdirSync(dir);
  if (names.length === 0) return { kind: 'empty-directory', description: 'an empty directory' };
  if (names.some((n) => STORE_FILE.test(n))) return { kind: 'store-directory', description: 'a JSONL store directory (jsonl({ dir }))' };
  const checkpoints = names.filter((n) => n.endsWith(CHECKPOINTS));
  if (checkpoints.length > 0) {
    return writtenBySaver(path.join(dir, checkpoints[0]!))
      ? { kind: 'langgraph-directory', description: 'a directory of checkpoint files of the LangGraph RxSliceSaver' }
      : { kind: 'checkpoints-directory', description: 'a directory of checkpoint files of a checkpointer' };
  }
  const jsonl = names.filter((n) => n.endsWith('.jsonl')).sort();
  if (jsonl.length > 0) {
    // Named after its first file (replay checks each one).
    const first = path.join(dir, jsonl[0]!);
    const kind = statSync(first).isFile() ? fileKind(first).kind : 'other-file';
    const what = kind === 'transcript' ? 'Claude Code transcripts' : kind === 'recording' ? 'flight recordings' : '.jsonl files';
    return { kind: 'transcripts-directory', description: `a directory of ${what}` };
  }
  return { kind: 'other-directory', description: 'a directory without .jsonl files' };
}

/**
 * Tells what `target` (absolute) is: missing, unreadable, a transcript, a flight recording, a
 * JSONL store directory, a directory of checkpoint files (of a checkpointer or of the LangGraph
 * saver), a directory of `.jsonl` files, an empty directory, or something else. Reads at most
 * the first 64 KiB of a file, and one such head per directory.
 * @example
 * ```ts
 * inputKind('/tmp/r.jsonl'); // { kind: 'recording', description: 'a flight recording' }
 * ```
 */
export function inputKind(target: string): Input {
  try {
    return statSync(target).isDirectory() ? directoryKind(target) : fileKind(target);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'missing', description: 'missing (no such file or directory)' };
    return { kind: 'unreadable', description: `unreadable (${code === 'EACCES' || code === 'EPERM' ? 'permission denied' : messageOf(e)})` };
  }
}

/**
 * The line a command prints when `given` is not what it reads (no newline): the path as given,
 * what it is, and what the command expects.
 * @example
 * ```ts
 * refusal('stats', 'run', { kind: 'empty-directory', description: 'an empty directory' }, 'a flight recording');
 * // 'rxslice stats: "run" is an empty directory; expected a flight recording'
 * ```
 */
export function refusal(command: string, given: string, input: Input, expected: string): string {
  const what = input.kind === 'missing' ? 'does not exist' : `is ${input.description}`;
  return `rxslice ${command}: ${quote(given)} ${what}; expected ${expected}`;
}
