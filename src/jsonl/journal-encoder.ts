import { crc32Range } from './crc32';
import type { JournalOp } from './journal-format';
import { APPEND, REPLACE_ONE, type OpLog } from './op-log';
import { BODY_OFFSET, LINE_START } from './recording-format';

// Writing a journal record's line straight into a reused buffer: the constant parts as bytes,
// integers as digits, each item's JSON text converted to UTF-8 once, then the CRC32 of the
// body over those bytes. No string of the whole line (or of a slice's ops) is ever built: the
// concatenated line had to be flattened before its conversion, which cost more than the
// conversion itself.

/** Records longer than this are encoded into a buffer of their own, not kept for the next one. */
const REUSED_BUFFER_MAX = 64 * 1024;
const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');
const LINE_START_BYTES = Buffer.from(LINE_START, 'latin1');

/** @internal The bytes of `text` (Latin-1 only: the constant parts of a line). */
export const latin1 = (text: string): Uint8Array => Uint8Array.from(Buffer.from(text, 'latin1'));

const SEQ = latin1('{"seq":');
const PREV = latin1(',"prev":');
const AT = latin1(',"at":');
const SLICES = latin1(',"slices":{');
const OPS_END = latin1(']}');
const LINE_END = latin1('}}}\n');
/** What each op kind's JSON starts with (`["<kind>",`). */
const OP_HEADS: Readonly<Record<string, Uint8Array>> = Object.fromEntries(['a', 'r', 'i', 's', 'u', 'f', 'b'].map((kind) => [kind, latin1(`["${kind}",`)]));
const OP_A = OP_HEADS['a'] as Uint8Array;
const OP_R = OP_HEADS['r'] as Uint8Array;
const CLEAR = latin1('["c"]');
/** Bytes every room check leaves free for the fixed parts and numbers written before the next one (see `JournalEncoder.room`). */
const SLACK = 64;
const COMMA = 0x2c;
const OPEN = 0x5b; // [
const CLOSE = 0x5d; // ]

/**
 * @internal Encodes journal lines `{"crc":"<8 hex>","rec":{"seq":…,"prev":…,"at":…,"slices":{…}}}\n`
 * (see `journal-format.ts`) into one reused buffer; the bytes are those of `encodeRecord` of the
 * same fields with each slice's ops as `JSON.stringify(ops)`. Use: {@link start}, the record's
 * fields and slices, {@link finish}; the line is `bytes[0, length)` until the next {@link start}.
 */
export class JournalEncoder {
  /** The buffer of the line being encoded (its first {@link BODY_OFFSET} bytes hold the line's start). */
  bytes: Buffer;
  /** The next byte to write. */
  private pos = 0;
  /** The buffer kept between records (at most {@link REUSED_BUFFER_MAX} bytes). */
  private kept: Buffer;

  constructor() {
    this.kept = this.bytes = lineBuffer(4096);
  }

  /** Starts the line of record `seq` (after `prev`, at time `at`): everything up to its first slice. */
  start(seq: number, prev: number, at: number): void {
    // The kept buffer holds far more than this part of a line (~100 bytes): no room to make.
    this.bytes = this.kept;
    this.pos = BODY_OFFSET;
    this.raw(SEQ);
    this.integer(seq);
    this.raw(PREV);
    this.integer(prev);
    this.raw(AT);
    // `at` is the scheduler's time: usually whole ms; anything else is written as its template text did.
    if (Number.isSafeInteger(at) && at >= 0) this.integer(at);
    else this.text(`${at}`);
    this.raw(SLICES);
  }

  /** One slice of the record: `head` is `"<name>":{"v":<schema version>,"ops":` as UTF-8; `ops` its ops (at least one). */
  slice(head: Uint8Array, first: boolean, ops: OpLog): void {
    this.room(head.length + SLACK);
    if (!first) this.byte(COMMA);
    this.raw(head);
    this.byte(OPEN);
    const entries = ops.entries;
    for (let k = 0; k < ops.length; ) {
      this.room(SLACK);
      if (k > 0) this.byte(COMMA);
      const kind = entries[k];
      if (kind === APPEND) {
        const count = entries[k + 1] as number;
        this.raw(OP_A);
        if (count === 1) this.one(entries[k + 2]);
        else this.text(JSON.stringify(entries.slice(k + 2, k + 2 + count)));
        this.byte(CLOSE);
        k += 2 + count;
      } else if (kind === REPLACE_ONE) {
        this.raw(OP_R);
        this.one(entries[k + 1]);
        this.byte(CLOSE);
        k += 2;
      } else {
        this.op(entries[k + 1] as JournalOp);
        k += 2;
      }
    }
    this.raw(OPS_END);
  }

