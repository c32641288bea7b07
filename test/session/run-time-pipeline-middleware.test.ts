/**
 * Event and operator middleware added at run time with `session.use({ events, operators })`
 * (issue 24, item 1; the seed's Abstractions Proposal, P3). Reducer middleware added with `use`
 * is covered by run-time-middleware.test.ts.
 */
import { debounceTime, defer, delay, filter, finalize, map, tap, type OperatorFunction } from 'rxjs';
import fc from 'fast-check';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import {
  createSession,
  InvalidMiddlewareError,
  ReducerError,
  type Envelope,
  type EventMiddleware,
  type MiddlewareSet,
  type ReducerMiddleware,
  type RxSliceError,
} from '../../src/index';
import { Counter, CounterBumped, NoteAdded, Notes } from '../fixtures';

/** Event middleware that records `name #seq`. */
const seen = (log: string[], name: string): EventMiddleware => (env, next) => {
  log.push(`${name} #${env.seq}`);
  next(env);
};
/** Operator middleware that records `name #seq`. */
const passing = (log: string[], name: string): OperatorFunction<Envelope, Envelope> => tap((env) => log.push(`${name} #${env.seq}`));
/** Reducer middleware that records `name slice`. */
const around = (log: string[], name: string): ReducerMiddleware => (ctx, next) => {
  log.push(`${name} ${ctx.slice}`);
  return next();
};
const notes = (session: { read: (def: typeof Notes) => readonly { text: string }[] }) => session.read(Notes).map((n) => n.text);
const marbles = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));

describe('session.use({ events, operators }): every middleware kind at run time', () => {
  it('adds event middleware after the session’s own, in use() order, from the next event; the disposer removes it (idempotent)', () => {
    const log: string[] = [];
    const session = createSession({ slices: [Counter], middleware: { events: [seen(log, 'def')] } });
    session.dispatch(CounterBumped({ by: 1 }));
    const stopA = session.use({ events: [seen(log, 'a')] });
    const stopB = session.use({ events: [seen(log, 'b1'), seen(log, 'b2')] });
    session.dispatch(CounterBumped({ by: 1 }));
    expect(log).toEqual(['def #1', 'def #2', 'a #2', 'b1 #2', 'b2 #2']);
    log.length = 0;
    stopA();
    stopA();
    session.dispatch(CounterBumped({ by: 1 }));
    expect(log).toEqual(['def #3', 'b1 #3', 'b2 #3']);
    log.length = 0;
    stopB();
    session.dispatch(CounterBumped({ by: 1 }));
    expect(log).toEqual(['def #4']);
    expect(session.slice(Counter).latest()).toEqual({ n: 4 });
  });

  it('adds operator middleware after the session’s own, in use() order; an added filter drops events until removed', () => {
    const log: string[] = [];
    const session = createSession({ slices: [Counter, Notes], middleware: { operators: [passing(log, 'def')] } });
    const dropping = filter((env: Envelope) => !(NoteAdded.match(env.event) && env.event.payload.text === 'drop'));
    const stopA = session.use({ operators: [passing(log, 'a')] });
    const stopFilter = session.use({ operators: [dropping, passing(log, 'after-filter')] });
    session.dispatch(NoteAdded({ id: 1, text: 'keep' }));
    session.dispatch(NoteAdded({ id: 2, text: 'drop' }));
    expect(log).toEqual(['def #1', 'a #1', 'after-filter #1', 'def #2', 'a #2']);
    expect(notes(session)).toEqual(['keep']);
    stopFilter();
    stopA();
    log.length = 0;
    session.dispatch(NoteAdded({ id: 3, text: 'drop' }));
    expect(log).toEqual(['def #3']);
    expect(notes(session)).toEqual(['keep', 'drop']);
  });

  it('one call may mix kinds (reducer functions and { events, operators, reducers }); its disposer removes all of them', () => {
    const log: string[] = [];
    const session = createSession({ slices: [Counter] });
    const stop = session.use(around(log, 'r1'), { events: [seen(log, 'e')], operators: [passing(log, 'o')], reducers: [around(log, 'r2')] });
    session.dispatch(CounterBumped({ by: 1 }));
    expect(log).toEqual(['e #1', 'o #1', 'r1 counter', 'r2 counter']);
    log.length = 0;
    stop();
    session.dispatch(CounterBumped({ by: 1 }));
    expect(log).toEqual([]);
    expect(session.slice(Counter).latest()).toEqual({ n: 2 });
  });

  it('the seed call: session.use(logging, validation, metrics) with a plugin of each kind', () => {
    const log: string[] = [];
    const logging: MiddlewareSet = { events: [seen(log, 'logging')] };
    const validation: MiddlewareSet = {
      operators: [
        map((env: Envelope) => {
          if (NoteAdded.match(env.event) && env.event.payload.text === '') throw new Error('a note needs text');
          return env;
        }),
      ],
    };
    const metrics: ReducerMiddleware = around(log, 'metrics');
    const session = createSession({ slices: [Notes] });
    const stop = session.use(logging, validation, metrics);
    session.dispatch(NoteAdded({ id: 1, text: 'a' }));
    expect(() => session.dispatch(NoteAdded({ id: 2, text: '' }))).toThrow(/a note needs text/);
    session.dispatch(NoteAdded({ id: 3, text: 'c' }));
    expect(log).toEqual(['logging #1', 'metrics notes', 'logging #2', 'logging #2', 'metrics notes']);
    expect(notes(session)).toEqual(['a', 'c']);
    stop();
  });
});

