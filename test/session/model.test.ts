import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { filter, map } from 'rxjs';
import { append, clear, createSession, defineEvent, defineSlice, InvalidEventError, ReducerError, type Envelope } from '../../src/index';
import { SESSION_INTERNALS } from '../../src/session/internals';

/**
 * Model test: random sequences of dispatches, snapshots and restores against a plain model
 * of the slices (the third property adds throwing operator middleware, a middleware that drops
 * library events, transactions, and hostile event objects: getters, proxies). Some reducers throw (their event must change nothing), some payloads are
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

  type HostileStep =
    | Step
    | { kind: 'middlewareThrows'; amount: number }
    | { kind: 'dropped'; text: string }
    | { kind: 'transaction'; amount: number }
    | { kind: 'shiftingType'; text: string }
    | { kind: 'throwingGetter'; field: 'type' | 'payload' }
    | { kind: 'proxy'; throws: boolean; text: string };

  const hostileStep: fc.Arbitrary<HostileStep> = fc.oneof(
    step,
    fc.record({ kind: fc.constant('middlewareThrows' as const), amount: fc.integer({ min: -50, max: 50 }) }),
    fc.record({ kind: fc.constant('dropped' as const), text: fc.string({ maxLength: 3 }) }),
    fc.record({ kind: fc.constant('transaction' as const), amount: fc.integer({ min: -50, max: 50 }) }),
    fc.record({ kind: fc.constant('shiftingType' as const), text: fc.string({ maxLength: 3 }) }),
    fc.record({ kind: fc.constant('throwingGetter' as const), field: fc.constantFrom('type' as const, 'payload' as const) }),
    fc.record({ kind: fc.constant('proxy' as const), throws: fc.boolean(), text: fc.string({ maxLength: 3 }) }),
  );

  it('under hostile middleware and hostile event objects, the model says what changes and the session keeps working', () => {
    fc.assert(
      fc.property(fc.array(hostileStep, { maxLength: 60 }), (steps) => {
        // The operator middleware throws when told to, and drops every library event and every
        // logged text starting with "drop": library events bypass it, so restores still happen.
        let throwNext = false;
        const session = createSession({
          slices: [A, B, Log],
          validation: 'always',
          middleware: {
            operators: [
              map((env: Envelope) => {
                if (throwNext) {
                  throwNext = false;
                  throw new Error('middleware bug');
                }
                return env;
              }),
              filter((env: Envelope) => !env.event.type.startsWith('rxslice.') && !(Logged.match(env.event) && env.event.payload.text.startsWith('drop'))),
            ],
          },
        });
        let model: Model = { a: 0, b: 0, log: [] };
        let saved: { snapshot: ReturnType<typeof session.snapshot>; model: Model } | undefined;
        const failures: string[] = [];
        session.errors$.subscribe((e) => failures.push(e.code));
        for (const s of steps) {
          const failuresBefore = failures.length;
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
              if (!s.text.startsWith('drop')) model = { ...model, log: [...model.log, s.text] };
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
                model = { ...model, a: saved.model.a, b: saved.model.b };
              }
              break;
            case 'middlewareThrows':
              throwNext = true;
              expect(() => session.dispatch(Moved({ amount: s.amount, fail: false }))).toThrow(ReducerError);
              expect(failures.slice(failuresBefore)).toEqual(['REDUCER_FAILED']);
              break;
            case 'dropped':
              session.dispatch(Logged({ text: `drop${s.text}` })); // deliberately filtered out: returns normally
              break;
            case 'transaction':
              expect(() =>
                session.transaction(() => {
                  session.dispatch(Moved({ amount: s.amount, fail: false }));
                  throw new Error('abort');
                }),
              ).toThrow('abort');
              model = { ...model, log: [...model.log, `moved ${s.amount}`] }; // the log keeps its append; a and b roll back
              break;
            case 'shiftingType': {
              // Read once: the first read decides (a log entry), the later "library" type is never seen.
              let reads = 0;
              const event = {
                get type() {
                  return ++reads === 1 ? Logged.type : 'rxslice.session.reset';
                },
                payload: { text: s.text },
              };
              session.dispatch(event as never);
              if (!s.text.startsWith('drop')) model = { ...model, log: [...model.log, s.text] };
              break;
            }
            case 'throwingGetter': {
              const event = Object.defineProperty(s.field === 'type' ? { payload: { text: 'x' } } : { type: Logged.type }, s.field, {
                get() {
                  throw new Error('getter');
                },
              });
              expect(() => session.dispatch(event as never)).toThrow(InvalidEventError);
              break;
            }
            case 'proxy': {
              let reads = 0;
              const proxy = new Proxy({} as Record<string, unknown>, {
                get(_t, key) {
                  if (s.throws) throw new Error('trap');
                  reads++;
                  if (key === 'type') return reads <= 1 ? Logged.type : 'rxslice.slice.cleared';
                  if (key === 'payload') return { text: s.text, slice: 'a' };
                  return undefined;
                },
              });
              if (s.throws) {
                expect(() => session.dispatch(proxy as never)).toThrow(InvalidEventError);
              } else {
                session.dispatch(proxy as never);
                if (!s.text.startsWith('drop')) model = { ...model, log: [...model.log, s.text] };
              }
              break;
            }
          }
          expect(session.slice(A).latest()?.v).toBe(model.a);
          expect(session.slice(B).latest()?.v).toBe(model.b);
          expect([...session.slice(Log).all()]).toEqual(model.log);
          expect(session[SESSION_INTERNALS].pendingRestores).toBe(0);
        }
        // Still working: one more event after whatever happened.
        session.dispatch(Logged({ text: 'end' }));
        expect(session.slice(Log).latest()).toBe('end');
        session.dispose();
      }),
      { numRuns: 200 },
    );
  });
});
