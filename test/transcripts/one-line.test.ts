// The one-line digests of the transcript example (src/transcripts/slices.ts) read only a prefix of long texts: they must equal the whole-text rule.
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { firstLine, summarizeToolInput } from '../../src/transcripts/slices';
const refOne = (text: string, max: number): string => { const line = text.replace(/\s+/g, ' ').trim(); return line.length <= max ? line : `${line.slice(0, max - 1)}…`; };
const refFirst = (text: string): string => refOne(text.split('\n').find((l) => l.trim() !== '') ?? '', 160);
const ws = fc.constantFrom(' ', '\t', '\n', '\r', '  ', '\n\n', 'a', 'b', 'xyz', 'é', '…', '\u00a0', '\u2028');
const text = fc.array(ws, { maxLength: 1500 }).map((p) => p.join(''));
it('firstLine and the one-line digest equal the whole-text rule', () => {
  fc.assert(fc.property(text, (t) => { expect(firstLine(t)).toBe(refFirst(t)); expect(summarizeToolInput({ command: t })).toBe(t.trim() === '' ? '' : refOne(t, 80)); }), { numRuns: 3000 });
});

it('the boundaries of the prefix rule: exactly max characters, then only whitespace; one more; whitespace first', () => {
  for (const t of [
    `${'x'.repeat(80)}${' '.repeat(1000)}`,
    `${'x'.repeat(81)}${' '.repeat(1000)}`,
    `${' '.repeat(1000)}${'x'.repeat(80)}`,
    `${'x'.repeat(79)}${' \n'.repeat(500)}y`,
    `${'x '.repeat(200)}`,
  ]) {
    expect(summarizeToolInput({ command: t })).toBe(refOne(t, 80));
    expect(firstLine(t.replaceAll('\n', ' '))).toBe(refFirst(t.replaceAll('\n', ' ')));
  }
  expect(firstLine(`\n\n  \n${'e'.repeat(160)}${' '.repeat(700)}\nnext`)).toBe('e'.repeat(160));
});
