import { crc32 } from 'node:zlib';
import { crc32Range } from './crc32';

/**
 * @internal The line format of a flight recording (JSONL, one record per line):
 *
 * ```
 * {"crc":"<8 hex digits>","rec":<body>}\n
 * ```
 *
 * `crc` is the CRC32 (zlib's, as `node:zlib` `crc32` computes it) of the UTF-8 bytes of
 * `<body>`; the newline ends the record, so a line without one is a torn write. Every line is
 * plain JSON (`jq .rec` reads a recording). Bodies start with their kind and `seq`, in this
 * order, so the reader indexes a file without parsing it:
 *
 * - `{"k":"h","format":"rxslice.recording","formatVersion":2,"snapshotEvery":N}` — the header, first line;
 * - `{"k":"s","seq":S,"snapshot":<snapshot JSON>}` — the whole state after envelope `S` (codec JSON,
 *   with each slice's schema version);
 * - `{"k":"s","seq":S,"base":B,"snapshot":<snapshot JSON>}` (format version 2) — the state after
 *   envelope `S` relative to the snapshot line right before it (whose `seq` is `B`): a slice holding
 *   `"runs":[F1,K1,A1,F2,K2,A2,...]` has as items, for each triple, `K` items of that snapshot's
 *   same slice from index `F`, then the next `A` of its own `items`; a slice without runs is whole. Every
 *   {@link FULL_SNAPSHOT_EVERY}-th snapshot line (the first included) has no `base`;
 * - `{"k":"e","seq":S,"at":...,"event":...,"meta":...,"changed":[...],"effects":[...]}` — one committed envelope.
 */
export const RECORDING_FORMAT = 'rxslice.recording';
/** @internal */
export const RECORDING_FORMAT_VERSION = 2;
/**
 * @internal The recorder writes one snapshot line in this many without `base` (whole), so a
 * reader folds at most this many lines to rebuild a snapshot.
 */
export const FULL_SNAPSHOT_EVERY = 10;
/** @internal Length of `{"crc":"xxxxxxxx","rec":`. */
export const BODY_OFFSET = 24;

const HEX = '00000000';

/** @internal One line (newline included) holding `body`. */
export function encodeLine(body: string): string {
  const crc = crc32(body).toString(16);
  return `{"crc":"${HEX.slice(crc.length)}${crc}","rec":${body}}\n`;
}

/** @internal A line's start with a placeholder CRC (`{"crc":"00000000","rec":`): {@link encodeLinesInto} fills it in. */
export const LINE_START = '{"crc":"00000000","rec":';
const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');

/**
 * @internal A line's body for {@link encodeLinesInto}: its JSON text, or the text's parts in order,
 * where a nested list stands for its strings separated by commas (a snapshot's item texts: the
 * line is written from them without joining them into one string first).
 */
export type LineBody = string | readonly (string | readonly string[])[];

/** @internal The characters of `body` (what it stands for, commas included). */
export function bodyLength(body: LineBody): number {
  if (typeof body === 'string') return body.length;
  let n = 0;
  for (let i = 0; i < body.length; i++) {
    const part = body[i] as string | readonly string[];
    if (typeof part === 'string') n += part.length;
    else {
      n += Math.max(0, part.length - 1);
      for (let j = 0; j < part.length; j++) n += (part[j] as string).length;
    }
  }
  return n;
}

/** @internal The most bytes {@link encodeLinesInto} writes for `bodies`. */
export function linesRoom(bodies: readonly LineBody[]): number {
  // UTF-8 takes at most 3 bytes per UTF-16 unit; each line adds the prefix and `}\n`.
  let room = 0;
  for (let i = 0; i < bodies.length; i++) room += 3 * bodyLength(bodies[i] as LineBody) + BODY_OFFSET + 2;
  return room;
}

/**
 * @internal Encodes many bodies as lines into `out` (at least {@link linesRoom} bytes; a writer
 * reuses it from chunk to chunk) and returns the bytes written. Each body is converted to UTF-8
 * once, straight into `out`: its CRC32 is computed over the bytes just written and its hex digits
 * put into the line's prefix. Same bytes as `bodies.map(encodeLine).join('')` (with each body's
 * parts joined), without encoding each body twice (once for its CRC, once for the write), and
 * without joining the bodies first (one body with a character beyond Latin-1 would make the
 * joined string two-byte, and its conversion several times slower for every body). Bodies are
 * JSON text: they hold no newline.
 */
