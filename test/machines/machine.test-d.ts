import { describe, expectTypeOf, it } from 'vitest';
import {
  assign,
  canTransition,
  createMachineActor,
  defineMachine,
  initialTransition,
  matches,
  type ContextOf,
  type EventTypeOf,
  type StateIdOf,
} from '../../src/machines/index.js';

type Ctx = { steps: number; done: number };

const Agent = defineMachine('agent', {
  context: { steps: 2, done: 0 } as Ctx,
  initial: 'idle',
  states: {
    idle: { on: { 'agent/started': 'active' } },
    active: {
      initial: 'planning',
      states: {
        planning: { on: { 'agent/planned': 'executing' } },
        executing: {
          on: {
            'agent/stepDone': { actions: assign<Ctx>(({ context }) => ({ done: context.done + 1 })) },
            'agent/reviewed': { target: 'complete', guard: ({ context }) => context.done >= context.steps },
          },
        },
        h: { type: 'history', history: 'deep' },
      },
      on: { 'agent/aborted': 'failed', 'error.*': 'failed' },
    },
    complete: { type: 'final' },
    failed: { type: 'final' },
  },
});

describe('defineMachine types', () => {
  it('infers state ids, event names and context', () => {
    expectTypeOf<StateIdOf<typeof Agent>>().toEqualTypeOf<'idle' | 'active' | 'planning' | 'executing' | 'h' | 'complete' | 'failed'>();
    expectTypeOf<EventTypeOf<typeof Agent>>().toEqualTypeOf<
      'agent/started' | 'agent/planned' | 'agent/stepDone' | 'agent/reviewed' | 'agent/aborted' | `error.${string}`
    >();
    expectTypeOf<ContextOf<typeof Agent>>().toEqualTypeOf<Ctx>();
  });

  it('types guards and dynamic actions with the context', () => {
    defineMachine('guards', {
      context: { n: 0 },
      states: {
        a: {
          on: {
            go: {
              target: 'b',
              guard: ({ context }) => {
                expectTypeOf(context).toEqualTypeOf<{ n: number }>();
                return context.n > 0;
              },
            },
          },
          entry: ({ context }) => {
            expectTypeOf(context.n).toBeNumber();
          },
        },
        b: {},
      },
    });
  });

  it('checks targets against the declared state ids', () => {
    defineMachine('bad-target', {
      states: {
        // @ts-expect-error -- 'nowhere' is not a state of this machine
        a: { on: { go: 'nowhere' } },
        b: {},
      },
    });
    defineMachine('bad-initial', {
      // @ts-expect-error -- the machine's initial must name one of its states
      initial: 'missing',
      states: { a: {} },
    });
  });

  it('checks events sent to an actor and state ids given to matches', () => {
    const actor = createMachineActor(Agent).start();
    actor.send('agent/started');
    actor.send({ type: 'error.network' });
    // @ts-expect-error -- 'agent/unknown' is not an event any state handles
    actor.send('agent/unknown');
    const snapshot = initialTransition(Agent).snapshot;
    expectTypeOf(matches(snapshot, 'planning')).toBeBoolean();
    // @ts-expect-error -- 'plannning' (typo) is not a state id
    matches(snapshot, 'plannning');
    // @ts-expect-error -- not an event of Agent
    canTransition(Agent, snapshot, 'nope');
    expectTypeOf(snapshot.context).toEqualTypeOf<Ctx>();
    actor.dispose();
  });
});
