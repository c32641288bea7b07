/** Event middleware: `(envelope, next) => void`, once per application event, before operator middleware. */
import { map } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { createSession, ReducerError, type Envelope, type EventMiddleware, type RxSliceError } from '../../src/index';
import { Counter, CounterBumped, NoteAdded, Notes } from '../fixtures';

const seen = (log: string[], name: string): EventMiddleware => (env, next) => {
  log.push(`${name} #${env.seq} ${env.event.type}`);
  next(env);
};

describe('event middleware', () => {
  it('sees each application event once, in order, before operator middleware and reducers', () => {
    const log: string[] = [];
    const session = createSession({
      slices: [Counter],
      middleware: {
        events: [seen(log, 'a'), seen(log, 'b')],
        operators: [map((env: Envelope) => (log.push(`operator #${env.seq}`), env))],
        reducers: [(ctx, next) => (log.push(`reducer ${ctx.slice}`), next())],
      },
    });
    session.dispatch(CounterBumped({ by: 2 }));
    expect(log).toEqual(['a #1 counter/bumped', 'b #1 counter/bumped', 'operator #1', 'reducer counter']);
    expect(session.slice(Counter).latest()).toEqual({ n: 2 });
  });

  it('may change the envelope or drop it; a dropped event is never reduced or committed', () => {
    const double: EventMiddleware = (env, next) =>
      CounterBumped.match(env.event) ? next({ ...env, event: CounterBumped({ by: env.event.payload.by * 2 }) }) : next(env);
    const dropNotes: EventMiddleware = (env, next) => {
      if (!NoteAdded.match(env.event)) next(env);
    };
    const session = createSession({ slices: [Counter, Notes], middleware: { events: [dropNotes, double] } });
    const committed: number[] = [];
    session.committed$.subscribe((c) => committed.push(c.seq));
    session.dispatch(NoteAdded({ id: 1, text: 'dropped' }));
    session.dispatch(CounterBumped({ by: 5 }));
    expect(session.slice(Notes).all()).toEqual([]);
    expect(session.slice(Counter).latest()).toEqual({ n: 10 });
    expect(committed).toEqual([2]);
  });

  it('a throwing middleware rejects that event (ReducerError, errors$), changes nothing, and the next event goes through', () => {
    const errors: RxSliceError[] = [];
    let fail = true;
    const flaky: EventMiddleware = (env, next) => {
      if (fail) throw new Error('metrics backend down');
      next(env);
    };
    const session = createSession({ slices: [Counter], middleware: { events: [flaky] } });
    session.errors$.subscribe((e) => errors.push(e));
    let thrown: unknown;
    try {
      session.dispatch(CounterBumped({ by: 1 }));
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(ReducerError);
    expect((thrown as ReducerError).reducerName).toBe('event middleware');
    expect((thrown as ReducerError).message).toContain('The event middleware failed on "counter/bumped" (seq 0): metrics backend down');
    expect(errors).toEqual([thrown]);
    expect(session.slice(Counter).latest()).toEqual({ n: 0 });
    fail = false;
    session.dispatch(CounterBumped({ by: 1 }));
    expect(session.slice(Counter).latest()).toEqual({ n: 1 });
  });

  it('next twice with one envelope is a failure: the event is reduced once', () => {
    const twice: EventMiddleware = (env, next) => {
      next(env);
      next(env);
    };
    const session = createSession({ slices: [Counter], middleware: { events: [twice] } });
    const errors: RxSliceError[] = [];
    session.errors$.subscribe((e) => errors.push(e));
    expect(() => session.dispatch(CounterBumped({ by: 3 }))).toThrow(/called next twice with envelope #1/);
    expect(session.slice(Counter).latest()).toEqual({ n: 3 });
    expect(errors).toHaveLength(1);
  });

  it('next again later with an envelope already handed on synchronously is a failure: reduced once', async () => {
    let again: (() => void) | undefined;
    const echo: EventMiddleware = (env, next) => {
      next(env);
      again = () => next(env);
    };
    const session = createSession({ slices: [Counter], middleware: { events: [echo] } });
    const errors: RxSliceError[] = [];
    session.errors$.subscribe((e) => errors.push(e));
    session.dispatch(CounterBumped({ by: 2 }));
    await Promise.resolve();
    again?.();
    expect(session.slice(Counter).latest()).toEqual({ n: 2 });
    expect(errors.map((e) => e.message)).toEqual([expect.stringMatching(/called next twice with envelope #1/)]);
    // The next envelope is handed on normally.
    session.dispatch(CounterBumped({ by: 1 }));
    expect(session.slice(Counter).latest()).toEqual({ n: 3 });
  });

  it('next called later reduces the event then; a forged library event is refused', async () => {
    const later: EventMiddleware = (env, next) => void setTimeout(() => next(env), 5);
    const session = createSession({ slices: [Counter], middleware: { events: [later] } });
    session.dispatch(CounterBumped({ by: 4 }));
    expect(session.slice(Counter).latest()).toEqual({ n: 0 });
    await expect.poll(() => session.slice(Counter).latest()).toEqual({ n: 4 });

    const forge: EventMiddleware = (env, next) => next({ ...env, event: { type: 'rxslice.session.reset', payload: undefined } });
    const forged = createSession({ slices: [Counter], middleware: { events: [forge] } });
    expect(() => forged.dispatch(CounterBumped({ by: 1 }))).toThrow(ReducerError);
    expect(forged.slice(Counter).latest()).toEqual({ n: 0 });
  });

  it('library events (reset, restore) bypass it', () => {
    const log: string[] = [];
    const session = createSession({ slices: [Counter], middleware: { events: [seen(log, 'm')] } });
    session.dispatch(CounterBumped({ by: 1 }));
    const snap = session.snapshot();
    session.dispatch(CounterBumped({ by: 1 }));
    session.restore(snap);
    session.reset();
    expect(log).toEqual(['m #1 counter/bumped', 'm #2 counter/bumped']);
  });
});
