import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { append, createSession, defineEvent, defineSlice, extend, replace, type SliceWindowPolicy } from '../../src/index';
import { EvictionPolicy } from '../../src/windows/eviction-policy';
import { SliceWindow } from '../../src/windows/slice-window';
import { Call, call } from './window-fixtures';

/**
 * Property: a predicate window protects its matches, count windows bound. For random event
 * sequences (appends, batches, settles that turn a call into a failure or back, clears of the
 * failures), a slice with `composite(predicate(failed, m), count(n))` holds after every event
 * exactly what the rule says, computed from scratch on the content before the window ran:
 * the `n` newest items (FIFO; the `n` oldest for LIFO) plus the `m` newest failures (the `m`
 * oldest for LIFO), in slice order. So it never exceeds `m + n`, and a predicate alone never
 * exceeds `m` and holds only matches.
 */

const Added = defineEvent('calls/added', z.object({ calls: z.array(Call) }));
const Settled = defineEvent('calls/settled', z.object({ at: z.number().int(), failed: z.boolean() }));
const FailuresCleared = defineEvent('calls/failuresCleared');

const slice = (window: SliceWindowPolicy<Call>) =>
  defineSlice<Call>('calls', {
    policy: 'log',
    window,
    reducers: ({ on }) => [
      on(Added, (_v, e) => (e.payload.calls.length === 1 ? append(e.payload.calls[0] as Call) : extend(e.payload.calls))),
      on(Settled, (v, e) => {
        const items = v.all();
        if (items.length === 0) return replace(items);
        const i = e.payload.at % items.length;
        const next = items.slice();
        next[i] = { ...(items[i] as Call), failed: e.payload.failed };
        return replace(next);
      }),
      on(FailuresCleared, (v) => replace(v.where((c) => !c.failed))),
    ],
  });

type Step = { kind: 'add'; failed: boolean[] } | { kind: 'settle'; at: number; failed: boolean } | { kind: 'clear' };
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('add' as const), failed: fc.array(fc.boolean(), { minLength: 1, maxLength: 5 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('settle' as const), at: fc.nat(), failed: fc.boolean() }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'clear' as const }) },
);

/** The rule, from scratch: indices kept by `count(n)` and by `predicate(failed, m)`, united, in order. */
function expected(items: readonly Call[], m: number, n: number | undefined, lifo: boolean): Call[] {
  const matching = items.map((c, i) => (c.failed ? i : -1)).filter((i) => i >= 0);
  const protectedSet = new Set(lifo ? matching.slice(0, m) : matching.slice(Math.max(0, matching.length - m)));
  const bound = (i: number): boolean => n !== undefined && (lifo ? i < n : i >= items.length - n);
  return items.filter((_, i) => bound(i) || protectedSet.has(i));
}

describe('predicate windows protect, count windows bound (property)', () => {
  for (const lifo of [false, true]) {
    for (const withCount of [true, false]) {
      const name = `${withCount ? 'composite(predicate(failed, m), count(n))' : 'predicate(failed, m) alone'}, ${lifo ? 'lifo' : 'fifo'}`;
      it(`${name}: after every event, exactly the rule's items; never more than the bounds`, () => {
        fc.assert(
          fc.property(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 8 }), fc.array(step, { maxLength: 60 }), (m, n, steps) => {
            const eviction = lifo ? EvictionPolicy.lifo<Call>() : EvictionPolicy.fifo<Call>();
            const failed = (c: Call): boolean => c.failed;
            const window = withCount
              ? SliceWindow.composite(SliceWindow.predicate(failed, m, { eviction }), SliceWindow.count(n, { eviction }))
              : SliceWindow.predicate(failed, m, { eviction });
            const Calls = slice(window);
            const session = createSession({ slices: [Calls] });
            let model: Call[] = [];
            let id = 0;
            for (const s of steps) {
              let before: Call[];
              if (s.kind === 'add') {
                const calls = s.failed.map((f) => call(id++, f));
                session.dispatch(Added({ calls }));
                before = [...model, ...calls];
              } else if (s.kind === 'settle') {
                session.dispatch(Settled({ at: s.at, failed: s.failed }));
                before = model.slice();
                if (before.length > 0) {
                  const i = s.at % before.length;
                  before[i] = { ...(before[i] as Call), failed: s.failed };
                }
              } else {
                session.dispatch(FailuresCleared());
                before = model.filter((c) => !c.failed);
              }
              model = expected(before, m, withCount ? n : undefined, lifo);
              const held = session.read(Calls);
              expect(held).toEqual(model);
              expect(held.length).toBeLessThanOrEqual(m + (withCount ? n : 0));
              expect(held.filter(failed).length).toBeGreaterThanOrEqual(Math.min(m, before.filter(failed).length));
              if (!withCount) expect(held.every(failed)).toBe(true);
            }
            session.dispose();
          }),
        );
      });
    }
  }

  it('composite(predicate(failed, m), predicate(!failed, n)): exactly the newest m failures and the newest n others', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 8 }), fc.array(step, { maxLength: 60 }), (m, n, steps) => {
        const Calls = slice(SliceWindow.composite(SliceWindow.predicate((c: Call) => c.failed, m), SliceWindow.predicate((c: Call) => !c.failed, n)));
        const session = createSession({ slices: [Calls] });
        let model: Call[] = [];
        let id = 0;
        const newest = (items: readonly Call[], pick: (c: Call) => boolean, k: number): Set<Call> => new Set(items.filter(pick).slice(Math.max(0, items.filter(pick).length - k)));
        for (const s of steps) {
          let before: Call[];
          if (s.kind === 'add') {
            const calls = s.failed.map((f) => call(id++, f));
            session.dispatch(Added({ calls }));
            before = [...model, ...calls];
          } else if (s.kind === 'settle') {
            session.dispatch(Settled({ at: s.at, failed: s.failed }));
            before = model.slice();
            if (before.length > 0) before[s.at % before.length] = { ...(before[s.at % before.length] as Call), failed: s.failed };
          } else {
            session.dispatch(FailuresCleared());
            before = model.filter((c) => !c.failed);
          }
          const keptFailed = newest(before, (c) => c.failed, m);
          const keptOthers = newest(before, (c) => !c.failed, n);
          model = before.filter((c) => keptFailed.has(c) || keptOthers.has(c));
          expect(session.read(Calls)).toEqual(model);
        }
        session.dispose();
      }),
    );
  });
});
