import { z } from 'zod';
import { describe, expectTypeOf, it } from 'vitest';
import { createSession, defineEvent, defineSlice, type Event, type InferEvent, type SliceView } from '../../src/index';
import {
  assign,
  canTransition,
  defineMachine,
  effect,
  initialTransition,
  setupMachine,
  type ContextOf,
  type EventTypeOf,
  type Guard,
  type MachineEvent,
  type StateIdOf,
} from '../../src/machines/index.js';

const CreatePlan = defineEvent('plan/created', z.object({ goal: z.string() }));
const UpdateStep = defineEvent('plan/stepUpdated', z.object({ id: z.string(), status: z.enum(['pending', 'done']) }));
const CompletePlan = defineEvent('plan/completed');
const Plan = defineSlice('plan', { policy: 'state', schema: z.object({ id: z.string(), status: z.enum(['pending', 'done']) }) });

interface Ctx {
  readonly goal: string;
  readonly updates: number;
}

const setup = setupMachine({ context: { goal: '', updates: 0 } as Ctx, events: [CreatePlan, UpdateStep, CompletePlan] });

const Workflow = setup.defineMachine('workflow', {
  initial: 'idle',
  states: {
    idle: {
      on: {
        'plan/created': {
          target: 'active',
          actions: assign(({ event, context }) => {
            expectTypeOf(event).toEqualTypeOf<Event<'plan/created', { goal: string }>>();
            expectTypeOf(context).toEqualTypeOf<Ctx>();
            return { goal: event.payload.goal };
          }),
        },
      },
    },
    active: {
      on: {
        'plan/stepUpdated': {
          guard: function stepExists({ event, slices }) {
            expectTypeOf(event.payload).toEqualTypeOf<{ id: string; status: 'pending' | 'done' }>();
            expectTypeOf(slices.get(Plan)).toEqualTypeOf<SliceView<{ id: string; status: 'pending' | 'done' }>>();
            return slices.get(Plan).all().some((s) => s.id === event.payload.id);
          },
          actions: [
            assign(({ context }) => ({ updates: context.updates + 1 })),
            effect('plan/logged', ({ event }) => event.payload.status),
          ],
        },
        'plan/completed': {
          target: 'done',
          guard: ({ event, slices }) => {
            expectTypeOf(event).toEqualTypeOf<Event<'plan/completed', void>>();
            return slices.get(Plan).all().every((s) => s.status === 'done');
          },
        },
        // Not a declared event: the payload is unknown.
        'error.*': {
          actions: assign(({ event }) => {
            expectTypeOf(event).toEqualTypeOf<MachineEvent>();
            expectTypeOf(event.payload).toBeUnknown();
            return {};
          }),
        },
      },
      entry: assign(({ event, context }) => {
        expectTypeOf(event).toEqualTypeOf<MachineEvent>(); // entry runs for whatever event entered
        return { updates: context.updates };
      }),
    },
    done: { type: 'final' },
  },
});

describe('setupMachine types (XState 5 setup({ types }) style)', () => {
  it('infers context, declared event names and state ids', () => {
    expectTypeOf<ContextOf<typeof Workflow>>().toEqualTypeOf<Ctx>();
    expectTypeOf<StateIdOf<typeof Workflow>>().toEqualTypeOf<'idle' | 'active' | 'done'>();
    expectTypeOf<EventTypeOf<typeof Workflow>>().toEqualTypeOf<'plan/created' | 'plan/stepUpdated' | 'plan/completed' | `error.${string}`>();
  });

  it('rejects wrong payload reads, wrong context updates and unknown targets', () => {
    setup.defineMachine('bad-payload', {
      states: {
        a: {
          on: {
            'plan/stepUpdated': {
              // @ts-expect-error -- UpdateStep's payload has no 'title'
              guard: ({ event }) => event.payload.title === 'x',
            },
          },
        },
      },
    });
    setup.defineMachine('bad-assign', {
      states: {
        a: {
          on: {
            // @ts-expect-error -- 'updates' is a number in the context, not a string
            'plan/created': { actions: assign(({ event }) => ({ updates: event.payload.goal })) },
          },
        },
      },
    });
    setup.defineMachine('typo', {
      states: {
        a: {
          on: {
            // @ts-expect-error -- 'plan/stepUpdatd' (typo) is not a declared event: it would never fire
            'plan/stepUpdatd': {},
            'done.state.a': {}, // platform events and prefixes need no declaration
          },
        },
      },
    });
    setup.defineMachine('typo-string-target', {
      initial: 'a',
      states: {
        a: {
          on: {
            // @ts-expect-error -- Unknown event 'plan/stepUpdatd': the declared events are 'plan/created', 'plan/stepUpdated', 'plan/completed' (text pinned by unknown-event-message.test.ts)
            'plan/stepUpdatd': 'b',
            'plan/stepUpdated': 'b',
          },
        },
        b: {},
      },
    });
    setup.defineMachine('bad-target', {
      states: {
        a: {
          on: {
            // @ts-expect-error -- 'nowhere' is not a state of this machine
            'plan/created': { target: 'nowhere' },
          },
        },
        b: {},
      },
    });
  });

  it('checks events given to canTransition, in a session and as pure functions', () => {
    const session = createSession({ slices: [Plan] });
    const machine = session.install(Workflow);
    expectTypeOf(machine.canTransition(UpdateStep({ id: 'a', status: 'done' }))).toBeBoolean();
    // @ts-expect-error -- not an event this machine names
    machine.canTransition('plan/unknown');
    const snapshot = initialTransition(Workflow).snapshot;
    expectTypeOf(canTransition(Workflow, snapshot, CompletePlan())).toBeBoolean();
    expectTypeOf(machine.availableTransitions()[0]!.requiresEvent).toBeBoolean();
    expectTypeOf(machine.availableTransitions()[0]!.transitions[0]!.source).toEqualTypeOf<'idle' | 'active' | 'done'>();
    session.dispose();
  });

  it('types guards written outside the config with Guard<TContext, InferEvent<typeof Creator>>', () => {
    const stepExists: Guard<Ctx, InferEvent<typeof UpdateStep>> = ({ event, slices }) =>
      slices.get(Plan).all().some((s) => s.id === event.payload.id);
    setup.defineMachine('outside', { states: { a: { on: { 'plan/stepUpdated': { guard: stepExists } } } } });
    setup.defineMachine('outside-wrong', {
      states: {
        a: {
          on: {
            // @ts-expect-error -- a guard for UpdateStep cannot guard CreatePlan (different payload)
            'plan/created': { guard: stepExists },
          },
        },
      },
    });
  });

  it('types guards by event in a single defineMachine call too (assign there still takes the context type)', () => {
    defineMachine('single', {
      context: { n: 0 },
      events: [UpdateStep],
      states: {
        a: {
          on: {
            'plan/stepUpdated': {
              guard: ({ event, context }) => {
                expectTypeOf(event.payload.status).toEqualTypeOf<'pending' | 'done'>();
                return context.n >= 0;
              },
              actions: assign<{ n: number }>(({ context }) => ({ n: context.n + 1 })),
            },
          },
        },
      },
    });
  });
});
