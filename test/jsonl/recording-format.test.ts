/** The recording line format: many lines encoded at once are the same bytes as line by line. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bodyLength, encodeLine, encodeLinesInto, linesRoom, lineCrc, crcOf, BODY_OFFSET, type LineBody } from '../../src/jsonl/recording-format';

/** `bodies` encoded as lines into a buffer of {@link linesRoom} bytes. */
function encodeLines(bodies: readonly LineBody[]): Buffer {
  const out = Buffer.allocUnsafe(linesRoom(bodies));
  return out.subarray(0, encodeLinesInto(bodies, out));
}

describe('encodeLinesInto', () => {
  it('gives the bytes of encodeLine for each body, joined (unicode and escapes included)', () => {
    // Bodies of ASCII text, and of any Unicode (astral characters, lone surrogates that
    // JSON.stringify escapes), mixed in one call: a two-byte body among one-byte ones.
    const body = fc.oneof(fc.jsonValue(), fc.jsonValue({ stringUnit: 'grapheme' }), fc.jsonValue({ stringUnit: 'binary' })).map((v) => JSON.stringify(v) ?? 'null');
    fc.assert(
      fc.property(fc.array(body, { minLength: 1, maxLength: 20 }), (bodies) => {
        const one = encodeLines(bodies);
        expect(one.equals(Buffer.from(bodies.map(encodeLine).join(''), 'utf8'))).toBe(true);
        // Every line's written CRC is the CRC of its body bytes.
        let pos = 0;
        for (let i = 0; i < bodies.length; i++) {
          const nl = one.indexOf(10, pos);
          expect(lineCrc(one, pos)).toBe(crcOf(one, pos + BODY_OFFSET, nl - 1));
          pos = nl + 1;
        }
      }),
      { numRuns: 200 },
    );
  });

  it('writes the same bytes into a reused buffer, whatever it held before (linesRoom is enough)', () => {
    const body = fc.oneof(fc.jsonValue(), fc.jsonValue({ stringUnit: 'binary' })).map((v) => JSON.stringify(v) ?? 'null');
    const out = Buffer.alloc(64 * 1024, 0xff);
    fc.assert(
      fc.property(fc.array(body, { minLength: 1, maxLength: 20 }), (bodies) => {
        expect(linesRoom(bodies)).toBeLessThanOrEqual(out.length);
        const length = encodeLinesInto(bodies, out);
        expect(out.subarray(0, length).equals(Buffer.from(bodies.map(encodeLine).join(''), 'utf8'))).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it('writes a body given in parts (nested lists: comma-separated) as the joined text', () => {
    const text = fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary' })).map((t) => JSON.stringify(t));
    const part = fc.oneof(text, fc.array(text, { maxLength: 5 }));
    const join = (body: LineBody): string => (typeof body === 'string' ? body : body.map((p) => (typeof p === 'string' ? p : p.join(','))).join(''));
    fc.assert(
      fc.property(fc.array(fc.oneof(text, fc.array(part, { maxLength: 6 })), { minLength: 1, maxLength: 8 }), (bodies) => {
        for (const body of bodies) expect(bodyLength(body)).toBe(join(body).length);
        expect(encodeLines(bodies).equals(Buffer.from(bodies.map((b) => encodeLine(join(b))).join(''), 'utf8'))).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});
