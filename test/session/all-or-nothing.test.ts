import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { append, createSession, defineEvent, defineSlice, replace, type SliceDef } from '../../src/index';

/**
 * One event changes every slice; `fail` names the slice whose reducer throws (or -1). Slices
 * alternate between the staged `onLatest` path (state), `append` (log) and `replace` (state),
 * so the all-or-nothing guarantee is checked on each way a change is staged.
 */
const Step = defineEvent('stage/step', z.object({ n: z.number().int(), fail: z.number().int() }));
const SLICES = 4;

function slices(): SliceDef<string, any>[] {
  return Array.from({ length: SLICES }, (_, i) => {
    const check = (fail: number) => {
      if (fail === i) throw new Error(`slice ${i} refuses`);
    };
    if (i % 3 === 0) {
      return defineSlice(`latest${i}`, {
        policy: 'state',
        schema: z.object({ sum: z.number() }),
        initial: [{ sum: 0 }],
        reducers: ({ onLatest }) => [
          onLatest(Step, (v, e) => {
            check(e.payload.fail);
            return { sum: (v?.sum ?? 0) + e.payload.n };
          }),
        ],
      });
    }
    if (i % 3 === 1) {
      return defineSlice(`log${i}`, {
        policy: 'log',
        schema: z.number(),
        reducers: ({ on }) => [
          on(Step, (_v, e) => {
            check(e.payload.fail);
            return append(e.payload.n);
          }),
        ],
      });
    }
    return defineSlice(`replaced${i}`, {
      policy: 'state',
      schema: z.number(),
      initial: [0],
      reducers: ({ on }) => [
        on(Step, (v, e) => {
          check(e.payload.fail);
          return replace([...v.all().slice(-2), e.payload.n]);
        }),
      ],
    });
  });
}

describe('all or nothing: an event commits every slice it changes, or none', () => {
  it('a reducer throwing on any slice (the third included) leaves every slice, version and seq as before (fast-check model)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ n: fc.integer({ min: -5, max: 5 }), fail: fc.integer({ min: -3, max: SLICES - 1 }) }), { maxLength: 30 }),
        fc.constantFrom<'always' | 'off'>('always', 'off'),
        (steps, validation) => {
          const defs = slices();
          const session = createSession({ slices: defs, validation });
          const model: unknown[][] = defs.map((d) => [...d.initial]);
          let seq = session.lastSeq;
          for (const step of steps) {
            const versions = defs.map((d) => session.slice(d).version);
            const before = defs.map((d) => session.slice(d).all());
            if (step.fail >= 0) {
              expect(() => session.dispatch(Step(step))).toThrow(`slice ${step.fail} refuses`);
              defs.forEach((d, i) => {
                expect(session.slice(d).version).toBe(versions[i]);
                expect(session.slice(d).all()).toBe(before[i]);
              });
              expect(session.lastSeq).toBe(seq);
              continue;
            }
            session.dispatch(Step(step));
            seq++;
            defs.forEach((_, i) => {
              const m = model[i] as unknown[];
              if (i % 3 === 0) model[i] = [{ sum: (m[m.length - 1] as { sum: number }).sum + step.n }];
              else if (i % 3 === 1) m.push(step.n);
              else model[i] = [...m.slice(-2), step.n];
            });
            expect(session.lastSeq).toBe(seq);
          }
          defs.forEach((d, i) => expect(session.slice(d).all()).toEqual(model[i]));
          // Items are frozen (validation in dev and 'always' freezes outside production).
          if (validation === 'always') for (const d of defs) for (const item of session.slice(d).all()) if (typeof item === 'object') expect(Object.isFrozen(item)).toBe(true);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('the third slice throwing: the first two keep their content and versions, and no subscriber hears anything', () => {
    const defs = slices();
    const session = createSession({ slices: defs });
    const heard: string[] = [];
    for (const d of defs) session.slice(d).all$.subscribe(() => heard.push(d.name));
    session.committed$.subscribe((c) => heard.push(`commit ${c.seq}`));
    heard.length = 0;
    expect(() => session.dispatch(Step({ n: 1, fail: 2 }))).toThrow('slice 2 refuses');
    expect(heard).toEqual([]);
    expect(session.slice(defs[0]!).all()).toEqual([{ sum: 0 }]);
    expect(session.slice(defs[1]!).all()).toEqual([]);
    expect(session.slice(defs[0]!).version).toBe(0);
    expect(session.slice(defs[1]!).version).toBe(0);
    session.dispatch(Step({ n: 1, fail: -1 }));
    expect(heard).toEqual(['latest0', 'log1', 'replaced2', 'latest3', 'commit 1']);
  });
});
