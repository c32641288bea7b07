import { describe, expect, it } from 'vitest';
import {
  assign,
  defineMachine,
  initialTransition,
  InvalidTransitionError,
  raise,
  transition,
  type MachineAction,
  type MachineSnapshot,
} from '../../src/machines/index.js';

/** Records its name into `context.trace` — used to observe exit/entry order. */
const mark = (name: string): MachineAction<{ trace: string[] }> => assign<{ trace: string[] }>(({ context }) => ({ trace: [...context.trace, name] }));
const traced = (name: string) => ({ entry: mark(`enter:${name}`), exit: mark(`exit:${name}`) });

describe('transition selection (SCXML 3.13, Appendix D selectTransitions)', () => {
  it('takes the first enabled transition in document order', () => {
    const m = defineMachine('order', {
      states: { a: { transitions: [{ event: 'go', target: 'b' }, { event: 'go', target: 'c' }] }, b: {}, c: {} },
    });
    const s = initialTransition(m).snapshot;
    expect(transition(m, s, 'go').snapshot.configuration).toEqual(['b']);
  });

  it('prefers the descendant: a child transition beats its ancestor for the same event', () => {
    const m = defineMachine('depth', {
      states: { p: { on: { go: 'y' }, states: { x: { on: { go: 'z' } } } }, y: {}, z: {} },
    });
    expect(transition(m, initialTransition(m).snapshot, 'go').snapshot.configuration).toEqual(['z']);
  });

  it('skips transitions whose guard is false, and matches by token prefix and *', () => {
    const m = defineMachine('prefix', {
      context: { ok: false },
      states: {
        a: {
          transitions: [
            { event: 'error.net', target: 'guarded', guard: ({ context }) => context.ok },
            { event: 'error', target: 'byPrefix' },
            { event: '*', target: 'any' },
          ],
        },
        guarded: {},
        byPrefix: {},
        any: {},
      },
    });
    const s = initialTransition(m).snapshot;
    expect(transition(m, s, 'error.net.down').snapshot.configuration).toEqual(['byPrefix']);
    expect(transition(m, s, 'errors').snapshot.configuration).toEqual(['any']);
  });
});

describe('conflicts in parallel states (Appendix D removeConflictingTransitions)', () => {
  const m = defineMachine('conflict', {
    states: {
      p: {
        type: 'parallel',
        states: {
          r1: { initial: 'a1', states: { a1: { on: { go: 'a2', leave: 'out' } }, a2: {} } },
          r2: { initial: 'b1', states: { b1: { on: { go: 'b2', leave: 'b2' } }, b2: {} } },
        },
      },
      out: {},
    },
  });
  it('takes non-conflicting transitions in both regions in one microstep', () => {
    const r = transition(m, initialTransition(m).snapshot, 'go');
    expect(r.snapshot.basicConfiguration).toEqual(['a2', 'b2']);
    expect(r.microsteps).toBe(1);
  });
  it('drops the later transition whose exit set intersects an earlier one', () => {
    // r1's 'leave' exits p (and with it b1); r2's 'leave' exits b1: they conflict, document order keeps r1's
    expect(transition(m, initialTransition(m).snapshot, 'leave').snapshot.configuration).toEqual(['out']);
  });
});

describe('exit and entry order, LCCA (Appendix D exitStates/enterStates, getTransitionDomain)', () => {
  const m = defineMachine('lcca', {
    context: { trace: [] as string[] },
    initial: 'a1',
    states: {
      p: {
        ...traced('p'),
        states: {
          a: { ...traced('a'), states: { a1: { ...traced('a1'), on: { go: { target: 'b1', actions: mark('t') } } } } },
          b: { ...traced('b'), states: { b1: traced('b1') } },
        },
      },
    },
  });
  it('exits in reverse document order up to the LCCA, runs the transition, enters in document order', () => {
    const s0 = initialTransition(m).snapshot;
    expect(s0.context.trace).toEqual(['enter:p', 'enter:a', 'enter:a1']);
    const s1 = transition(m, { ...s0, context: { trace: [] } }, 'go').snapshot;
    // p is the least common compound ancestor of a1 and b1: it is neither exited nor entered
    expect(s1.context.trace).toEqual(['exit:a1', 'exit:a', 't', 'enter:b', 'enter:b1']);
  });
});

