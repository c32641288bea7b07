import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import {
  append,
  createSession,
  defineEvent,
  defineSlice,
  InvalidMiddlewareError,
  SessionDisposedError,
  type ReducerMiddleware,
} from '../../src/index';

const StepAdded = defineEvent('plan/step-added', z.object({ step: z.string() }));
const Said = defineEvent('chat/said', z.object({ text: z.string() }));

const Plan = defineSlice('plan', {
  policy: 'state',
  schema: z.object({ step: z.string() }),
  reducers: ({ on }) => [on(StepAdded, (_v, e) => append({ step: e.payload.step }))],
});
const Chat = defineSlice('chat', {
  policy: 'log',
  schema: z.object({ text: z.string() }),
  reducers: ({ on }) => [on(Said, (_v, e) => append({ text: e.payload.text }))],
});

/** A middleware that records `name:slice` around each reducer call, in `log`. */
const tracing = (log: string[], name: string): ReducerMiddleware => (ctx, next) => {
  log.push(`${name}:${ctx.slice}`);
  return next();
};

describe('session.use(logging, validation, metrics): reducer middleware added at run time (seed P3)', () => {
  it('the seed call: the three run around every reducer, in the order given, from the next event', () => {
    const session = createSession({ slices: [Plan, Chat] });
    const log: string[] = [];
    const logging = tracing(log, 'logging');
    const validation = tracing(log, 'validation');
    const metrics = tracing(log, 'metrics');
    session.dispatch(StepAdded({ step: 'before' }));
    expect(log).toEqual([]);
    session.use(logging, validation, metrics);
    session.dispatch(StepAdded({ step: 'a' }));
    expect(log).toEqual(['logging:plan', 'validation:plan', 'metrics:plan']);
    log.length = 0;
    session.dispatch(Said({ text: 'hi' }));
    expect(log).toEqual(['logging:chat', 'validation:chat', 'metrics:chat']);
    expect(session.read(Plan)).toEqual([{ step: 'before' }, { step: 'a' }]);
  });

  it('composes definition middleware, then use() calls in order, global before per-slice', () => {
    const log: string[] = [];
    const WithOwn = defineSlice('own', {
      policy: 'log',
      middleware: [tracing(log, 'slice-def')],
      reducers: ({ on }) => [on(Said, (_v, e) => append(e.payload.text))],
    });
    const session = createSession({ slices: [WithOwn], middleware: { reducers: [tracing(log, 'global-def')] } });
    session.slice(WithOwn).use(tracing(log, 'slice-use-1'));
    session.use(tracing(log, 'global-use-1'));
    session.slice(WithOwn).use(tracing(log, 'slice-use-2'));
    session.use(tracing(log, 'global-use-2'));
    session.dispatch(Said({ text: 'x' }));
    expect(log).toEqual(['global-def:own', 'global-use-1:own', 'global-use-2:own', 'slice-def:own', 'slice-use-1:own', 'slice-use-2:own']);
  });

  it('a middleware can change the op (validation that rejects): the event changes nothing and dispatch throws', () => {
    const session = createSession({ slices: [Plan] });
    session.use((ctx, next) => {
      if ((ctx.event.payload as { step: string }).step === '') throw new Error('empty step');
      return next();
    });
    expect(() => session.dispatch(StepAdded({ step: '' }))).toThrow(/empty step/);
    expect(session.read(Plan)).toEqual([]);
    session.dispatch(StepAdded({ step: 'ok' }));
    expect(session.read(Plan)).toEqual([{ step: 'ok' }]);
  });

  it('slice(def).use applies to that slice only', () => {
    const session = createSession({ slices: [Plan, Chat] });
    const log: string[] = [];
    session.slice(Chat).use(tracing(log, 'chat-only'));
    session.dispatch(StepAdded({ step: 'a' }));
    session.dispatch(Said({ text: 'b' }));
    expect(log).toEqual(['chat-only:chat']);
  });

  it('the disposer removes exactly those middleware, is idempotent, and the same function added twice is removed once', () => {
    const session = createSession({ slices: [Plan] });
    const log: string[] = [];
    const m = tracing(log, 'm');
    const first = session.use(m);
    const second = session.use(m, tracing(log, 'n'));
    session.dispatch(StepAdded({ step: 'a' }));
    expect(log).toEqual(['m:plan', 'm:plan', 'n:plan']);
    log.length = 0;
    first();
    first();
    session.dispatch(StepAdded({ step: 'b' }));
    expect(log).toEqual(['m:plan', 'n:plan']);
    log.length = 0;
    second();
    session.dispatch(StepAdded({ step: 'c' }));
    expect(log).toEqual([]);
    expect(session.read(Plan).map((p) => p.step)).toEqual(['a', 'b', 'c']);
  });

  it('a reducer middleware that calls use() while running: the new one applies from the next event, not to the rest of this one', () => {
    const TwoReducers = defineSlice('two', {
      policy: 'log',
      reducers: ({ on }) => [on(Said, (_v, e) => append(`first:${e.payload.text}`)), on(Said, (_v, e) => append(`second:${e.payload.text}`))],
    });
    const session = createSession({ slices: [TwoReducers, Chat] });
    const log: string[] = [];
    let added = false;
    session.use((ctx, next) => {
      if (!added) {
        added = true;
        session.use(tracing(log, `late(seq ${ctx.seq})`));
      }
      return next();
    });
    session.dispatch(Said({ text: 'a' }));
    // Three routes ran for event 1 (two of `two`, one of `chat`): none with the late middleware.
    expect(log).toEqual([]);
    session.dispatch(Said({ text: 'b' }));
    expect(log).toEqual(['late(seq 1):two', 'late(seq 1):two', 'late(seq 1):chat']);
    expect(session.read(TwoReducers)).toEqual(['first:a', 'second:a', 'first:b', 'second:b']);
  });

  it('a disposer called inside a middleware also takes effect from the next event: the rest of this event keeps it', () => {
    const TwoReducers = defineSlice('two', {
      policy: 'log',
      reducers: ({ on }) => [on(Said, (_v, e) => append(`first:${e.payload.text}`)), on(Said, (_v, e) => append(`second:${e.payload.text}`))],
    });
    const session = createSession({ slices: [TwoReducers] });
    const log: string[] = [];
    let stop: (() => void) | undefined;
    stop = session.use((ctx, next) => {
      log.push(`${ctx.reducerName}:${ctx.seq}`);
      stop?.();
      return next();
    });
    session.dispatch(Said({ text: 'a' }));
    session.dispatch(Said({ text: 'b' }));
    expect(log).toEqual(['chat/said:1', 'chat/said:1']);
    expect(session.read(TwoReducers)).toEqual(['first:a', 'second:a', 'first:b', 'second:b']);
  });

  it('an event queued behind the one adding the middleware (dispatched from a subscriber) is reduced with it', () => {
    const session = createSession({ slices: [Plan, Chat] });
    const log: string[] = [];
    session.slice(Plan).all$.subscribe((items) => {
      if (items.length === 1) {
        session.use(tracing(log, 'late'));
        session.dispatch(Said({ text: 'queued' }));
      }
    });
    session.dispatch(StepAdded({ step: 'a' }));
    expect(log).toEqual(['late:chat']);
  });

  it('an onLatest reducer goes through run-time middleware, and back to its direct path when it is removed', () => {
    const Counted = defineEvent('count/by', z.object({ by: z.number() }));
    const Count = defineSlice('count', {
      policy: 'state',
      initial: [{ n: 0 }],
      reducers: ({ onLatest }) => [onLatest(Counted, (c, e) => ({ n: (c?.n ?? 0) + e.payload.by }))],
    });
    const session = createSession({ slices: [Count] });
    const log: string[] = [];
    const stop = session.slice(Count).use(tracing(log, 'm'));
    session.dispatch(Counted({ by: 2 }));
    stop();
    session.dispatch(Counted({ by: 3 }));
    expect(log).toEqual(['m:count']);
    expect(session.read(Count)).toEqual([{ n: 5 }]);
  });

  it('a reducer registered at run time and a slice added later get the run-time middleware', () => {
    const session = createSession({ slices: [Plan], events: [Said] });
    const log: string[] = [];
    session.use(tracing(log, 'g'));
    session.slice(Plan).register(Said, (_v, e) => append({ step: e.payload.text }), 'said-to-plan');
    session.dispatch(Said({ text: 'x' }));
    expect(log).toEqual(['g:plan']);
  });

  it('bad input: a non-function or nothing is an InvalidMiddlewareError, and nothing is added', () => {
    const session = createSession({ slices: [Plan] });
    const log: string[] = [];
    expect(() => session.use(tracing(log, 'ok'), 42 as unknown as ReducerMiddleware)).toThrow(InvalidMiddlewareError);
    expect(() => session.use()).toThrow(/at least one middleware/);
    expect(() => session.slice(Plan).use()).toThrow(/at least one reducer middleware/);
    expect(() => session.slice(Plan).use(null as unknown as ReducerMiddleware)).toThrow(/argument 0 is null/);
    session.dispatch(StepAdded({ step: 'a' }));
    expect(log).toEqual([]);
    expect(() => session.use('x' as unknown as ReducerMiddleware)).toThrow(expect.objectContaining({ code: 'INVALID_MIDDLEWARE', index: 0 }));
  });

  it('a disposed session rejects use()', () => {
    const session = createSession({ slices: [Plan] });
    session.dispose();
    expect(() => session.use((_ctx, next) => next())).toThrow(SessionDisposedError);
  });
});