  /** Ends the line (`}}}` and the newline), puts the body's CRC32 into its prefix; returns the line's length in bytes. */
  finish(): number {
    this.raw(LINE_END);
    const out = this.bytes;
    const length = this.pos;
    // The body is everything between the prefix and the line's closing `}` and newline.
    const crc = crc32Range(out, BODY_OFFSET, length - 2);
    for (let i = 0; i < 8; i++) out[8 + i] = HEX_DIGITS[(crc >>> (28 - 4 * i)) & 15] as number;
    return length;
  }

  /** `JSON.stringify(op)`. */
  private op(op: JournalOp): void {
    const kind = op[0];
    if (kind === 'c') {
      this.raw(CLEAR);
      return;
    }
    this.raw(OP_HEADS[kind] as Uint8Array);
    switch (kind) {
      case 'a':
      case 'r':
      case 'i':
        this.list(op[1]);
        break;
      case 's':
        this.list(op[1]);
        this.byte(COMMA);
        this.text(JSON.stringify(op[2]));
        break;
      case 'u':
        this.text(JSON.stringify(op[1]));
        this.byte(COMMA);
        this.list(op[2]);
        break;
      default:
        // 'f', 'b': a count.
        this.text(JSON.stringify(op[1]));
    }
    this.byte(CLOSE);
  }

  /** `JSON.stringify(list)`. */
  private list(list: readonly unknown[]): void {
    if (list.length === 1) this.one(list[0]);
    else this.text(JSON.stringify(list));
  }

  /**
   * `JSON.stringify([item])`, written around the item's own text when that is the same text: a
   * finite number directly, an object without `toJSON` by `JSON.stringify` (whose array wrapper
   * costs a sixth of a small item's call).
   */
  private one(item: unknown): void {
    if (typeof item === 'number' && Number.isFinite(item)) {
      this.byte(OPEN);
      if (Number.isSafeInteger(item) && item >= 0) this.integer(item);
      else this.text(`${item}`);
      this.byte(CLOSE);
    } else if (typeof item === 'object' && item !== null && typeof (item as { toJSON?: unknown }).toJSON !== 'function') {
      this.byte(OPEN);
      this.text(JSON.stringify(item));
      this.byte(CLOSE);
    } else {
      // `toJSON` is called with the key "0" inside the list and "" alone; `undefined` is `null` in a list.
      this.text(JSON.stringify([item]));
    }
  }

  /**
   * Makes room for `n` more bytes: a larger buffer holding what is written so far. Called before
   * each slice (its head and {@link SLACK}), each op ({@link SLACK}) and each text (its bytes and
   * {@link SLACK}): the fixed parts and numbers written between two calls fit in {@link SLACK}.
   */
  private room(n: number): void {
    const need = this.pos + n;
    if (need <= this.bytes.length) return;
    const next = Buffer.allocUnsafe(Math.max(need, 2 * this.bytes.length));
    this.bytes.copy(next, 0, 0, this.pos);
    if (next.length <= REUSED_BUFFER_MAX) this.kept = next;
    this.bytes = next;
  }

  /** One byte (no room check: see {@link room}). */
  private byte(b: number): void {
    this.bytes[this.pos++] = b;
  }

  /** Fixed bytes (no room check: see {@link room}). */
  private raw(part: Uint8Array): void {
    const n = part.length;
    const out = this.bytes;
    const p = this.pos;
    for (let i = 0; i < n; i++) out[p + i] = part[i] as number;
    this.pos = p + n;
  }

  /** The digits of `n` (a safe integer ≥ 0: at most 16), as `${n}` writes them (no room check: see {@link room}). */
  private integer(n: number): void {
    if (n < 100_000_000) {
      this.digits(n, width(n));
      return;
    }
    // Times in ms and other large numbers: the top part, then 8 digits (int32 arithmetic for each).
    const high = Math.floor(n / 100_000_000);
    this.digits(high, width(high));
    this.digits(n - high * 100_000_000, 8);
  }

  /** `m` (an integer in [0, 10^8)) as exactly `width` digits (zero-padded). */
  private digits(m: number, width: number): void {
    const out = this.bytes;
    let p = this.pos + width;
    this.pos = p;
    let rest = m | 0;
    for (let k = 0; k < width; k++) {
      const q = (rest / 10) | 0;
      out[--p] = 0x30 + rest - 10 * q;
      rest = q;
    }
  }

  /** `text` as UTF-8 (JSON text: lone surrogates are escaped, so the conversion is exact). */
  private text(text: string): void {
    this.room(3 * text.length + SLACK);
    this.pos += this.bytes.write(text, this.pos, 'utf8');
  }
}

/** The digits of `n` (an integer in [0, 10^8)). */
function width(n: number): number {
  let w = 1;
  for (let m = n; m >= 10; m = (m / 10) | 0) w++;
  return w;
}

/** A buffer of `size` bytes starting with the line's start (its CRC digits are filled per line). */
function lineBuffer(size: number): Buffer {
  const out = Buffer.allocUnsafe(size);
  LINE_START_BYTES.copy(out, 0);
  return out;
}
