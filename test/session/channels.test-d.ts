import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { append, createSession, defineChannel, defineEvent, defineSlice, type Envelope, type Event, type InferChannelEvent } from '../../src/index';

const PlanUpdated = defineEvent('plan/updated', z.object({ planId: z.string(), priority: z.enum(['low', 'high']) }));
const PlanCompleted = defineEvent('plan/completed', z.object({ planId: z.string() }));
const ToolCalled = defineEvent('tool/called', z.object({ tool: z.string() }));
const PlanEvents = defineChannel('plan', [PlanUpdated, PlanCompleted]);
const ToolEvents = defineChannel('tool', [ToolCalled]);

describe('channel types', () => {
  it('narrows subscribers to the channel union and refuses publishing other events', () => {
    const session = createSession({ slices: [] });
    const plan = session.channel(PlanEvents);
    type PlanEvent = Event<'plan/updated', { planId: string; priority: 'low' | 'high' }> | Event<'plan/completed', { planId: string }>;
    expectTypeOf<InferChannelEvent<typeof PlanEvents>>().toEqualTypeOf<PlanEvent>();
    plan.subscribe((e) => {
      expectTypeOf(e).toEqualTypeOf<PlanEvent>();
      switch (e.type) {
        case 'plan/updated':
          expectTypeOf(e.payload.priority).toEqualTypeOf<'low' | 'high'>();
          break;
        case 'plan/completed':
          expectTypeOf(e.payload).toEqualTypeOf<{ planId: string }>();
          break;
      }
    });
    plan.subscribe({ filter: (e) => e.type === 'plan/updated' && e.payload.priority === 'high' }, () => undefined);
    plan.publish(PlanUpdated({ planId: '1', priority: 'low' }));
    // @ts-expect-error an event outside the channel
    plan.publish(ToolCalled({ tool: 'x' }));
    expectTypeOf(plan.replay({ fromSeq: 1 })).toEqualTypeOf<import('rxjs').Observable<Envelope<PlanEvent & Event>>>();
    const all = session.channel(PlanEvents.or(ToolEvents));
    all.publish(ToolCalled({ tool: 'x' }));
    expectTypeOf<InferChannelEvent<typeof all.def>>().toEqualTypeOf<PlanEvent | Event<'tool/called', { tool: string }>>();
    expectTypeOf(PlanEvents.or(ToolEvents).name).toEqualTypeOf<'plan|tool'>();
  });

  it('a reducer may declare its channel; the type checker rejects a channel that does not carry the event', () => {
    defineSlice('ok', { policy: 'log', schema: z.string(), reducers: ({ on }) => [on(PlanUpdated, (_v, e) => append(e.payload.planId), { channel: PlanEvents })] });
    defineSlice('also', { policy: 'log', schema: z.string(), reducers: ({ on }) => [on(ToolCalled, (_v, e) => append(e.payload.tool), { channel: PlanEvents.or(ToolEvents) })] });
    defineSlice('bad', {
      policy: 'log',
      schema: z.string(),
      // @ts-expect-error tool/called is not in the plan channel
      reducers: ({ on }) => [on(ToolCalled, (_v, e) => append(e.payload.tool), { channel: PlanEvents })],
    });
  });
});
