import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSession, type RxSliceError } from '../../src/index.js';
import {
  availableTransitions,
  canTransition,
  createMachineActor,
  defineMachine,
  explainTransition,
  initialTransition,
  InvalidTransitionError,
  refuse,
  toMermaid,
  transition,
  type InvalidTransitionPolicy,
} from '../../src/machines/index.js';
import { AddStep, CompletePlan, CreatePlan, definePlanWorkflow, Plan, PlanWorkflow, UpdateStep } from '../../examples/plan-workflow/plan-workflow.js';

/** The seed's PlanWorkflow in a session, in `active` with steps `tests` (done) and `notes` (pending). */
function activePlan(policy: InvalidTransitionPolicy = 'throw') {
  // CompletePlan is the machine's event (no slice reduces it): declared, so typed dispatch takes it.
  const session = createSession({ slices: [Plan], events: [CompletePlan] });
  const workflow = session.install(policy === 'throw' ? PlanWorkflow : definePlanWorkflow(policy));
  const errors: RxSliceError[] = [];
  session.errors$.subscribe((e) => errors.push(e));
  session.dispatch(CreatePlan({ goal: 'ship' }));
  session.dispatch(AddStep({ id: 'tests', title: 'run the tests' }));
  session.dispatch(AddStep({ id: 'notes', title: 'write the notes' }));
  session.dispatch(UpdateStep({ id: 'tests', status: 'done' }));
  return { session, workflow, errors };
}

const caught = (fn: () => unknown): InvalidTransitionError => {
  try {
    fn();
  } catch (e) {
    if (e instanceof InvalidTransitionError) return e;
    throw e;
  }
  throw new Error('expected an InvalidTransitionError');
};

