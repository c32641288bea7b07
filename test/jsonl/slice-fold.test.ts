import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { defineSlice } from '../../src/index';
import { jsonl, type JsonlSliceStorage } from '../../src/jsonl/index';
import { encodeBase, encodeRecord, type BaseSlice, type JournalOp } from '../../src/jsonl/journal-format';
import { replayJournalOp, type ReplayState } from '../../src/jsonl/journal-replay';

// Opening folds each slice's records while the journal is read (src/jsonl/slice-fold.ts). These
// properties write a base file and a journal by hand and check that opening yields what replaying
// every stored record onto the slice's initial items or base yields (as opening did before the
// fold): items, times and `appended`, with records of two schema versions (1 is migrated by +10).

const item = fc.integer({ min: 0, max: 3 });
const op: fc.Arbitrary<JournalOp> = fc.oneof(
  { weight: 4, arbitrary: fc.array(item, { minLength: 1, maxLength: 3 }).map((xs): JournalOp => ['a', xs]) },
  { weight: 1, arbitrary: fc.array(item, { maxLength: 4 }).map((xs): JournalOp => ['r', xs]) },
  { weight: 1, arbitrary: fc.tuple(fc.array(item, { maxLength: 4 }), fc.nat(20)).map(([xs, n]): JournalOp => ['s', xs, n]) },
  { weight: 1, arbitrary: fc.constant<JournalOp>(['c']) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 4 }).map((n): JournalOp => ['f', n]) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 4 }).map((n): JournalOp => ['b', n]) },
  { weight: 1, arbitrary: fc.uniqueArray(fc.nat(5), { maxLength: 3 }).map((xs): JournalOp => ['i', [...xs].sort((a, b) => a - b)]) },
  // An update of an item the content does not hold is damage: then replaying and opening both throw.
  { weight: 1, arbitrary: fc.tuple(fc.nat(3), item).map(([i, x]): JournalOp => ['u', i, [x]]) },
);
const version = fc.constantFrom(1, 2);
const record = fc.record({ at: fc.nat(1000), v: version, ops: fc.array(op, { minLength: 1, maxLength: 3 }) });
/** Mostly one version per run (the fold's fast path), sometimes both. */
const records = fc.oneof(
  fc.tuple(version, fc.array(record, { maxLength: 30 })).map(([v, rs]) => rs.map((r) => ({ ...r, v }))),
  fc.array(record, { maxLength: 30 }),
);
const base = fc.option(
  fc.record(
    {
      v: version,
      items: fc.array(item, { maxLength: 4 }),
      times: fc.array(fc.nat(1000), { maxLength: 4 }),
      appended: fc.nat(10),
      tail: fc.array(record, { maxLength: 5 }),
    },
    { requiredKeys: ['v'] },
  ),
  { nil: undefined },
);

const defOf = (name: string, initial: number[]) =>
  defineSlice(name, { policy: 'log', schema: z.number(), version: 2, migrations: { 1: (x: number) => x + 10 }, initial, reducers: () => [] });
const migrate = (xs: readonly unknown[], v: number): number[] => (xs as number[]).map((x) => (v === 1 ? x + 10 : x));

/** What opening yields by replaying every stored record (the reference). */
function expected(initial: number[], b: BaseSlice | undefined, rs: readonly { at: number; v: number; ops: readonly JournalOp[] }[]): ReplayState<number> {
  let s: ReplayState<number>;
  if (b?.items !== undefined) {
    const items = migrate(b.items, b.v);
    s = { items, times: Array.isArray(b.times) && b.times.length === items.length ? [...b.times] : items.map(() => 0), start: 0, appended: b.appended ?? items.length };
  } else s = { items: [...initial], times: initial.map(() => 0), start: 0, appended: initial.length };
  for (const r of [...(b?.tail ?? []), ...rs]) for (const o of r.ops) replayJournalOp(s, o, r.at, (xs) => migrate(xs, r.v));
  return { items: s.items.slice(s.start), times: s.times.slice(s.start), start: 0, appended: s.appended };
}

function stateOf(storage: JsonlSliceStorage<number>): ReplayState<number> {
  const c = storage.inner.content;
  return { items: Array.from(storage.all()), times: c.times.toArray(c.start, c.end), start: 0, appended: c.appended };
}

/** Writes `base-5.json` (when a base is given) and its journal, each record changing both slices. */
function writeDirectory(dir: string, b: BaseSlice | undefined, rs: readonly { at: number; v: number; ops: readonly JournalOp[] }[]): void {
  const baseSeq = b === undefined ? 0 : 5;
  if (b !== undefined) writeFileSync(join(dir, `base-${baseSeq}.json`), encodeBase(baseSeq, JSON.stringify({ s: b, u: b })));
  let text = '';
  rs.forEach((r, i) => {
    const change = JSON.stringify({ v: r.v, ops: r.ops });
    text += encodeRecord(baseSeq + i + 1, baseSeq + i, r.at, `{"s":${change},"u":${change}}`);
  });
  writeFileSync(join(dir, `journal-${baseSeq}.jsonl`), text);
}

describe('folding records while a journal is opened', () => {
  it('yields the items, times and appended count of replaying every record, and keeps an unopened slice exact through a compaction', () => {
    fc.assert(
      fc.property(fc.array(item, { maxLength: 2 }), base, records, (initial, b, rs) => {
        const dir = mkdtempSync(join(tmpdir(), 'rxslice-fold-'));
        try {
          writeDirectory(dir, b, rs);
          const S = defOf('s', initial);
          const U = defOf('u', initial);
          let want: ReplayState<number>;
          try {
            want = expected(initial, b, rs);
          } catch (e) {
            expect(e).toBeInstanceOf(TypeError);
            expect(() => jsonl({ dir, fsync: 'never', freeze: false, recovery: 'absolute' })(S)).toThrow(TypeError);
            return;
          }
          const factory = jsonl({ dir, fsync: 'never', freeze: false, recovery: 'absolute' });
          const s = factory(S) as JsonlSliceStorage<number>;
          expect(stateOf(s)).toEqual(want);
          // `u` stays unopened: the compaction writes what the fold left of it.
          factory.journal?.compact();
          s.dispose();
          const reopened = jsonl({ dir, fsync: 'never', freeze: false, recovery: 'absolute' });
          const u = reopened(U) as JsonlSliceStorage<number>;
          const s2 = reopened(S) as JsonlSliceStorage<number>;
          expect(stateOf(u)).toEqual(want);
          expect(stateOf(s2)).toEqual(want);
          u.dispose();
          s2.dispose();
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      }),
      { numRuns: 300 },
    );
  });

  it('a restore op at the start of a journal keeps the time of a primitive item equal to the initial item at its index (seed -1658189578)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rxslice-fold-'));
    try {
      const rs = [{ at: 1, v: 2, ops: [['s', [3, 4], 0]] as JournalOp[] }];
      writeDirectory(dir, undefined, rs);
      const s = jsonl({ dir, fsync: 'never', freeze: false, recovery: 'absolute' })(defOf('s', [3])) as JsonlSliceStorage<number>;
      expect(stateOf(s)).toEqual(expected([3], undefined, rs));
      expect(stateOf(s).times).toEqual([0, 1]);
      s.dispose();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
