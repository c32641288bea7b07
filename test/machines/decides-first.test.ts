import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { append, createSession, defineEvent, defineSlice, replace, type RxSliceError } from '../../src/index';
import {
  assign,
  availableTransitions,
  createMachineActor,
  defineMachine,
  initialTransition,
  InvalidTransitionError,
  MachineSlicesUnavailableError,
  setupMachine,
  transition,
} from '../../src/machines/index.js';

const Added = defineEvent('item/added', z.object({ n: z.number() }));
const Reset = defineEvent('item/reset');
const OtherThing = defineEvent('other/thing');
const Items = defineSlice('items', {
  policy: 'state',
  schema: z.number(),
  reducers: ({ on }) => [on(Added, (_v, e) => append(e.payload.n)), on(Reset, () => replace<number>([]))],
});

describe('an installed machine decides before the slices reducers run', () => {
  it('guards see the slices as committed before the event, even when the same event changes them', () => {
    const seen: number[][] = [];
    const M = setupMachine({ events: [Added] }).defineMachine('limit', {
      states: {
        open: {
          on: {
            'item/added': {
              guard: ({ slices }) => {
                seen.push([...slices.get(Items).all()]);
                return slices.get(Items).size < 2;
              },
            },
          },
        },
      },
    });
    const session = createSession({ slices: [Items] });
    session.install(M);
    session.dispatch(Added({ n: 1 }));
    session.dispatch(Added({ n: 2 }));
    expect(() => session.dispatch(Added({ n: 3 }))).toThrow(InvalidTransitionError);
    // once per event: the refusal's explanation is recorded during selection, the guard does not run again
    expect(seen).toEqual([[], [1], [1, 2]]);
    expect(session.slice(Items).all()).toEqual([1, 2]);
  });

  it('with two machines, one rejecting rejects the whole event: the other machine does not move either', () => {
    const Counter = setupMachine({ context: { count: 0 }, events: [Added] }).defineMachine('counter', {
      states: { on: { on: { 'item/added': { actions: assign(({ context }) => ({ count: context.count + 1 })) } } } },
    });
    const GateOpened = defineEvent('gate/opened');
    const Gate = defineMachine('gate', {
      context: { open: false },
      events: [Added, GateOpened],
      states: { closed: { on: { 'gate/opened': 'opened' } }, opened: { on: { 'item/added': {} } } },
    });
    const session = createSession({ slices: [Items], events: [GateOpened] });
    const counter = session.install(Counter);
    const gate = session.install(Gate);
    expect(() => session.dispatch(Added({ n: 1 }))).toThrow(InvalidTransitionError); // Gate is closed
    expect(counter.current.context).toEqual({ count: 0 });
    expect(session.slice(Items).all()).toEqual([]);
    session.dispatch(GateOpened());
    expect(gate.matches('opened')).toBe(true);
    session.dispatch(Added({ n: 1 }));
    expect(counter.current.context).toEqual({ count: 1 });
    expect(session.slice(Items).all()).toEqual([1]);
  });

  it('a declared event counts as named even in states without a transition for it', () => {
    const M = setupMachine({ events: [Added, Reset] }).defineMachine('declared', {
      states: { a: { on: { 'item/added': 'b' } }, b: {} },
    });
    const session = createSession({ slices: [Items], events: [OtherThing] });
    session.install(M);
    expect(() => session.dispatch(Reset())).toThrow(InvalidTransitionError); // declared, never handled
    session.dispatch(Added({ n: 1 }));
    expect(() => session.dispatch(Added({ n: 2 }))).toThrow(InvalidTransitionError); // b has no transitions
    session.dispatch(OtherThing()); // known to the session, not named by the machine: never rejected
    expect(session.slice(Items).all()).toEqual([1]);
  });

  it('a rejection of a queued event (dispatched by a subscriber) is reported on errors$; the outer dispatch returns', () => {
    const M = setupMachine({ events: [Added, Reset] }).defineMachine('q', { states: { a: { on: { 'item/added': {} } } } });
    const session = createSession({ slices: [Items] });
    session.install(M);
    const errors: RxSliceError[] = [];
    session.errors$.subscribe((e) => errors.push(e));
    session.slice(Items).all$.subscribe((items) => {
      if (items.length === 1) session.dispatch(Reset()); // queued; rejected when it runs
    });
    session.dispatch(Added({ n: 1 }));
    expect(errors.map((e) => [e.code, (e as InvalidTransitionError).eventType])).toEqual([['INVALID_TRANSITION', 'item/reset']]);
    expect(session.slice(Items).all()).toEqual([1]);
  });

  it("after a final state: 'throw' rejects every named event (even with a '*' descriptor), unnamed events pass", () => {
    const Star = defineMachine('star', { states: { a: { on: { '*': 'end' } }, end: { type: 'final' } } });
    const session = createSession({ slices: [Items] });
    const star = session.install(Star);
    session.dispatch(Added({ n: 1 })); // '*' takes it: a → end
    expect(star.current.done).toBe(true);
    expect(session.slice(Items).all()).toEqual([1]);
    expect(() => session.dispatch(Added({ n: 2 }))).toThrow(/is done/);
    expect(session.slice(Items).all()).toEqual([1]);
    // library events are never decided by machines
    session.slice(Items).seed([7]);
    expect(session.slice(Items).all()).toEqual([7]);

    const Named = defineMachine('named', { states: { a: { on: { 'item/added': 'end' } }, end: { type: 'final' } } });
    const other = createSession({ slices: [Items] });
    other.install(Named);
    other.dispatch(Added({ n: 1 }));
    other.dispatch(Reset()); // not named by the machine
    expect(other.slice(Items).all()).toEqual([]);
    expect(() => other.dispatch(Added({ n: 2 }))).toThrow(InvalidTransitionError);
  });

  it('a guard that throws counts as false (error.execution reported) and the policy applies', () => {
    const M = setupMachine({ events: [Added] }).defineMachine('throws', {
      states: {
        a: {
          on: {
            'item/added': {
              guard: () => {
                throw new Error('guard broke');
              },
            },
          },
        },
      },
    });
    const session = createSession({ slices: [Items] });
    session.install(M);
    const errors: RxSliceError[] = [];
    session.errors$.subscribe((e) => errors.push(e));
    expect(() => session.dispatch(Added({ n: 1 }))).toThrow(InvalidTransitionError);
    expect(errors.map((e) => e.code)).toEqual(['MACHINE_ACTION_FAILED', 'INVALID_TRANSITION']);
    expect((errors[0]?.cause as Error).message).toBe('guard broke');
    expect(session.slice(Items).all()).toEqual([]);
  });
});