describe('a refusal names the guard that refused (issue 23, item 3)', () => {
  it('"plan/stepAdded" refused by stepIsNew in [active]: the message names the guard and its reason, not a missing transition', () => {
    const { session, workflow, errors } = activePlan();
    const before = session.snapshot();
    const error = caught(() => session.dispatch(AddStep({ id: 'tests', title: 'again' })));
    expect(error.message).toBe(
      'Machine "planWorkflow": guard "stepIsNew" refused "plan/stepAdded" in [active]: step "tests" exists already. ' +
        "Check canTransition() or explainTransition() before sending, or create the machine with { invalidTransitions: 'ignore' | 'report' }.",
    );
    expect(error.message).not.toContain('enables no transition');
    expect(error.message).not.toContain('add a transition');
    expect(error.considered).toEqual([
      { source: 'active', targets: [], events: ['plan/stepAdded'], guard: 'stepIsNew', verdict: 'refused', reason: 'step "tests" exists already' },
    ]);
    expect(error.decision).toEqual({ machine: 'planWorkflow', event: 'plan/stepAdded', configuration: ['active'], done: false, enabled: false, considered: error.considered });
    // the same error is reported on errors$, and nothing changed
    expect(errors).toEqual([error]);
    expect(session.snapshot().slices).toEqual(before.slices);
    expect(workflow.current.configuration).toEqual(['active']);
  });

  it('names stepExists and allStepsDone with their reasons', () => {
    const { session } = activePlan();
    expect(caught(() => session.dispatch(UpdateStep({ id: 'deploy', status: 'done' }))).message).toContain(
      'guard "stepExists" refused "plan/stepUpdated" in [active]: there is no step "deploy".',
    );
    const completed = caught(() => session.dispatch(CompletePlan()));
    expect(completed.message).toContain('guard "allStepsDone" refused "plan/completed" in [active]: all steps must be done (1 of 2 are not).');
    expect(completed.considered).toEqual([
      { source: 'active', targets: ['completed'], events: ['plan/completed'], guard: 'allStepsDone', verdict: 'refused', reason: 'all steps must be done (1 of 2 are not)' },
    ]);
  });

  it("policy 'report': the error on errors$ carries the same explanation and dispatch returns", () => {
    const { session, errors } = activePlan('report');
    session.dispatch(AddStep({ id: 'tests', title: 'again' }));
    expect(errors).toHaveLength(1);
    const error = errors[0] as InvalidTransitionError;
    expect(error).toBeInstanceOf(InvalidTransitionError);
    expect(error.message).toContain('guard "stepIsNew" refused "plan/stepAdded" in [active]: step "tests" exists already');
    expect(error.considered.map((t) => [t.guard, t.verdict, t.reason])).toEqual([['stepIsNew', 'refused', 'step "tests" exists already']]);
  });

  it('says "enables no transition" only when no active state has a transition for the event', () => {
    const { session } = activePlan();
    const error = caught(() => session.dispatch(CreatePlan({ goal: 'again' })));
    expect(error.message).toBe(
      'Machine "planWorkflow": event "plan/created" enables no transition in configuration [active]: no active state has a transition for it. ' +
        `Check canTransition() before sending, add a transition for "plan/created" to one of [active], or create the machine with { invalidTransitions: 'ignore' | 'report' }.`,
    );
    expect(error.considered).toEqual([]);
  });

  it('a guard returning plain false is named without a reason; a throwing guard is named with its error', () => {
    const M = defineMachine('m', {
      context: { open: false },
      initial: 'a',
      states: {
        a: {
          on: {
            go: [
              { target: 'b', guard: function isOpen({ context }) { return context.open; } },
              { target: 'c', guard: function explodes(): boolean { throw new Error('boom'); } },
            ],
          },
        },
        b: {},
        c: {},
      },
    });
    const error = caught(() => transition(M, initialTransition(M).snapshot, 'go'));
    expect(error.message).toContain('Machine "m": guard "isOpen" refused "go" in [a] (it gave no reason: return refuse(reason) instead of false to say why); guard "explodes" threw on "go" in [a]: boom. ');
    expect(error.considered).toEqual([
      { source: 'a', targets: ['b'], events: ['go'], guard: 'isOpen', verdict: 'refused' },
      { source: 'a', targets: ['c'], events: ['go'], guard: 'explodes', verdict: 'threw', reason: 'boom' },
    ]);
    // under 'report', the result carries the explanation beside the error.execution cause
    const R = defineMachine('r', { invalidTransitions: 'report', states: { a: { on: { go: { target: 'b', guard: () => refuse('not now') } } }, b: {} } });
    const report = transition(R, initialTransition(R).snapshot, 'go');
    expect(report.enabled).toBe(false);
    expect(report.considered).toEqual([{ source: 'a', targets: ['b'], events: ['go'], guard: 'guard of "go" in [a]', verdict: 'refused', reason: 'not now' }]);
    expect((report.errors[0] as InvalidTransitionError).message).toContain('guard of "go" in [a] refused "go" in [a]: not now');
  });

  it('an arrow-function guard is named after its transition, and a plain false says refuse(reason) would explain it (issue 34)', () => {
    const M = defineMachine('plans', {
      initial: 'active',
      states: { active: { on: { 'plan/completed': { target: 'done', guard: () => false } }, always: { target: 'done', guard: () => false } }, done: {} },
    });
    const error = caught(() => transition(M, initialTransition(M).snapshot, 'plan/completed'));
    expect(error.considered.map((t) => t.guard)).toEqual(['guard of "plan/completed" in [active]']);
    expect(error.message).toContain(
      'Machine "plans": guard of "plan/completed" in [active] refused "plan/completed" in [active] (it gave no reason: return refuse(reason) instead of false to say why).',
    );
    expect(toMermaid(M)).toContain('plan/completed [guard]');
  });

  it('lists every transition considered up the ancestors and across parallel regions, naming the source when the configuration has several states', () => {
    const no = function no() { return refuse('closed'); };
    const M = defineMachine('p', {
      states: {
        p: {
          type: 'parallel',
          on: { go: { target: 'out', guard: function parentNo() { return false; } } },
          states: {
            left: { states: { l1: { on: { go: { target: 'l2', guard: no } } }, l2: {} } },
            right: { states: { r1: { on: { go: { target: 'r2', guard: no, name: 'right_go' } } }, r2: {} } },
          },
        },
        out: {},
      },
    });
    const error = caught(() => transition(M, initialTransition(M).snapshot, 'go'));
    // l1, then its ancestors (p), then r1; p's transition is considered once
    expect(error.considered.map((t) => [t.source, t.guard, t.verdict])).toEqual([
      ['l1', 'no', 'refused'],
      ['p', 'parentNo', 'refused'],
      ['r1', 'no', 'refused'],
    ]);
    expect(error.considered[2]).toMatchObject({ name: 'right_go' });
    expect(error.message).toContain(
      'guard "no" refused "go" in [p, left, l1, right, r1] (from "l1"): closed; guard "parentNo" refused "go" in [p, left, l1, right, r1] (from "p") (it gave no reason: return refuse(reason) instead of false to say why); ' +
        'guard "no" of transition "right_go" refused "go" in [p, left, l1, right, r1] (from "r1"): closed.',
    );
  });

  it('an actor under policy report puts the explained error on errors$', () => {
    const M = defineMachine('a', { invalidTransitions: 'report', states: { idle: { on: { go: { target: 'on', guard: () => refuse('warming up') } } }, on: {} } });
    const actor = createMachineActor(M).start();
    const errors: unknown[] = [];
    actor.errors$.subscribe((e) => errors.push(e));
    actor.send('go');
    expect((errors[0] as InvalidTransitionError).considered).toEqual([{ source: 'idle', targets: ['on'], events: ['go'], guard: 'guard of "go" in [idle]', verdict: 'refused', reason: 'warming up' }]);
    actor.dispose();
  });

  it('refuse() needs a non-empty reason', () => {
    expect(() => refuse('')).toThrow(TypeError);
    expect(() => refuse(undefined as unknown as string)).toThrow('refuse() needs the reason as a non-empty string');
    expect(refuse('why')).toEqual({ refused: true, reason: 'why' });
    expect(Object.isFrozen(refuse('why'))).toBe(true);
  });
});