describe('internal vs external transitions (SCXML 3.13)', () => {
  const build = (type: 'internal' | 'external') =>
    defineMachine(`kind-${type}`, {
      context: { trace: [] as string[] },
      states: { p: { ...traced('p'), transitions: [{ event: 'go', target: 'c2', type }], states: { c1: traced('c1'), c2: traced('c2') } } },
    });
  it('an external transition to a descendant exits and re-enters the source', () => {
    const m = build('external');
    const s = { ...initialTransition(m).snapshot, context: { trace: [] } };
    expect(transition(m, s, 'go').snapshot.context.trace).toEqual(['exit:c1', 'exit:p', 'enter:p', 'enter:c2']);
  });
  it('an internal transition to a descendant keeps the source active', () => {
    const m = build('internal');
    const s = { ...initialTransition(m).snapshot, context: { trace: [] } };
    expect(transition(m, s, 'go').snapshot.context.trace).toEqual(['exit:c1', 'enter:c2']);
  });
  it('a targetless transition runs its actions and exits nothing', () => {
    const m = defineMachine('targetless', {
      context: { n: 0, trace: [] as string[] },
      states: { a: { ...traced('a'), on: { bump: { actions: assign<{ n: number; trace: string[] }>(({ context }) => ({ n: context.n + 1 })) } } } },
    });
    const s = { ...initialTransition(m).snapshot, context: { n: 0, trace: [] } };
    const r = transition(m, s, 'bump');
    expect(r.snapshot.context).toEqual({ n: 1, trace: [] });
    expect(r.snapshot.configuration).toEqual(['a']);
  });
});

describe('history (SCXML 3.10)', () => {
  const m = defineMachine('history', {
    states: {
      work: {
        initial: 'w1',
        states: {
          hs: { type: 'history', history: 'shallow' },
          hd: { type: 'history', history: 'deep', target: 'w2' },
          w1: { initial: 'w1a', states: { w1a: { on: { next: 'w1b' } }, w1b: {} } },
          w2: {},
        },
        on: { pause: 'paused' },
      },
      paused: { on: { resumeShallow: 'hs', resumeDeep: 'hd' } },
    },
  });
  const paused = (): MachineSnapshot => {
    let s = initialTransition(m).snapshot;
    s = transition(m, s, 'next').snapshot; // w1 / w1b
    return transition(m, s, 'pause').snapshot;
  };
  it('shallow history restores the child, entering its default descendants', () => {
    expect(transition(m, paused(), 'resumeShallow').snapshot.basicConfiguration).toEqual(['w1a']);
  });
  it('deep history restores the atomic descendants', () => {
    expect(transition(m, paused(), 'resumeDeep').snapshot.basicConfiguration).toEqual(['w1b']);
  });
  it('without recorded history, the default target (or the parent initial) is entered', () => {
    const s = { ...initialTransition(m).snapshot, configuration: ['paused'], basicConfiguration: ['paused'] } as MachineSnapshot;
    expect(transition(m, s, 'resumeDeep').snapshot.basicConfiguration).toEqual(['w2']);
    expect(transition(m, s, 'resumeShallow').snapshot.basicConfiguration).toEqual(['w1a']);
  });
});

describe('done.state events (SCXML 3.7)', () => {
  it('raises done.state.<id> with donedata when a compound state reaches a final child', () => {
    const m = defineMachine('done', {
      context: { got: undefined as unknown },
      states: {
        job: {
          states: { running: { on: { finish: 'finished' } }, finished: { type: 'final', output: () => ({ code: 0 }) } },
          on: { 'done.state.job': { target: 'after', actions: assign<{ got: unknown }>(({ event }) => ({ got: event.payload })) } },
        },
        after: {},
      },
    });
    const r = transition(m, initialTransition(m).snapshot, 'finish');
    expect(r.snapshot.configuration).toEqual(['after']);
    expect(r.snapshot.context.got).toEqual({ code: 0 });
  });
  it('raises done.state.<parallel> once every region is final, and a top-level final ends the machine', () => {
    const m = defineMachine('pdone', {
      states: {
        p: {
          type: 'parallel',
          states: {
            r1: { states: { x: { on: { a: 'xf' } }, xf: { type: 'final' } } },
            r2: { states: { y: { on: { b: 'yf' } }, yf: { type: 'final' } } },
          },
          on: { 'done.state.p': 'end' },
        },
        end: { type: 'final', output: () => 'ok' },
      },
    });
    let s = initialTransition(m).snapshot;
    s = transition(m, s, 'a').snapshot;
    expect(s.done).toBe(false);
    s = transition(m, s, 'b').snapshot;
    expect(s).toMatchObject({ configuration: ['end'], done: true, output: 'ok' });
  });
});