describe('standalone machines and slices', () => {
  const M = setupMachine({ events: [Added] }).defineMachine('standalone', {
    states: { a: { on: { 'item/added': { target: 'b', guard: ({ slices }) => slices.get(Items).isEmpty } } }, b: {} },
  });

  it('without slices a guard that reads them fails with MachineSlicesUnavailableError (reported, guard false)', () => {
    const { snapshot } = initialTransition(M);
    const result = transition({ ...M, invalidTransitions: 'report' }, snapshot, Added({ n: 1 }));
    expect(result.enabled).toBe(false);
    expect(result.errors[0]).toBeInstanceOf(MachineSlicesUnavailableError);
    expect((result.errors[0] as Error).message).toContain('pass { slices }');
  });

  it('an actor reads the slices it is given', () => {
    const session = createSession({ slices: [Items] });
    const actor = createMachineActor(M, { slices: { get: (def) => session.slice(def) } }).start();
    actor.send(Added({ n: 1 }));
    expect(actor.matches('b')).toBe(true);
    actor.dispose();
  });

  it('an actor after a final state follows its policy: throw', () => {
    const Done = defineMachine('done', { states: { a: { on: { go: 'end' } }, end: { type: 'final' } } });
    const actor = createMachineActor(Done).start();
    actor.send('go');
    expect(() => actor.send('go')).toThrow(InvalidTransitionError);
    actor.dispose();
  });
});

describe('availableTransitions with guards that need the event', () => {
  const Go = defineEvent('x/go', z.object({ fast: z.boolean() }));
  const Stop = defineEvent('x/stop');
  const M = setupMachine({ context: { armed: true }, events: [Go, Stop] }).defineMachine('probe', {
    states: {
      p: {
        type: 'parallel',
        states: {
          left: {
            initial: 'l1',
            states: {
              l1: {
                on: {
                  // needs the payload: listed optimistically, before the fallback below
                  'x/go': [{ target: 'l2', guard: ({ event }) => event.payload.fast }, { target: 'l3' }],
                },
              },
              l2: {},
              l3: {},
            },
          },
          right: {
            initial: 'r1',
            states: {
              r1: { on: { 'x/go': { target: 'r2', guard: ({ context }) => context.armed }, 'x/stop': { target: 'r2', guard: ({ context }) => !context.armed } } },
              r2: {},
            },
          },
        },
      },
    },
  });

  it('marks each transition and the entry; context guards are decided (false ones left out)', () => {
    const { snapshot } = initialTransition(M);
    expect(availableTransitions(M, snapshot)).toEqual([
      {
        event: 'x/go',
        enabled: true,
        requiresEvent: true,
        transitions: [
          { source: 'l1', targets: ['l2'], requiresEvent: true },
          { source: 'r1', targets: ['r2'], requiresEvent: false },
        ],
      },
    ]);
  });

  it('canTransition and transition decide with the payload', () => {
    const { snapshot } = initialTransition(M);
    expect(transition(M, snapshot, Go({ fast: true })).snapshot.basicConfiguration).toEqual(['l2', 'r2']);
    expect(transition(M, snapshot, Go({ fast: false })).snapshot.basicConfiguration).toEqual(['l3', 'r2']);
  });

  it('a done machine lists nothing', () => {
    const Done = defineMachine('d', { states: { a: { on: { go: 'end' } }, end: { type: 'final' } } });
    const s = transition(Done, initialTransition(Done).snapshot, 'go').snapshot;
    expect(s.done).toBe(true);
    expect(availableTransitions(Done, s)).toEqual([]);
  });
});