describe('explainTransition', () => {
  it('in a session: the decision for an event, enabled or not, without changing anything', () => {
    const { session, workflow } = activePlan();
    const seqBefore = session.snapshot();
    expect(workflow.explainTransition(UpdateStep({ id: 'notes', status: 'done' }))).toEqual({
      machine: 'planWorkflow',
      event: 'plan/stepUpdated',
      configuration: ['active'],
      done: false,
      enabled: true,
      considered: [{ source: 'active', targets: [], events: ['plan/stepUpdated'], guard: 'stepExists', verdict: 'enabled' }],
    });
    expect(workflow.explainTransition(AddStep({ id: 'notes', title: 'x' }))).toMatchObject({
      enabled: false,
      considered: [{ guard: 'stepIsNew', verdict: 'refused', reason: 'step "notes" exists already' }],
    });
    expect(workflow.explainTransition(CreatePlan({ goal: 'x' }))).toMatchObject({ enabled: false, considered: [] });
    expect(session.snapshot().slices).toEqual(seqBefore.slices);
  });

  it('marks a transition that loses a conflict as preempted (SCXML removeConflictingTransitions)', () => {
    const M = defineMachine('c', {
      states: {
        p: {
          type: 'parallel',
          states: {
            left: { states: { l1: { on: { go: 'x' } } } },
            right: { states: { r1: { on: { go: 'y' } } } },
          },
        },
        x: {},
        y: {},
      },
    });
    const decision = explainTransition(M, initialTransition(M).snapshot, 'go');
    expect(decision.enabled).toBe(true);
    expect(decision.considered.map((t) => [t.source, t.verdict])).toEqual([
      ['l1', 'enabled'],
      ['r1', 'preempted'],
    ]);
    expect(decision.considered[1]!.reason).toContain('the transition from "l1" conflicts with it and wins');
    // the machine indeed takes l1's transition
    expect(transition(M, initialTransition(M).snapshot, 'go').snapshot.configuration).toEqual(['x']);
  });

  it('a done machine considers nothing', () => {
    const M = defineMachine('d', { states: { a: { on: { go: 'end' } }, end: { type: 'final' } } });
    const done = transition(M, initialTransition(M).snapshot, 'go').snapshot;
    expect(explainTransition(M, done, 'go')).toEqual({ machine: 'd', event: 'go', configuration: ['end'], done: true, enabled: false, considered: [] });
  });

  it('agrees with canTransition and transition for any context (property)', () => {
    const M = defineMachine('n', {
      context: { n: 0 },
      invalidTransitions: 'ignore',
      states: {
        s: {
          states: {
            low: { on: { tick: [{ target: 'mid', guard: function gt3({ context }) { return context.n > 3 || refuse(`n is ${context.n}`); } }] } },
            mid: {},
          },
          on: { tick: { target: 'high', guard: function even({ context }) { return context.n % 2 === 0; } } },
        },
        high: {},
      },
    });
    const start = initialTransition(M).snapshot;
    fc.assert(
      fc.property(fc.integer({ min: -10, max: 10 }), (n) => {
        const snapshot = { ...start, context: { n } };
        const decision = explainTransition(M, snapshot, 'tick');
        expect(decision.enabled).toBe(canTransition(M, snapshot, 'tick'));
        expect(decision.enabled).toBe(transition(M, snapshot, 'tick').enabled);
        if (!decision.enabled) expect(decision.considered.map((t) => t.verdict)).toEqual(['refused', 'refused']);
        else expect(decision.considered.at(-1)!.verdict).toBe('enabled');
      }),
      { seed: 23, numRuns: 60 },
    );
  });
});

