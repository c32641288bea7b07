import { z } from 'zod';
import { describe, expectTypeOf, it } from 'vitest';
import { defineEffect, defineEvent } from '../../src/index';
import { defineMachine, effect, refuse, setupMachine, type EventTypeOf, type StateIdOf } from '../../src/machines/index.js';

const PlanRequested = defineEffect('llm/planRequested', z.object({ goal: z.string() }));
const Ping = defineEffect('net/ping');
const Started = defineEvent('task/started', z.object({ taskId: z.string() }));
const Aborted = defineEvent('task/aborted');

describe('effect(...) is typed against defineEffect creators', () => {
  it('takes a creator with its payload, or a function of the args returning it', () => {
    const setup = setupMachine({ context: { goal: 'ship' }, events: [Started] });
    setup.defineMachine('fx', {
      states: {
        idle: {
          entry: [effect(PlanRequested, { goal: 'x' }), effect(Ping)],
          on: { 'task/started': { actions: [effect(PlanRequested, ({ context, event }) => ({ goal: `${context.goal} ${event.payload.taskId}` }))] } },
        },
      },
    });
    // the untyped form stays: an effect type string with any plain data
    effect('agent/notify', { phase: 'planning' });
  });

  it('rejects a plain function, a wrong payload, a missing payload and a payload for a creator without one', () => {
    // @ts-expect-error a plain function is not an effect creator (it has no effect type); see InvalidMachineActionError
    effect(() => ({ type: 'llm/planRequested', payload: { goal: 'x' } }));
    // @ts-expect-error an event creator is not an effect creator: declare it with defineEffect
    effect(Started, { taskId: 'x' });
    // @ts-expect-error goal must be a string
    effect(PlanRequested, { goal: 1 });
    // @ts-expect-error the payload is required by the creator's schema
    effect(PlanRequested);
    // @ts-expect-error Ping takes no payload
    effect(Ping, { extra: true });
  });
});

describe('named transitions written beside the states, with from: [...]', () => {
  const M = setupMachine({ events: [Started, Aborted] }).defineMachine('seed', {
    initial: 'idle',
    states: { idle: {}, planning: {}, failed: { type: 'final' } },
    transitions: [
      {
        name: 'start_planning',
        event: 'task/started',
        from: 'idle',
        target: 'planning',
        guard: ({ event }) => {
          expectTypeOf(event.payload).toEqualTypeOf<{ taskId: string }>();
          return event.payload.taskId.length > 0 || refuse('needs a task id');
        },
      },
      { name: 'abort', event: 'task/aborted', from: ['idle', 'planning'], target: 'failed' },
    ],
  });

  it('keeps state ids and event types on the definition', () => {
    expectTypeOf<StateIdOf<typeof M>>().toEqualTypeOf<'idle' | 'planning' | 'failed'>();
    expectTypeOf<EventTypeOf<typeof M>>().toEqualTypeOf<'task/started' | 'task/aborted'>();
  });

  it('adds the events of machine-level transitions to a machine without declared events', () => {
    const U = defineMachine('u', { states: { a: {}, b: {} }, transitions: [{ event: 'go', from: 'a', target: 'b' }] });
    expectTypeOf<EventTypeOf<typeof U>>().toEqualTypeOf<'go'>();
  });

  it('checks from, target and event', () => {
    setupMachine({ events: [Started] }).defineMachine('bad', {
      states: { a: {}, b: {} },
      // @ts-expect-error "nope" is not a state id
      transitions: [{ event: 'task/started', from: 'nope', target: 'b' }],
    });
    setupMachine({ events: [Started] }).defineMachine('bad2', {
      states: { a: {}, b: {} },
      // @ts-expect-error "zz" is not a state id
      transitions: [{ event: 'task/started', from: 'a', target: 'zz' }],
    });
    setupMachine({ events: [Started] }).defineMachine('bad3', {
      states: { a: {}, b: {} },
      // @ts-expect-error "task/startd" is not a declared event
      transitions: [{ event: 'task/startd', from: 'a', target: 'b' }],
    });
  });
});
