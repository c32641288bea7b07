import { z } from 'zod';
import { map } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { append, createSession, defineEvent, defineSlice, ReducerError, type RxSliceError } from '../../src/index';
import {
  assign,
  defineMachine,
  effect,
  installMachine,
  InvalidTransitionError,
  MachineNotInstalledError,
  send,
  sessionMachine,
} from '../../src/machines/index.js';

const Phase = (policy: 'throw' | 'report' | 'ignore' = 'throw') =>
  defineMachine(
    'phase',
    {
      context: { steps: 0 },
      invalidTransitions: policy,
      initial: 'idle',
      states: {
        idle: { on: { 'agent/started': 'planning' } },
        planning: {
          entry: effect('llm/planRequested'),
          on: { 'agent/planned': 'executing', 'agent/aborted': 'failed' },
        },
        executing: {
          entry: send('agent/timedOut', { delayMs: 100, id: 'watchdog' }),
          on: {
            'agent/stepDone': { actions: assign<{ steps: number }>(({ context }) => ({ steps: context.steps + 1 })) },
            'agent/timedOut': 'failed',
            'agent/aborted': 'failed',
            'agent/finished': 'done',
          },
        },
        failed: { type: 'final' },
        done: { type: 'final' },
      },
    },
  );

describe('a machine installed in a session', () => {
  it('is driven by dispatched events and answers current, matches, canTransition, availableTransitions', () => {
    const session = createSession({ slices: [] });
    const m = installMachine(session, Phase());
    expect(m.current.configuration).toEqual(['idle']);
    session.dispatch({ type: 'agent/started', payload: undefined });
    expect(m.matches('planning')).toBe(true);
    expect(m.canTransition('agent/planned')).toBe(true);
    expect(m.canTransition('agent/finished')).toBe(false);
    expect(m.availableTransitions().map((t) => t.event).sort()).toEqual(['agent/aborted', 'agent/planned']);
    expect(m.toMermaid()).toContain('stateDiagram-v2');
    expect(sessionMachine(session, m.definition)).toBe(m);
  });

  it('leaves the machine untouched by events it does not listen to', () => {
    const session = createSession({ slices: [], events: [defineEvent('other/happened', z.number())] });
    const m = installMachine(session, Phase());
    const before = m.current;
    session.dispatch({ type: 'other/happened', payload: 1 });
    expect(m.current).toBe(before);
  });

  it('publishes effects of entry actions on committed$', () => {
    const session = createSession({ slices: [] });
    installMachine(session, Phase());
    const effects: unknown[] = [];
    session.committed$.subscribe((c) => effects.push(...c.effects));
    session.dispatch({ type: 'agent/started', payload: undefined });
    expect(effects).toEqual([{ type: 'llm/planRequested' }]);
  });

  it("policy 'throw' rejects the whole event with InvalidTransitionError itself; 'report' rejects it and reports; 'ignore' lets it through", () => {
    const Log = defineSlice('log', { policy: 'log', reducers: ({ on }) => [on(defineEvent('agent/finished'), (_v, e) => append(e.type))] });
    const strict = createSession({ slices: [Log] });
    const strictErrors: RxSliceError[] = [];
    strict.errors$.subscribe((e) => strictErrors.push(e));
    const m = installMachine(strict, Phase('throw'));
    let caught: unknown;
    try {
      strict.dispatch({ type: 'agent/finished', payload: undefined });
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(InvalidTransitionError);
    expect(caught).not.toBeInstanceOf(ReducerError);
    expect(strictErrors).toEqual([caught]);
    expect(m.matches('idle')).toBe(true);
    expect(strict.slice(Log).all()).toEqual([]); // the slices' reducers never ran

    const reporting = createSession({ slices: [Log] });
    const errors: RxSliceError[] = [];
    reporting.errors$.subscribe((e) => errors.push(e));
    installMachine(reporting, Phase('report'));
    reporting.dispatch({ type: 'agent/finished', payload: undefined });
    expect(errors.map((e) => e.code)).toEqual(['INVALID_TRANSITION']);
    expect(reporting.slice(Log).all()).toEqual([]);

    const lenient = createSession({ slices: [Log] });
    const quiet = installMachine(lenient, Phase('ignore'));
    lenient.dispatch({ type: 'agent/finished', payload: undefined });
    expect(quiet.matches('idle')).toBe(true);
    expect(lenient.slice(Log).all()).toEqual(['agent/finished']); // an ignoring machine only observes
  });

  it('fires delayed sends on the session scheduler as rxslice.machine.timerFired events (virtual time)', () => {
    const scheduler = new TestScheduler((a, e) => expect(a).toEqual(e));
    scheduler.run(({ expectObservable }) => {
      const session = createSession({ slices: [], scheduler });
      const m = installMachine(session, Phase());
      expectObservable(m.current$.pipe(map((s) => s.basicConfiguration.join(',')))).toBe('(ab) 6ms c 99ms d', {
        a: 'idle',
        b: 'planning',
        c: 'executing',
        d: 'failed',
      });
      expectObservable(session.committed$.pipe(map((c) => c.event.type))).toBe('a 9ms b 99ms c', {
        a: 'agent/started',
        b: 'agent/planned',
        c: 'rxslice.machine.timerFired',
      });
      scheduler.schedule(() => session.dispatch({ type: 'agent/started', payload: undefined }), 0);
      scheduler.schedule(() => session.dispatch({ type: 'agent/planned', payload: undefined }), 10);
    });
  });

  it('is covered by snapshots: restore brings back the configuration, context and pending timers', () => {
    const scheduler = new TestScheduler((a, e) => expect(a).toEqual(e));
    scheduler.run(({ flush }) => {
      const session = createSession({ slices: [], scheduler });
      const m = installMachine(session, Phase());
      session.dispatch({ type: 'agent/started', payload: undefined });
      session.dispatch({ type: 'agent/planned', payload: undefined });
      session.dispatch({ type: 'agent/stepDone', payload: undefined });
      const snap = session.snapshot();
      expect(Object.keys(snap.slices)).toEqual(['machine/phase']);
      session.dispatch({ type: 'agent/aborted', payload: undefined });
      expect(m.matches('failed')).toBe(true);
      session.restore(snap);
      expect(m.matches('executing')).toBe(true);
      expect(m.current.context).toEqual({ steps: 1 });
      flush();
      expect(m.matches('failed')).toBe(true); // the watchdog restored with the snapshot fired
    });
  });

  it('rejects session.machine for a machine that was not installed', () => {
    const session = createSession({ slices: [] });
    expect(() => sessionMachine(session, Phase())).toThrow(MachineNotInstalledError);
  });
});