describe('eventless transitions and raise (Appendix D mainEventLoop)', () => {
  it('takes eventless transitions until stable, guarded by context', () => {
    const m = defineMachine('count', {
      context: { i: 0 },
      states: {
        loop: {
          always: [
            { target: 'loop', guard: ({ context }) => context.i < 5, actions: assign<{ i: number }>(({ context }) => ({ i: context.i + 1 })) },
            { target: 'stop' },
          ],
        },
        stop: {},
      },
    });
    const r = initialTransition(m);
    expect(r.snapshot).toMatchObject({ configuration: ['stop'], context: { i: 5 } });
    expect(r.microsteps).toBe(7); // initial entry + 5 loops + the exit to 'stop'
  });
  it('processes raised events in order, after eventless transitions, before the next external event', () => {
    const m = defineMachine('raise', {
      states: {
        a: { on: { go: { target: 'b', actions: [raise('first'), raise('second')] } } },
        b: { always: { target: 'c' } },
        c: { on: { first: 'd', second: 'wrong' } },
        d: { on: { second: 'e' } },
        e: {},
        wrong: {},
      },
    });
    const r = transition(m, initialTransition(m).snapshot, 'go');
    expect(r.snapshot.configuration).toEqual(['e']);
    expect(r.raised.map((e) => e.type)).toEqual(['first', 'second']);
  });
  it('bounds runaway eventless loops with maxMicrosteps', () => {
    const m = defineMachine('runaway', { maxMicrosteps: 50, states: { a: { always: 'b' }, b: { always: 'a' } } });
    expect(() => initialTransition(m)).toThrow(/more than 50 microsteps/);
  });
});

describe('invalid transition policies', () => {
  const states = { idle: { on: { start: 'busy' } }, busy: {} } as const;
  it("'throw' names the configuration and the event", () => {
    const m = defineMachine('p-throw', { states });
    const s = initialTransition(m).snapshot;
    expect(() => transition(m, s, 'nope' as never)).toThrow(InvalidTransitionError);
    expect(() => transition(m, s, 'nope' as never)).toThrow(/event "nope" enables no transition in configuration \[idle\]/);
  });
  it("'report' returns the error in the result and leaves the snapshot as it was", () => {
    const m = defineMachine('p-report', { states, invalidTransitions: 'report' });
    const s = initialTransition(m).snapshot;
    const r = transition(m, s, 'nope' as never);
    expect(r.enabled).toBe(false);
    expect(r.errors[0]).toBeInstanceOf(InvalidTransitionError);
    expect(r.snapshot).toEqual(s);
  });
  it("'ignore' drops the event silently", () => {
    const m = defineMachine('p-ignore', { states, invalidTransitions: 'ignore' });
    const s = initialTransition(m).snapshot;
    const r = transition(m, s, 'nope' as never);
    expect(r.errors).toEqual([]);
    expect(r.snapshot).toEqual(s);
  });
});

describe('executable content errors (SCXML 4.9)', () => {
  it('a throwing action stops its block and raises error.execution', () => {
    const m = defineMachine('errors', {
      context: { after: false },
      states: {
        a: {
          entry: [
            () => {
              throw new Error('boom');
            },
            assign<{ after: boolean }>(() => ({ after: true })),
          ],
          on: { 'error.execution': 'failed' },
        },
        failed: {},
      },
    });
    const r = initialTransition(m);
    expect(r.snapshot).toMatchObject({ configuration: ['failed'], context: { after: false } });
    expect((r.errors[0] as Error).message).toBe('boom');
  });
});
