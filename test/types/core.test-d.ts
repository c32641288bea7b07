import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import {
  append,
  createSession,
  defineEvent,
  defineSlice,
  ofType,
  type Envelope,
  type Event,
  type InferEvent,
  type InferItem,
  type InferPayload,
} from '../../src/index';

const StepAdded = defineEvent('plan/stepAdded', z.object({ step: z.string(), index: z.number() }));
const Reset = defineEvent('plan/reset');
const Steps = defineSlice('steps', {
  policy: 'log',
  schema: z.object({ step: z.string() }),
  reducers: ({ on }) => [on(StepAdded, (_view, e) => append({ step: e.payload.step }))],
});

describe('type inference', () => {
  it('infers event payloads from the schema', () => {
    expectTypeOf(StepAdded({ step: 'a', index: 0 })).toEqualTypeOf<Event<'plan/stepAdded', { step: string; index: number }>>();
    expectTypeOf<InferPayload<typeof StepAdded>>().toEqualTypeOf<{ step: string; index: number }>();
    expectTypeOf<InferEvent<typeof Reset>>().toEqualTypeOf<Event<'plan/reset', void>>();
    expectTypeOf(StepAdded.type).toEqualTypeOf<'plan/stepAdded'>();
  });

  it('infers slice items from the schema, initial items or a type argument', () => {
    expectTypeOf<InferItem<typeof Steps>>().toEqualTypeOf<{ step: string }>();
    expectTypeOf(Steps.Item).toEqualTypeOf<{ step: string }>();
    const Counter = defineSlice('counter', { policy: 'state', initial: [{ n: 0 }] });
    expectTypeOf(Counter.Item).toEqualTypeOf<{ n: number }>();
    const Explicit = defineSlice<{ id: string }>('explicit', { policy: 'log' });
    expectTypeOf(Explicit.Item).toEqualTypeOf<{ id: string }>();
    const session = createSession({ slices: [Steps] });
    expectTypeOf(session.slice(Steps).latest()).toEqualTypeOf<{ step: string } | undefined>();
    expectTypeOf(session.slice(Steps).all()).toEqualTypeOf<readonly { step: string }[]>();
  });

  it('narrows with match and ofType', () => {
    const e = { type: 'x', payload: 1 } as Event;
    if (StepAdded.match(e)) expectTypeOf(e.payload.index).toEqualTypeOf<number>();
    const session = createSession({ slices: [Steps] });
    session.events$.pipe(ofType(StepAdded, Reset)).subscribe((env) => {
      expectTypeOf(env).toEqualTypeOf<Envelope<Event<'plan/stepAdded', { step: string; index: number }> | Event<'plan/reset', void>>>();
    });
  });

  it('rejects misuse at compile time', () => {
    // @ts-expect-error the payload lacks `index`, which the schema requires
    StepAdded({ step: 'a' });
    // @ts-expect-error a payload-less event takes no argument of another type
    Reset(42);
    defineSlice('bad', {
      policy: 'log',
      schema: z.object({ step: z.string() }),
      // @ts-expect-error the reducer appends an item that is not the slice's item type
      reducers: ({ on }) => [on(StepAdded, (_view, e) => append({ wrong: e.payload.index }))],
    });
    // @ts-expect-error policy must be 'state' or 'log'
    defineSlice('bad2', { policy: 'other' });
  });
});