describe('added or removed during a dispatch: from the next event', () => {
  it('an event middleware that adds another: the new one does not see this event, and does see an event queued behind it', () => {
    const log: string[] = [];
    const session = createSession({ slices: [Counter, Notes] });
    let added = false;
    session.use({
      events: [
        (env, next) => {
          if (!added) {
            added = true;
            session.use({ events: [seen(log, 'late-e')], operators: [passing(log, 'late-o')] });
            session.dispatch(NoteAdded({ id: 9, text: 'queued' }));
          }
          next(env);
        },
      ],
    });
    session.dispatch(CounterBumped({ by: 1 }));
    expect(log).toEqual(['late-e #2', 'late-o #2']);
    expect(notes(session)).toEqual(['queued']);
  });

  it('an operator that removes itself (and another) while an event passes: this event still goes through both, the next through neither', () => {
    const log: string[] = [];
    const session = createSession({ slices: [Counter] });
    let stop: (() => void) | undefined;
    stop = session.use({
      operators: [
        tap((env: Envelope) => {
          log.push(`self #${env.seq}`);
          stop?.();
        }),
        passing(log, 'other'),
      ],
      events: [seen(log, 'event')],
    });
    session.dispatch(CounterBumped({ by: 1 }));
    session.dispatch(CounterBumped({ by: 1 }));
    expect(log).toEqual(['event #1', 'self #1', 'other #1']);
    expect(session.slice(Counter).latest()).toEqual({ n: 2 });
  });

  it('a reducer middleware or a subscriber that adds operator middleware: applies from the next event', () => {
    const log: string[] = [];
    const session = createSession({ slices: [Counter, Notes] });
    const stopR = session.use((ctx, next) => {
      if (ctx.seq === 1 && ctx.slice === 'notes') session.use({ operators: [passing(log, 'from-reducer-mw')] });
      return next();
    });
    session.slice(Notes).all$.subscribe((items) => {
      if (items.length === 1) session.use({ events: [seen(log, 'from-subscriber')] });
    });
    session.dispatch(NoteAdded({ id: 1, text: 'a' }));
    expect(log).toEqual([]);
    stopR();
    session.dispatch(CounterBumped({ by: 1 }));
    expect(log).toEqual(['from-subscriber #2', 'from-reducer-mw #2']);
  });

  it('a throwing event middleware added at run time rejects the event (ReducerError, errors$) and leaves the session usable', () => {
    const session = createSession({ slices: [Counter] });
    const errors: RxSliceError[] = [];
    session.errors$.subscribe((e) => errors.push(e));
    const stop = session.use({
      events: [
        () => {
          throw new Error('audit log down');
        },
      ],
    });
    let thrown: unknown;
    try {
      session.dispatch(CounterBumped({ by: 1 }));
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(ReducerError);
    expect((thrown as ReducerError).reducerName).toBe('event middleware');
    expect(errors).toEqual([thrown]);
    stop();
    session.dispatch(CounterBumped({ by: 1 }));
    expect(session.slice(Counter).latest()).toEqual({ n: 1 });
    expect(session.lastSeq).toBe(1);
  });
});

describe('operator middleware replaced while it holds envelopes: each reaches reduce exactly once', () => {
  it('adding an operator while a delay holds an event: the held event leaves the old chain on time, unseen by the new operator; the old chain then ends', () => {
    const scheduler = marbles();
    scheduler.run(({ expectObservable }) => {
      const log: string[] = [];
      const session = createSession({
        slices: [Notes, Counter],
        scheduler,
        middleware: { operators: [(source) => source.pipe(delay(10), finalize(() => log.push(`old chain ended at ${scheduler.now()}`)))] },
      });
      const committed: string[] = [];
      session.committed$.subscribe((c) => committed.push(`${scheduler.now()}: #${c.seq} ${(c.event.payload as { text: string }).text}`));
      scheduler.schedule(() => session.dispatch(NoteAdded({ id: 1, text: 'a' })), 0);
      scheduler.schedule(() => session.use({ operators: [passing(log, 'new')] }), 5);
      scheduler.schedule(() => session.dispatch(NoteAdded({ id: 2, text: 'b' })), 6);
      expectObservable(session.slice(Notes).all$.pipe(map((items) => items.map((n) => n.text).join('')))).toBe('x 9ms y 5ms z', { x: '', y: 'a', z: 'ab' });
      scheduler.flush();
      expect(committed).toEqual(['10: #1 a', '16: #2 b']);
      // The held event went on through the chain it entered (not 'new'); the new chain (delay,
      // then 'new') took the next one. The old chain was completed when replaced and ended once
      // its delay had let the held event go.
      expect(log).toEqual(['old chain ended at 10', 'new #2']);
    });
  });

  it('removing the delaying operator while it holds an event: the held event is still reduced once, later; the next goes straight through', () => {
    const scheduler = marbles();
    scheduler.run(({ expectObservable }) => {
      const session = createSession({ slices: [Notes, Counter], scheduler });
      const stop = session.use({ operators: [delay(10)] });
      scheduler.schedule(() => session.dispatch(NoteAdded({ id: 1, text: 'a' })), 1);
      scheduler.schedule(() => stop(), 2);
      scheduler.schedule(() => session.dispatch(NoteAdded({ id: 2, text: 'b' })), 3);
      expectObservable(session.committed$.pipe(map((c) => (c.event.payload as { text: string }).text))).toBe('---b-------a');
      scheduler.schedule(() => expect(notes(session)).toEqual(['b', 'a']), 20);
    });
  });

  it('a debounce replaced while it holds an event lets it go at once (RxJS operators flush on completion), still exactly once', () => {
    const scheduler = marbles();
    scheduler.run(({ expectObservable }) => {
      const session = createSession({ slices: [Notes, Counter], scheduler, middleware: { operators: [debounceTime(10)] } });
      scheduler.schedule(() => session.dispatch(NoteAdded({ id: 1, text: 'a' })), 0);
      scheduler.schedule(() => session.use({ events: [(env, next) => next(env)], operators: [tap(() => undefined)] }), 4);
      expectObservable(session.committed$.pipe(map((c) => (c.event.payload as { text: string }).text))).toBe('----a');
    });
  });

  it('an operator that adds operator middleware while it lets a held event go (outside any dispatch): that event still reaches reduce, once', () => {
    const scheduler = marbles();
    scheduler.run(({ expectObservable }) => {
      let added = false;
      const session = createSession({
        slices: [Notes, Counter],
        scheduler,
        middleware: {
          operators: [
            debounceTime(5),
            tap(() => {
              if (!added) {
                added = true;
                // Replaces the chain this very emission runs in: completing it now would cut it short.
                session.use({ operators: [tap(() => undefined)] });
              }
            }),
          ],
        },
      });
      scheduler.schedule(() => session.dispatch(NoteAdded({ id: 1, text: 'a' })), 0);
      scheduler.schedule(() => session.dispatch(NoteAdded({ id: 2, text: 'b' })), 7);
      expectObservable(session.committed$.pipe(map((c) => `${c.seq}${(c.event.payload as { text: string }).text}`))).toBe('-----x------y', { x: '1a', y: '2b' });
    });
  });

  it('an event middleware that calls next later, after the operators changed: the event goes through the operators in force then, once', () => {
    const scheduler = marbles();
    scheduler.run(() => {
      const log: string[] = [];
      const session = createSession({ slices: [Notes, Counter], scheduler });
      const stopHold = session.use({ events: [(env, next) => void scheduler.schedule(() => next(env), 10)] });
      scheduler.schedule(() => session.dispatch(NoteAdded({ id: 1, text: 'a' })), 0);
      scheduler.schedule(() => {
        stopHold();
        session.use({ operators: [passing(log, 'added-later')] });
      }, 5);
      scheduler.flush();
      expect(log).toEqual(['added-later #1']);
      expect(notes(session)).toEqual(['a']);
      expect(session.lastSeq).toBe(1);
    });
  });

  it('a replaced chain that fails later is reported on errors$ and not resubscribed; the current chain carries on', () => {
    const scheduler = marbles();
    scheduler.run(() => {
      let subscriptions = 0;
      const counted: OperatorFunction<Envelope, Envelope> = (source) =>
        defer(() => {
          subscriptions++;
          return source.pipe(
            delay(10),
            map((env) => {
              if (NoteAdded.match(env.event) && env.event.payload.text === 'bad') throw new Error('late failure');
              return env;
            }),
          );
        });
      const session = createSession({ slices: [Notes, Counter], scheduler, middleware: { operators: [counted] } });
      const errors: RxSliceError[] = [];
      session.errors$.subscribe((e) => errors.push(e));
      scheduler.schedule(() => session.dispatch(NoteAdded({ id: 1, text: 'bad' })), 0);
      scheduler.schedule(() => session.use({ operators: [tap(() => undefined)] }), 1);
      scheduler.schedule(() => session.dispatch(NoteAdded({ id: 2, text: 'good' })), 2);
      scheduler.flush();
      expect(errors.map((e) => [e.code, (e as ReducerError).reducerName, (e.cause as Error).message])).toEqual([['REDUCER_FAILED', 'operator middleware', 'late failure']]);
      expect(notes(session)).toEqual(['good']);
      // Once at creation, once for the chain that replaced it: the failed old chain is not resubscribed.
      expect(subscriptions).toBe(2);
    });
  });

  it('disposing the session ends a replaced chain that still holds an event (nothing reduced after dispose), and the disposer after dispose does nothing', () => {
    const scheduler = marbles();
    scheduler.run(() => {
      const ended: string[] = [];
      let chains = 0;
      const session = createSession({
        slices: [Notes, Counter],
        scheduler,
        // Each chain built gets a number: 1 at creation, 2 when use() replaces it.
        middleware: {
          operators: [
            (source) =>
              defer(() => {
                const chain = ++chains;
                return source.pipe(delay(10), finalize(() => ended.push(`chain ${chain} at ${scheduler.now()}`)));
              }),
          ],
        },
      });
      const committed: number[] = [];
      session.committed$.subscribe((c) => committed.push(c.seq));
      scheduler.schedule(() => session.dispatch(NoteAdded({ id: 1, text: 'a' })), 0);
      let stop: () => void = () => undefined;
      scheduler.schedule(() => (stop = session.use({ operators: [tap(() => undefined)] })), 2);
      scheduler.schedule(() => session.dispose(), 4);
      scheduler.schedule(() => stop(), 5);
      scheduler.flush();
      expect(committed).toEqual([]);
      // The replaced chain still held event 1 at 4 ms (its delay ends at 10): dispose ended it then.
      expect(ended).toEqual(['chain 1 at 4', 'chain 2 at 4']);
    });
  });

  it('adding event or reducer middleware leaves the operator chain (and its state) alone; adding operator middleware rebuilds it', () => {
    let subscriptions = 0;
    const counted: OperatorFunction<Envelope, Envelope> = (source) =>
      defer(() => {
        subscriptions++;
        return source;
      });
    const session = createSession({ slices: [Counter], middleware: { operators: [counted] } });
    expect(subscriptions).toBe(1);
    const stopE = session.use({ events: [(env, next) => next(env)] }, (_ctx, next) => next());
    stopE();
    session.dispatch(CounterBumped({ by: 1 }));
    expect(subscriptions).toBe(1);
    const stopO = session.use({ operators: [tap(() => undefined)] });
    expect(subscriptions).toBe(2);
    stopO();
    expect(subscriptions).toBe(3);
    session.dispatch(CounterBumped({ by: 1 }));
    expect(session.slice(Counter).latest()).toEqual({ n: 2 });
  });
});

describe('property: whatever is added and removed when, every dispatched event is reduced exactly once', () => {
  /** One step of a run, at a virtual time: dispatch, add middleware (a delay of some ms, or an event middleware that holds next), or remove one. */
  type Step =
    | { readonly at: number; readonly kind: 'dispatch' }
    | { readonly at: number; readonly kind: 'delay' | 'hold'; readonly ms: number }
    | { readonly at: number; readonly kind: 'remove'; readonly which: number };
  const step: fc.Arbitrary<Step> = fc.oneof(
    fc.record({ at: fc.integer({ min: 0, max: 30 }), kind: fc.constant('dispatch' as const) }),
    fc.record({ at: fc.integer({ min: 0, max: 30 }), kind: fc.constantFrom('delay' as const, 'hold' as const), ms: fc.integer({ min: 0, max: 8 }) }),
    fc.record({ at: fc.integer({ min: 0, max: 30 }), kind: fc.constant('remove' as const), which: fc.nat({ max: 20 }) }),
  );

  it('random runs in virtual time: committed ids are the dispatched ids, each once', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), fc.boolean(), (steps, fromInside) => {
        const scheduler = new TestScheduler(() => undefined);
        const dispatched: number[] = [];
        const reduced: number[] = [];
        scheduler.run(() => {
          const session = createSession({ slices: [Notes, Counter], scheduler, middleware: { operators: [delay(1)] } });
          session.committed$.subscribe((c) => reduced.push((c.event.payload as { id: number }).id));
          const stops: (() => void)[] = [];
          let nextId = 0;
          const run = (s: Step): void => {
            if (s.kind === 'dispatch') {
              const id = nextId++;
              dispatched.push(id);
              session.dispatch(NoteAdded({ id, text: 'x' }));
            } else if (s.kind === 'remove') stops.splice(s.which % Math.max(1, stops.length), 1)[0]?.();
            else if (s.kind === 'delay') stops.push(session.use({ operators: [delay(s.ms)] }));
            else stops.push(session.use({ events: [(env, next) => void scheduler.schedule(() => next(env), s.ms)] }));
          };
          // Changes made from inside the pipeline (a reducer middleware) take the deferred path.
          const pending: Step[] = [];
          if (fromInside) session.use((_ctx, next) => (pending.splice(0).forEach(run), next()));
          for (const s of steps) {
            scheduler.schedule(() => (fromInside && s.kind !== 'dispatch' ? pending.push(s) : run(s)), s.at);
          }
        });
        expect([...reduced].sort((a, b) => a - b)).toEqual(dispatched);
      }),
      { numRuns: 200 },
    );
  });
});