describe('availableTransitions({ includeBlocked: true })', () => {
  it('lists the events refused by their guards with the guard and its reason, for a UI to show "blocked"', () => {
    const { workflow } = activePlan();
    const all = workflow.availableTransitions({ includeBlocked: true });
    expect(all.map((t) => [t.event, t.enabled])).toEqual([
      ['plan/stepAdded', true],
      ['plan/stepUpdated', true],
      ['plan/completed', false],
      ['plan/cancelled', true],
    ]);
    expect(all[2]).toEqual({
      event: 'plan/completed',
      enabled: false,
      requiresEvent: false,
      transitions: [],
      blockedBy: 'allStepsDone',
      reason: 'all steps must be done (1 of 2 are not)',
      blocked: [{ source: 'active', targets: ['completed'], guard: 'allStepsDone', reason: 'all steps must be done (1 of 2 are not)' }],
    });
    // without the option the meaning is unchanged: only what is enabled now
    expect(workflow.availableTransitions().map((t) => t.event)).toEqual(['plan/stepAdded', 'plan/stepUpdated', 'plan/cancelled']);
  });

  it('a guard without a reason is named alone; a named transition keeps its name', () => {
    const M = defineMachine('b', {
      context: { ready: false },
      states: { a: { on: { go: { name: 'go_on', target: 'b', guard: function isReady({ context }) { return context.ready; } } } }, b: {} },
    });
    const s = initialTransition(M).snapshot;
    expect(availableTransitions(M, s, { includeBlocked: true })).toEqual([
      { event: 'go', enabled: false, requiresEvent: false, transitions: [], blockedBy: 'isReady', blocked: [{ name: 'go_on', source: 'a', targets: ['b'], guard: 'isReady' }] },
    ]);
    expect(availableTransitions(M, { ...s, context: { ready: true } }, { includeBlocked: true })).toEqual([
      { event: 'go', enabled: true, requiresEvent: false, transitions: [{ name: 'go_on', source: 'a', targets: ['b'], requiresEvent: false }] },
    ]);
  });
});