export function encodeLinesInto(bodies: readonly LineBody[], out: Buffer): number {
  let p = 0;
  for (let i = 0; i < bodies.length; i++) {
    const start = p;
    out.set(LINE_START_BYTES, p);
    p += BODY_OFFSET;
    const body = bodies[i] as LineBody;
    if (typeof body === 'string') p += out.write(body, p, 'utf8');
    else {
      for (let k = 0; k < body.length; k++) {
        const part = body[k] as string | readonly string[];
        if (typeof part === 'string') {
          p += out.write(part, p, 'utf8');
          continue;
        }
        for (let j = 0; j < part.length; j++) {
          if (j > 0) out[p++] = 0x2c; // `,`
          p += out.write(part[j] as string, p, 'utf8');
        }
      }
    }
    const crc = crc32Range(out, start + BODY_OFFSET, p);
    for (let d = 0; d < 8; d++) out[start + 8 + d] = HEX_DIGITS[(crc >>> (28 - 4 * d)) & 15] as number;
    out[p++] = 0x7d; // `}`
    out[p++] = 0x0a;
  }
  return p;
}

const LINE_START_BYTES = Buffer.from(LINE_START, 'latin1');

const PREFIX = Buffer.from('{"crc":"', 'latin1');
const INFIX = Buffer.from('","rec":', 'latin1');

/** @internal The CRC32 written in a line's prefix, or -1 when the prefix is malformed. */
export function lineCrc(buf: Buffer, start: number): number {
  // `{"crc":"` then 8 lowercase hex digits then `","rec":` (compared byte by byte: no strings made)
  if (start + BODY_OFFSET > buf.length) return -1;
  for (let i = 0; i < 8; i++) if (buf[start + i] !== PREFIX[i] || buf[start + 16 + i] !== INFIX[i]) return -1;
  let crc = 0;
  for (let i = start + 8; i < start + 16; i++) {
    const b = buf[i] as number;
    const d = b >= 0x30 && b <= 0x39 ? b - 0x30 : b >= 0x61 && b <= 0x66 ? b - 0x57 : -1;
    if (d < 0) return -1;
    crc = crc * 16 + d;
  }
  return crc;
}

/** @internal The CRC32 of bytes `[start, end)` of `buf`. */
export const crcOf = (buf: Buffer, start: number, end: number): number => crc32Range(buf, start, end);

/** `{"k":"` then the kind (`h`, `s` or `e`) then `"`; for `s` and `e`, `,"seq":` and digits follow. */
const KIND_PREFIX = Buffer.from('{"k":"', 'latin1');
const SEQ_PREFIX = Buffer.from('","seq":', 'latin1');
const NO_SEQ = -1;
/** @internal */
export const NOT_A_RECORD = -2;

/**
 * @internal Reads a recording body's prefix from its bytes (no string made): the `seq` written after the kind,
 * {@link NO_SEQ} when there is none, or {@link NOT_A_RECORD}. Bodies longer than 40 bytes are
 * read in their first 40, as the writer puts kind and seq first.
 */
export function prefixSeq(buf: Buffer, start: number, end: number): number {
  const stop = Math.min(end, start + 40);
  if (stop - start < 8) return NOT_A_RECORD;
  for (let i = 0; i < 6; i++) if (buf[start + i] !== KIND_PREFIX[i]) return NOT_A_RECORD;
  const kind = buf[start + 6];
  if ((kind !== 0x68 && kind !== 0x73 && kind !== 0x65) || buf[start + 7] !== 0x22) return NOT_A_RECORD;
  if (stop - start < 16) return NO_SEQ;
  for (let i = 1; i < 8; i++) if (buf[start + 7 + i] !== SEQ_PREFIX[i]) return NO_SEQ;
  let seq = 0;
  let digits = 0;
  for (let i = start + 15; i < stop; i++) {
    const b = buf[i] as number;
    if (b < 0x30 || b > 0x39) break;
    seq = seq * 10 + (b - 0x30);
    digits++;
  }
  return digits === 0 ? NO_SEQ : seq;
}
