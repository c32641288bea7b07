import fc from 'fast-check';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { createSession, defineEvent, defineSlice, none, replace, type SliceDef } from '../../src/index';
import { computed } from '../../src/computed/computed';
import { defineComputed, type ComputedDef, type ComputedSource } from '../../src/computed/define-computed';

const Bumped = defineEvent('counters/bumped', z.object({ targets: z.array(z.number()), by: z.number() }));

type Counter = { readonly n: number };
const counter = (index: number): SliceDef<string, Counter> =>
  defineSlice(`counter${index}`, {
    policy: 'state',
    initial: [{ n: 0 }],
    reducers: ({ on }) => [
      on(Bumped, (view, e) => (e.payload.targets.includes(index) ? replace([{ n: (view.latest()?.n ?? 0) + e.payload.by }]) : none())),
    ],
  });
const SLICES = [counter(0), counter(1), counter(2)];

/** A node of a random DAG: its sources are slices (index < 0: slice -1-index) or earlier nodes; its value is a sum mod `mod`. */
interface NodeSpec {
  readonly sources: readonly number[];
  readonly mod: number;
}

const dagArb = fc
  .integer({ min: 1, max: 8 })
  .chain((size) =>
    fc.tuple(
      ...Array.from({ length: size }, (_, i) =>
        fc.record({
          sources: fc.uniqueArray(fc.integer({ min: -3, max: i - 1 }), { minLength: 1, maxLength: 3 }),
          mod: fc.constantFrom(2, 3, 1000),
        }),
      ),
    ),
  );

const stepArb = fc.array(
  fc.record({ targets: fc.uniqueArray(fc.integer({ min: 0, max: 2 }), { maxLength: 3 }), by: fc.integer({ min: 0, max: 3 }) }),
  { minLength: 1, maxLength: 3 },
);

describe('computed slices are glitch-free (property)', () => {
  it('every observed node emits at most once per commit or batch, only on change, with the value of a from-scratch evaluation', () => {
    fc.assert(
      fc.property(dagArb, fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }), fc.array(stepArb, { maxLength: 12 }), (specs, observedFlags, steps) => {
        const calls = specs.map(() => 0);
        const defs: ComputedDef<string, number>[] = [];
        specs.forEach((spec, i) => {
          const sources: ComputedSource[] = spec.sources.map((s) => (s < 0 ? (SLICES[-1 - s] as SliceDef<string, Counter>) : (defs[s] as ComputedDef<string, number>)));
          defs.push(
            defineComputed(`node${i}`, sources, (...values: unknown[]) => {
              calls[i] = (calls[i] ?? 0) + 1;
              let sum = 0;
              for (const v of values) sum += typeof v === 'number' ? v : ((v as readonly Counter[]).at(-1)?.n ?? 0);
              return sum % spec.mod;
            }),
          );
        });
        const session = createSession({ slices: SLICES });
        const reference = (i: number): number => {
          const spec = specs[i] as NodeSpec;
          let sum = 0;
          for (const s of spec.sources) sum += s < 0 ? (session.read(SLICES[-1 - s] as SliceDef<string, Counter>).at(-1)?.n ?? 0) : reference(s);
          return sum % spec.mod;
        };
        const emitted = specs.map(() => [] as number[]);
        specs.forEach((_, i) => {
          if (observedFlags[i] === true) computed(session, defs[i] as ComputedDef<string, number>).value$.subscribe((v) => emitted[i]?.push(v));
        });
        for (const step of steps) {
          const before = emitted.map((e) => e.length);
          const lastValues = emitted.map((e) => e.at(-1));
          const callsBefore = [...calls];
          const run = (): void => step.forEach((payload) => session.dispatch(Bumped(payload)));
          if (step.length > 1) session.batch(run);
          else run();
          specs.forEach((_, i) => {
            expect(calls[i]! - callsBefore[i]!).toBeLessThanOrEqual(1);
            if (observedFlags[i] !== true) return;
            const fresh = emitted[i]!.length - before[i]!;
            expect(fresh).toBeLessThanOrEqual(1);
            expect(emitted[i]!.at(-1)).toBe(reference(i));
            if (fresh === 1) expect(emitted[i]!.at(-1)).not.toBe(lastValues[i]);
          });
        }
      }),
      { numRuns: 300 },
    );
  });
});
