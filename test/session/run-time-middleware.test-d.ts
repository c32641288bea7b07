import { delay, filter } from 'rxjs';
import { z } from 'zod';
import { describe, expectTypeOf, it } from 'vitest';
import { append, createSession, defineEvent, defineSlice, type MiddlewareSet, type ReducerMiddleware, type SliceUpdate } from '../../src/index';

const Said = defineEvent('chat/said', z.object({ text: z.string() }));
const Chat = defineSlice('chat', {
  policy: 'log',
  schema: z.object({ text: z.string() }),
  reducers: ({ on }) => [on(Said, (_v, e) => append({ text: e.payload.text }))],
});

describe('types of use() and changes$', () => {
  it('use takes reducer middleware and returns a disposer', () => {
    const session = createSession({ slices: [Chat] });
    const m: ReducerMiddleware = (_ctx, next) => next();
    expectTypeOf(session.use(m, m, m)).toEqualTypeOf<() => void>();
    expectTypeOf(session.slice(Chat).use(m)).toEqualTypeOf<() => void>();
    // @ts-expect-error not a middleware
    session.use('logging');
    // @ts-expect-error an event middleware has another shape (envelope, next(envelope))
    session.use((env: { seq: number }, next: (e: unknown) => void) => next(env));
  });

  it('use takes every kind the session options take, as { events, operators, reducers }, typed from context', () => {
    const session = createSession({ slices: [Chat] });
    const m: ReducerMiddleware = (_ctx, next) => next();
    expectTypeOf(session.use({ events: [(env, next) => next(env)], operators: [delay(1), filter((env) => env.seq > 0)], reducers: [m] })).toEqualTypeOf<() => void>();
    expectTypeOf(session.use(m, { events: [(env, next) => next({ ...env, meta: { source: 'x' } })] })).toEqualTypeOf<() => void>();
    session.use({
      events: [
        (env, next) => {
          expectTypeOf(env.seq).toEqualTypeOf<number>();
          next(env);
        },
      ],
    });
    const plugin: MiddlewareSet = { operators: [delay(5)] };
    session.use(plugin);
    // @ts-expect-error an operator must map envelopes to envelopes
    session.use({ operators: [filter((n: number) => n > 0)] });
    // @ts-expect-error unknown key: the kinds are events, operators, reducers
    session.use({ operator: [delay(1)] });
    // @ts-expect-error a slice takes reducer middleware only: event and operator middleware are session-wide
    session.slice(Chat).use(plugin);
  });

  it('session[Plan] is not TypeScript: an object cannot index a type, so the per-slice spelling is session.slice(Plan)', () => {
    const session = createSession({ slices: [Chat] });
    const m: ReducerMiddleware = (_ctx, next) => next();
    // @ts-expect-error TS2538: a slice definition (an object) cannot be used as an index type
    void session[Chat];
    expectTypeOf(session.slice(Chat).use(m)).toEqualTypeOf<() => void>();
  });

  it('changes$ carries the slice item type', () => {
    const session = createSession({ slices: [Chat] });
    session.slice(Chat).changes$.subscribe((c) => {
      expectTypeOf(c).toEqualTypeOf<SliceUpdate<{ text: string }>>();
      expectTypeOf(c.previous).toEqualTypeOf<readonly { text: string }[]>();
      expectTypeOf(c.evicted).toEqualTypeOf<readonly { text: string }[]>();
      expectTypeOf(c.seq).toEqualTypeOf<number>();
    });
  });
});
