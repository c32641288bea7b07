import { crc32 as zlibCrc32 } from 'node:zlib';

// CRC32 (zlib's polynomial, as `node:zlib` `crc32` computes it) of a byte range, in JavaScript
// for short ranges: a journal record or a recording line is a few hundred bytes, and for those
// the native call (with the `subarray` view it needs) costs more than the checksum itself.
// Longer ranges go to zlib, whose loop is faster per byte.

/** Ranges at least this long are handed to zlib. */
const NATIVE_FROM = 256;

/** Slice-by-8 tables: `TABLE[k * 256 + b]` is the CRC of byte `b` followed by `k` zero bytes. */
const TABLE = makeTable();

function makeTable(): Int32Array {
  const t = new Int32Array(2048);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c;
  }
  for (let n = 0; n < 256; n++) {
    let c = t[n] as number;
    for (let k = 1; k < 8; k++) {
      c = (t[c & 0xff] as number) ^ (c >>> 8);
      t[k * 256 + n] = c;
    }
  }
  return t;
}

/**
 * @internal The CRC32 of bytes `[start, end)` of `buf` (unsigned), equal to
 * `zlib.crc32(buf.subarray(start, end))`.
 */
export function crc32Range(buf: Uint8Array, start: number, end: number): number {
  if (end - start >= NATIVE_FROM) return zlibCrc32(buf.subarray(start, end));
  const t = TABLE;
  let c = -1;
  let i = start;
  for (const stop = end - 7; i < stop; i += 8) {
    c ^= (buf[i] as number) | ((buf[i + 1] as number) << 8) | ((buf[i + 2] as number) << 16) | ((buf[i + 3] as number) << 24);
    const d = (buf[i + 4] as number) | ((buf[i + 5] as number) << 8) | ((buf[i + 6] as number) << 16) | ((buf[i + 7] as number) << 24);
    c =
      (t[1792 + (c & 0xff)] as number) ^
      (t[1536 + ((c >>> 8) & 0xff)] as number) ^
      (t[1280 + ((c >>> 16) & 0xff)] as number) ^
      (t[1024 + (c >>> 24)] as number) ^
      (t[768 + (d & 0xff)] as number) ^
      (t[512 + ((d >>> 8) & 0xff)] as number) ^
      (t[256 + ((d >>> 16) & 0xff)] as number) ^
      (t[d >>> 24] as number);
  }
  for (; i < end; i++) c = (t[(c ^ (buf[i] as number)) & 0xff] as number) ^ (c >>> 8);
  return ~c >>> 0;
}
