import { z } from 'zod';
import { describe, expectTypeOf, it } from 'vitest';
import { append, createSession, defineEvent, defineSlice, type ReducerMiddleware, type SliceUpdate } from '../../src/index';

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
