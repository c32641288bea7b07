/** The recording line format: many lines encoded at once are the same bytes as line by line. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeLine, encodeLines, lineCrc, crcOf, BODY_OFFSET } from '../../src/storage/jsonl/recording-format';

describe('encodeLines', () => {
  it('gives the bytes of encodeLine for each body, joined (unicode and escapes included)', () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue().map((v) => JSON.stringify(v) ?? 'null'), { minLength: 1, maxLength: 20 }), (bodies) => {
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
});
