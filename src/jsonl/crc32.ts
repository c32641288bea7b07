import { crc32 } from 'node:zlib';

/**
 * Ranges shorter than this are summed in JavaScript; longer ones by `node:zlib`'s `crc32`. A call
 * to zlib costs ~130 ns before its first byte (the view of the range, the binding), the table
 * loop below ~0.6 ns per byte: they meet near 250 bytes (measured on Node 20). Journal records
 * and recorded envelopes are mostly shorter.
 */
const JS_CRC_MAX = 256;

/** zlib's CRC32 tables for slicing by 8: `TABLES[k * 256 + b]` is the CRC of byte `b` followed by `k` zero bytes. */
const TABLES = makeTables();

function makeTables(): Int32Array {
  const t = new Int32Array(8 * 256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c;
  }
  for (let n = 0; n < 256; n++) {
    let c = t[n] as number;
    for (let k = 1; k < 8; k++) {
      c = (t[c & 255] as number) ^ (c >>> 8);
      t[k * 256 + n] = c;
    }
  }
  return t;
}

/**
 * The CRC32 (zlib's polynomial, as `node:zlib`'s `crc32` computes it) of `buf[start..end)`, with
 * no copy: short ranges by a table loop (8 bytes a step), longer ones by zlib over a view of the range.
 */
export function crc32Range(buf: Uint8Array, start: number, end: number): number {
  if (end - start >= JS_CRC_MAX) return crc32(buf.subarray(start, end));
  const t = TABLES;
  let c = -1;
  let i = start;
  for (; i + 8 <= end; i += 8) {
    c ^= (buf[i] as number) | ((buf[i + 1] as number) << 8) | ((buf[i + 2] as number) << 16) | ((buf[i + 3] as number) << 24);
    const d = (buf[i + 4] as number) | ((buf[i + 5] as number) << 8) | ((buf[i + 6] as number) << 16) | ((buf[i + 7] as number) << 24);
    c =
      (t[1792 + (c & 255)] as number) ^
      (t[1536 + ((c >>> 8) & 255)] as number) ^
      (t[1280 + ((c >>> 16) & 255)] as number) ^
      (t[1024 + (c >>> 24)] as number) ^
      (t[768 + (d & 255)] as number) ^
      (t[512 + ((d >>> 8) & 255)] as number) ^
      (t[256 + ((d >>> 16) & 255)] as number) ^
      (t[d >>> 24] as number);
  }
  for (; i < end; i++) c = (t[(c ^ (buf[i] as number)) & 255] as number) ^ (c >>> 8);
  return (c ^ -1) >>> 0;
}
