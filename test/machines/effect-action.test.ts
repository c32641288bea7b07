import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { createSession, defineEffect, handleEffect } from '../../src/index.js';
import { defineMachine, effect, initialTransition, InvalidMachineActionError, setupMachine, transition } from '../../src/machines/index.js';

const PlanRequested = defineEffect('llm/planRequested', z.object({ goal: z.string() }));
const Ping = defineEffect('net/ping');

describe('effect(...) with defineEffect creators', () => {
  it('builds the effect with the creator, from a fixed payload or one computed from the args', () => {
    const M = setupMachine({ context: { goal: 'ship' } }).defineMachine('fx', {
      states: {
        idle: {
          entry: [effect(PlanRequested, { goal: 'fixed' }), effect(PlanRequested, ({ context }) => ({ goal: context.goal })), effect(Ping), effect('agent/notify', { n: 1 })],
        },
      },
    });
    expect(initialTransition(M).effects).toEqual([
      { type: 'llm/planRequested', payload: { goal: 'fixed' } },
      { type: 'llm/planRequested', payload: { goal: 'ship' } },
      { type: 'net/ping', payload: undefined },
      { type: 'agent/notify', payload: { n: 1 } },
    ]);
  });

  it('in a session, the effect reaches the handler registered for the creator', () => {
    const Go = { type: 'job/go' } as const;
    const M = defineMachine('job', { states: { idle: { on: { 'job/go': { target: 'busy', actions: effect(PlanRequested, { goal: 'from the machine' }) } } }, busy: {} } });
    const session = createSession({ slices: [] });
    session.install(M);
    const handled: unknown[] = [];
    handleEffect(session, PlanRequested, (fx) => {
      handled.push(fx.payload);
      return [];
    });
    session.dispatch({ ...Go, payload: undefined });
    expect(handled).toEqual([{ goal: 'from the machine' }]);
    session.dispose();
  });

  it('a plain function (or anything that is not a creator or a type string) throws InvalidMachineActionError at once', () => {
    // what a caller without types (or with a cast) can pass
    const untyped = effect as unknown as (value: unknown) => unknown;
    const plain = function makeEffect() {
      return { type: 'llm/planRequested', payload: { goal: 'x' } };
    };
    expect(() => untyped(plain)).toThrow(InvalidMachineActionError);
    expect(() => untyped(plain)).toThrow(
      'effect() takes an effect creator made by defineEffect or an effect type string, got a plain function "makeEffect" (it has no effect type). ' +
        "Declare the effect with defineEffect('domain/verb', schema) and write effect(MyEffect, payload)",
    );
    expect(() => untyped((() => ({})))).toThrow('got a plain function (it has no effect type)');
    expect(() => untyped('')).toThrow('got an empty string');
    expect(() => untyped(null)).toThrow('got null');
    expect(() => untyped(42)).toThrow('got number');
    try {
      untyped(plain);
    } catch (e) {
      expect(e).toMatchObject({ code: 'INVALID_MACHINE_ACTION', action: 'effect', name: 'InvalidMachineActionError' });
    }
  });

  it('a payload function that throws stops its block and raises error.execution, as every action does (SCXML 4.9)', () => {
    const M = defineMachine('boom', {
      states: {
        a: {
          on: {
            go: {
              target: 'b',
              actions: effect(PlanRequested, (): { goal: string } => {
                throw new Error('no goal');
              }),
            },
          },
        },
        b: { on: { 'error.execution': 'c' } },
        c: {},
      },
    });
    const r = transition(M, initialTransition(M).snapshot, 'go');
    expect(r.effects).toEqual([]);
    expect(r.snapshot.configuration).toEqual(['c']);
  });
});
