import { crc32 } from 'node:zlib';

/**
 * The CRC32 (zlib's polynomial) of `buf[start..end)`, computed by `node:zlib`'s `crc32` over a
 * view of the range (no copy).
 */
export function crc32Range(buf: Uint8Array, start: number, end: number): number {
  return crc32(buf.subarray(start, end));
}
