import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryStorage, type EvictionDecision, type SliceWindowPolicy, type StoredSlice, type WindowContext } from '../../src/index';
import { EvictionPolicy } from '../../src/windows/eviction-policy';
import { SliceWindow } from '../../src/windows/slice-window';
import { call, type Call } from './window-fixtures';

/**
 * Predicate and composite windows remember their matching items with the slice (the storage's
 * window memo) and update them from what changed instead of testing every item again. These
 * properties drive a MemoryStorage the way the session does (op, then the window's decision
 * applied inside the same transaction; commit or rollback) and check that every decision equals
 * the one a window with nothing remembered (a full scan) takes on the same content.
 */

type Op =
  | { readonly kind: 'append'; readonly calls: readonly (readonly [number, boolean])[] }
  | { readonly kind: 'settle'; readonly at: number; readonly failed: boolean }
  | { readonly kind: 'replace'; readonly keep: number; readonly add: number }
  | { readonly kind: 'shuffle' }
  | { readonly kind: 'clearFailed' }
  | { readonly kind: 'clear' }
  | { readonly kind: 'snapshot' }
  | { readonly kind: 'restore' };

const call3 = fc.tuple(fc.integer({ min: 0, max: 4 }), fc.boolean());
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ kind: fc.constant('append' as const), calls: fc.array(call3, { minLength: 1, maxLength: 4 }) }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('settle' as const), at: fc.nat(), failed: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('replace' as const), keep: fc.nat(), add: fc.integer({ min: 0, max: 3 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'shuffle' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'clearFailed' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'clear' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'snapshot' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'restore' as const }) },
);
/** One event: one or two ops on the slice (each followed by the window), then commit or rollback. */
const events = fc.array(fc.record({ ops: fc.array(op, { minLength: 1, maxLength: 2 }), rollback: fc.boolean() }), { maxLength: 60 });

const failed = (c: Call): boolean => c.failed;
const notFailed = (c: Call): boolean => !c.failed;

/** The windows under test, rebuilt per run (a window's memo is tied to the window object). */
const windows: Record<string, (m: number, n: number) => SliceWindowPolicy<Call>> = {
  'predicate fifo': (m) => SliceWindow.predicate(failed, m),
  'predicate lifo': (m) => SliceWindow.predicate(failed, m, { eviction: EvictionPolicy.lifo() }),
  'predicate priority': (m) => SliceWindow.predicate(notFailed, m, { eviction: EvictionPolicy.priority((c: Call) => c.priority) }),
  'predicate reading the index': (m) => SliceWindow.predicate((c: Call, i: number) => c.failed !== (i % 3 === 0), m),
  'composite of predicates': (m, n) => SliceWindow.composite(SliceWindow.predicate(failed, m), SliceWindow.predicate(notFailed, n)),
  'predicate and count (failures plus the newest n)': (m, n) => SliceWindow.composite(SliceWindow.predicate(failed, m), SliceWindow.count(n)),
  'predicate and count, both lifo': (m, n) => SliceWindow.withEviction(SliceWindow.composite(SliceWindow.predicate(failed, m), SliceWindow.count(n)), EvictionPolicy.lifo()),
  'predicate reading the index and priority count': (m, n) =>
    SliceWindow.composite(SliceWindow.predicate((c: Call, i: number) => c.failed || i === 0, m), SliceWindow.count(n, { eviction: EvictionPolicy.priority((c: Call) => c.priority) })),
  'composite with count and nested composite': (m, n) =>
    SliceWindow.composite(
      SliceWindow.count(m + n + 1),
      SliceWindow.composite(SliceWindow.predicate(failed, m, { eviction: EvictionPolicy.lifo() }), SliceWindow.predicate((c: Call, i: number) => i % 2 === 0 && !c.failed, n)),
    ),
};