describe('bad input to use()', () => {
  it('rejects unknown keys, non-arrays, non-functions and empty sets with InvalidMiddlewareError; nothing of the call is added', () => {
    const log: string[] = [];
    const session = createSession({ slices: [Counter] });
    const bad = (...args: unknown[]) => () => session.use(...(args as Parameters<typeof session.use>));
    expect(bad(around(log, 'r'), { operator: [passing(log, 'o')] })).toThrow(/argument 1 has key "operator"/);
    expect(bad({ events: seen(log, 'e') })).toThrow(/argument 0 has "events" that is not an array \(got function\)/);
    expect(bad({ events: [seen(log, 'e')], operators: [42] })).toThrow(/has operators\[0\] that is not a function \(got number\)/);
    expect(bad({})).toThrow(/at least one middleware/);
    expect(bad({ events: [] })).toThrow(/at least one middleware/);
    expect(bad(null)).toThrow(/argument 0 is null/);
    expect(() => session.slice(Counter).use({ events: [seen(log, 'e')] } as unknown as ReducerMiddleware)).toThrow(/session-wide/);
    expect(bad({ reducers: [around(log, 'r')], operators: [null] })).toThrow(InvalidMiddlewareError);
    session.dispatch(CounterBumped({ by: 1 }));
    expect(log).toEqual([]);
  });
});
