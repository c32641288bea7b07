import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { append, clear, createSession, defineEvent, defineSlice, InvalidEventError, ReducerError } from '../../src/index';

/**
 * Model test: random sequences of dispatches, snapshots and restores against a plain model
 * of the slices. Some reducers throw (their event must change nothing), some payloads are
 * invalid (rejected, nothing changes). After every step the session equals the model, and
 * no subscriber ever sees a partial commit (the sum invariant holds in every emission).
 */
const Moved = defineEvent('bank/moved', z.object({ amount: z.number().int(), fail: z.boolean() }));
const Logged = defineEvent('bank/logged', z.object({ text: z.string() }));
const Purged = defineEvent('bank/purged');

// A and B always sum to zero after a committed `moved`; B's reducer throws when fail is set,
// after A's reducer already produced its pending change.
const A = defineSlice('a', {
  policy: 'state',
  initial: [{ v: 0 }],
  reducers: ({ onLatest }) => [onLatest(Moved, (l, e) => ({ v: (l?.v ?? 0) + e.payload.amount }))],
});
const B = defineSlice('b', {
  policy: 'state',
  initial: [{ v: 0 }],
  reducers: ({ onLatest }) => [
    onLatest(Moved, (l, e) => {
      if (e.payload.fail) throw new Error('declined');
      return { v: (l?.v ?? 0) - e.payload.amount };
    }),
  ],
});
const Log = defineSlice<string>('log', {
  policy: 'log',
  reducers: ({ on }) => [
    on(Logged, (_v, e) => append(e.payload.text)),
    on(Moved, (_v, e) => append(`moved ${e.payload.amount}`)),
    on(Purged, () => clear<string>((t) => t.startsWith('moved'))),
  ],
});

type Model = { a: number; b: number; log: string[] };
type Step =
  | { kind: 'move'; amount: number; fail: boolean }
  | { kind: 'invalid' }
  | { kind: 'log'; text: string }
  | { kind: 'purge' }
  | { kind: 'snapshot' }
  | { kind: 'restore' };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('move' as const), amount: fc.integer({ min: -50, max: 50 }), fail: fc.boolean() }),
  fc.constant({ kind: 'invalid' as const }),
  fc.record({ kind: fc.constant('log' as const), text: fc.string({ maxLength: 5 }) }),
  fc.constant({ kind: 'purge' as const }),
  fc.constant({ kind: 'snapshot' as const }),
  fc.constant({ kind: 'restore' as const }),
);

describe('session model', () => {
  it('matches a plain model after every step and never exposes a partial commit', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        const session = createSession({ slices: [A, B, Log], validation: 'always' });
        let model: Model = { a: 0, b: 0, log: [] };
        let saved: { snapshot: ReturnType<typeof session.snapshot>; model: Model } | undefined;
        let partial = 0;
        const check = () => {
          const a = session.slice(A).latest()?.v ?? NaN;
          const b = session.slice(B).latest()?.v ?? NaN;
          if (a + b !== 0) partial++;
        };
        session.slice(A).all$.subscribe(check);
        session.slice(B).all$.subscribe(check);
        session.committed$.subscribe(check);

        for (const s of steps) {
          switch (s.kind) {
            case 'move':
              if (s.fail) {
                expect(() => session.dispatch(Moved({ amount: s.amount, fail: true }))).toThrow(ReducerError);
              } else {
                session.dispatch(Moved({ amount: s.amount, fail: false }));
                model = { a: model.a + s.amount, b: model.b - s.amount, log: [...model.log, `moved ${s.amount}`] };
              }
              break;
            case 'invalid':
              expect(() => session.dispatch(Moved({ amount: 0.5, fail: false }))).toThrow(InvalidEventError);
              break;
            case 'log':
              session.dispatch(Logged({ text: s.text }));
              model = { ...model, log: [...model.log, s.text] };
              break;
            case 'purge':
              session.dispatch(Purged());
              model = { ...model, log: model.log.filter((t) => !t.startsWith('moved')) };
              break;
            case 'snapshot':
              saved = { snapshot: session.snapshot(), model };
              break;
            case 'restore':
              if (saved) {
                session.restore(saved.snapshot);
                model = { ...model, a: saved.model.a, b: saved.model.b }; // logs are kept
              }
              break;
          }
          expect(session.slice(A).latest()?.v).toBe(model.a);
          expect(session.slice(B).latest()?.v).toBe(model.b);
          expect([...session.slice(Log).all()]).toEqual(model.log);
        }
        expect(partial).toBe(0);
        session.dispose();
      }),
      { numRuns: 200 },
    );
  });

  it('replaying the committed events into a fresh session reproduces the state', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        const live = createSession({ slices: [A, B, Log] });
        const events: { type: string; payload: unknown }[] = [];
        live.committed$.subscribe((c) => events.push(c.event));
        for (const s of steps) {
          try {
            if (s.kind === 'move') live.dispatch(Moved({ amount: s.amount, fail: s.fail }));
            if (s.kind === 'log') live.dispatch(Logged({ text: s.text }));
            if (s.kind === 'purge') live.dispatch(Purged());
          } catch {
            // failed events are not committed and not replayed
          }
        }
        const replay = createSession({ slices: [A, B, Log] });
        for (const e of events) replay.dispatch(e);
        expect(replay.snapshot({ includeLogs: true }).toJSON().slices).toEqual(live.snapshot({ includeLogs: true }).toJSON().slices);
      }),
      { numRuns: 100 },
    );
  });
});
