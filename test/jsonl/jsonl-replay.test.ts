import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { z } from 'zod';
import { defineSlice } from '../../src/index';
import { jsonl } from '../../src/jsonl/index';
import { encodeRecord } from '../../src/jsonl/journal-format';
import { describe, expect, it } from 'vitest';
import { applyJournalOp, replayJournalOp, type ReplayState } from '../../src/jsonl/journal-replay';
import type { JournalOp } from '../../src/jsonl/journal-format';
import { MemoryStorage } from '../../src/storage/memory-storage';

// Small primitive items so that `replace` meets identical items (which keep their time).
const item = fc.integer({ min: 0, max: 3 });
const op: fc.Arbitrary<JournalOp> = fc.oneof(
  fc.array(item, { minLength: 1, maxLength: 4 }).map((xs): JournalOp => ['a', xs]),
  fc.array(item, { maxLength: 5 }).map((xs): JournalOp => ['r', xs]),
  fc.tuple(fc.array(item, { maxLength: 5 }), fc.nat(20)).map(([xs, n]): JournalOp => ['s', xs, n]),
  fc.constant<JournalOp>(['c']),
  fc.integer({ min: -1, max: 6 }).map((n): JournalOp => ['f', n]),
  fc.integer({ min: -1, max: 6 }).map((n): JournalOp => ['b', n]),
  fc.uniqueArray(fc.nat(7), { maxLength: 4 }).map((xs): JournalOp => ['i', [...xs].sort((a, b) => a - b)]),
  // An update of an item the content does not hold is never written: the replay below skips it in both.
  fc.tuple(fc.nat(7), item).map(([i, x]): JournalOp => ['u', i, [x]]),
);
const record = fc.record({ at: fc.nat(1000), ops: fc.array(op, { minLength: 1, maxLength: 3 }) });

describe('replayJournalOp (bulk recovery)', () => {
  it('yields the items, times and appended count that one memory transaction per record yields', () => {
    fc.assert(
      fc.property(fc.array(item, { maxLength: 3 }), fc.boolean(), fc.array(record, { maxLength: 40 }), (initial, sealOnReplace, records) => {
        const memory = new MemoryStorage<number>(initial, 0, { sealOnReplace });
        const s: ReplayState<number> = { items: [...initial], times: initial.map(() => 0), start: 0, appended: initial.length };
        for (const rec of records) {
          const tx = memory.begin();
          for (const o of rec.ops) {
            const size = tx.view().size;
            expect(s.items.length - s.start).toBe(size);
            if (o[0] === 'u' && o[1] >= size) {
              expect(() => applyJournalOp(tx, o, rec.at, (xs) => [...(xs as number[])])).toThrow(TypeError);
              expect(() => replayJournalOp(s, o, rec.at, (xs) => [...(xs as number[])])).toThrow(TypeError);
              continue;
            }
            applyJournalOp(tx, o, rec.at, (xs) => [...(xs as number[])]);
            replayJournalOp(s, o, rec.at, (xs) => [...(xs as number[])]);
          }
          tx.commit();
        }
        const c = memory.content;
        expect(s.items.slice(s.start)).toEqual(Array.from(memory.all()));
        expect(s.times.slice(s.start)).toEqual(c.times.toArray(c.start, c.end));
        expect(s.appended).toBe(c.appended);
      }),
      { numRuns: 500 },
    );
  });
});

describe('journal lines written in place', () => {
  it('equal what encodeRecord makes (non-ASCII text, a long record, short records after it) and reopen under absolute recovery', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rxslice-jsonl-encode-'));
    try {
      const Text = defineSlice('text', { policy: 'log', schema: z.string(), reducers: () => [] });
      const texts = ['é', '😀 \u2028 "quoted" \\ back', 'x'.repeat(70_000) + 'ü', 'a', '\u00ff\u0100'];
      const factory = jsonl({ dir, fsync: 'never' });
      const storage = factory(Text);
      texts.forEach((t, i) => storage.append(t, 1000 + i));
      storage.dispose();
      const lines = readFileSync(join(dir, 'journal-0.jsonl'), 'utf8').split('\n');
      expect(lines.pop()).toBe('');
      lines.forEach((line, i) => {
        const slicesJson = `{"text":{"v":1,"ops":[["a",[${JSON.stringify(texts[i])}]]]}}`;
        expect(`${line}\n`).toBe(encodeRecord(i + 1, i, 1000 + i, slicesJson));
      });
      const reopened = jsonl({ dir, fsync: 'never', recovery: 'absolute' })(Text);
      expect(Array.from(reopened.all())).toEqual(texts);
      reopened.dispose();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
