import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Event } from '../../src/index';
import { timestampOf } from '../../src/transcripts/clock';

const at = (timestamp: unknown): Event => ({ type: 'transcript/test', payload: { timestamp } });
const dateParse = (text: string): number | undefined => {
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
};
const pad = (n: number, width: number): string => String(n).padStart(width, '0');

describe('timestampOf (fast path for transcript timestamps)', () => {
  it('equals Date.parse on ISO-like strings, in range or not', () => {
    const iso = fc
      .tuple(
        fc.integer({ min: 0, max: 9999 }),
        fc.integer({ min: 0, max: 13 }),
        fc.integer({ min: 0, max: 32 }),
        fc.integer({ min: 0, max: 25 }),
        fc.integer({ min: 0, max: 61 }),
        fc.integer({ min: 0, max: 61 }),
        fc.integer({ min: 0, max: 999 }),
        fc.constantFrom('.sss', '', '.s', 'x'),
      )
      .map(([y, mo, d, h, mi, s, ms, frac]) => {
        const fraction = frac === '.sss' ? `.${pad(ms, 3)}` : frac === '.s' ? `.${ms % 10}` : frac === 'x' ? `.${pad(ms, 3)}x` : '';
        return `${pad(y, 4)}-${pad(mo, 2)}-${pad(d, 2)}T${pad(h, 2)}:${pad(mi, 2)}:${pad(s, 2)}${fraction}Z`;
      });
    fc.assert(fc.property(fc.oneof(iso, fc.string({ maxLength: 26 })), (text) => {
      expect(timestampOf(at(text))).toBe(dateParse(text));
    }));
  });

  it('reads transcript timestamps and leaves out what does not parse', () => {
    expect(timestampOf(at('2025-01-01T00:00:01.500Z'))).toBe(1735689601500);
    expect(timestampOf(at('2025-10-10T21:56:01.419Z'))).toBe(Date.parse('2025-10-10T21:56:01.419Z'));
    expect(timestampOf(at('2025-02-30T00:00:00.000Z'))).toBe(Date.parse('2025-02-30T00:00:00.000Z')); // Date.parse rolls over to March 2
    expect(timestampOf(at('2025-01-01T00:00:60.000Z'))).toBeUndefined();
    expect(timestampOf(at('2025-01-0a T00:00:00Z'))).toBeUndefined();
    expect(timestampOf(at(null))).toBeUndefined();
    expect(timestampOf({ type: 'transcript/test', payload: undefined })).toBeUndefined();
  });

  it('answers each text for itself when texts repeat and alternate (it remembers the last one)', () => {
    const texts = fc.array(fc.constantFrom('2025-01-01T00:00:01.500Z', '2025-01-01T00:00:02.000Z', '2025-13-01T00:00:00Z', 'not a time', '2024-02-29T23:59:59Z'), { maxLength: 12 });
    fc.assert(fc.property(texts, (list) => {
      for (const text of list) expect(timestampOf(at(text))).toBe(dateParse(text));
    }));
  });
});