/** Runs `input` through a storage with `window`, asserting at each evaluation that the decision equals a full scan's. */
function drive(window: SliceWindowPolicy<Call>, input: readonly { ops: readonly Op[]; rollback: boolean }[]): { remembered: number; items: readonly Call[] } {
  const storage = new MemoryStorage<Call>([], 0, { sealOnReplace: false });
  let nextId = 0;
  let saved: StoredSlice<Call> | undefined;
  let remembered = 0;
  for (const event of input) {
    const tx = storage.begin();
    for (const o of event.ops) {
      const items = tx.view().all();
      switch (o.kind) {
        case 'append':
          for (const [p, f] of o.calls) tx.append(call(nextId++, f, p), 0);
          break;
        case 'settle': {
          if (items.length === 0) break;
          const i = o.at % items.length;
          const next = items.slice();
          next[i] = { ...(items[i] as Call), failed: o.failed };
          tx.replace(next, 0);
          break;
        }
        case 'replace':
          tx.replace([...items.slice(0, o.keep % (items.length + 1)), ...Array.from({ length: o.add }, () => call(nextId++, nextId % 2 === 0))], 0);
          break;
        case 'shuffle':
          tx.replace([...items].reverse(), 0);
          break;
        case 'clearFailed':
          tx.clear(failed);
          break;
        case 'clear':
          tx.clear();
          break;
        case 'snapshot':
          saved = storage.snapshot();
          break;
        case 'restore':
          if (saved !== undefined) tx.restore(saved, 0);
          break;
      }
      if (!tx.changed) continue;
      // As the session's applyWindow does: the window sees the memo, remembers, then its decision is applied.
      const ctx: WindowContext = { now: 0, seq: 1, appended: tx.appended, timeAt: (i) => tx.timeAt(i), memo: tx.windowMemo, remember: tx.rememberWindow };
      if (ctx.memo !== undefined) remembered++;
      const scan: WindowContext = { now: 0, seq: 1, appended: tx.appended, timeAt: (i) => tx.timeAt(i) };
      const expected = window.evict(tx.view(), scan);
      const decision: EvictionDecision = window.evict(tx.view(), ctx);
      expect(decision).toEqual(expected);
      if (decision.kind === 'front') tx.dropFront(decision.count);
      else if (decision.kind === 'back') tx.dropBack(decision.count);
      else if (decision.kind === 'indices') tx.dropIndices(decision.indices);
    }
    if (event.rollback) tx.rollback();
    else tx.commit();
  }
  return { remembered, items: storage.all() };
}

describe('incremental predicate and composite windows', () => {
  const bound = fc.integer({ min: 0, max: 6 });
  for (const [name, make] of Object.entries(windows)) {
    it(`${name}: every decision from the memo equals a full scan's`, () => {
      fc.assert(fc.property(bound, bound, events, (m, n, input) => void drive(make(m, n), input)));
    });
  }

  it('uses the memo on appends and settles (the replay pattern), and forgets it after a clear', () => {
    const window = SliceWindow.composite(SliceWindow.predicate(failed, 2), SliceWindow.predicate(notFailed, 3));
    const appendAndSettle = Array.from({ length: 20 }, (_, k) => [
      { ops: [{ kind: 'append', calls: [[0, false]] }] as Op[], rollback: false },
      { ops: [{ kind: 'settle', at: 1_000_000, failed: k % 3 === 0 }] as Op[], rollback: k % 5 === 0 },
    ]).flat();
    const { remembered, items } = drive(window, appendAndSettle);
    expect(remembered).toBe(appendAndSettle.length - 1); // all but the very first evaluation
    expect(items.filter(failed).length).toBeLessThanOrEqual(2);
    expect(items.filter(notFailed).length).toBeLessThanOrEqual(3);
  });

  it('a window reconfigured on the slice does not read another window\'s memo', () => {
    const a = SliceWindow.predicate(failed, 1);
    const b = SliceWindow.predicate(failed, 1);
    const storage = new MemoryStorage<Call>([], 0, { sealOnReplace: false });
    const step = (w: SliceWindowPolicy<Call>, c: Call): EvictionDecision => {
      const tx = storage.begin();
      tx.append(c, 0);
      const d = w.evict(tx.view(), { now: 0, seq: 1, appended: tx.appended, timeAt: () => 0, memo: tx.windowMemo, remember: tx.rememberWindow });
      if (d.kind === 'indices') tx.dropIndices(d.indices);
      else if (d.kind === 'front') tx.dropFront(d.count);
      tx.commit();
      return d;
    };
    expect(step(a, call(0, true))).toEqual({ kind: 'none' });
    expect(step(b, call(1, true))).toEqual({ kind: 'front', count: 1 });
    expect(step(a, call(2, true))).toEqual({ kind: 'front', count: 1 });
  });
});
