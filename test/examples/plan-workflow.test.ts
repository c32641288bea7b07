import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createSession, defineEvent, ReducerError, snapshotFromJSON, type CommittedEnvelope, type RxSliceError, type SliceView } from '../../src/index';
import { canTransition, InvalidTransitionError, transition, type InvalidTransitionPolicy } from '../../src/machines/index';
import {
  AddStep,
  CancelPlan,
  CompletePlan,
  CreatePlan,
  definePlanWorkflow,
  Plan,
  PlanWorkflow,
  UpdateStep,
} from '../../examples/plan-workflow/plan-workflow';

/** The seed's PlanWorkflow (refactoring 3), as shipped in examples/plan-workflow/. */
/** Known to the session (its `events`), named by no machine. */
const OtherHappened = defineEvent('other/happened', z.number());

function planSession(policy: InvalidTransitionPolicy = 'throw') {
  const session = createSession({ slices: [Plan], events: [CompletePlan, CancelPlan, OtherHappened] });
  const workflow = session.install(policy === 'throw' ? PlanWorkflow : definePlanWorkflow(policy));
  const errors: RxSliceError[] = [];
  session.errors$.subscribe((e) => errors.push(e));
  const committed: CommittedEnvelope[] = [];
  session.committed$.subscribe((c) => committed.push(c));
  return { session, workflow, errors, committed };
}

/** A session in `active` with steps `a` (done) and `b` (pending). */
function activePlan(policy: InvalidTransitionPolicy = 'throw') {
  const s = planSession(policy);
  s.session.dispatch(CreatePlan({ goal: 'ship' }));
  s.session.dispatch(AddStep({ id: 'a', title: 'tests' }));
  s.session.dispatch(AddStep({ id: 'b', title: 'notes' }));
  s.session.dispatch(UpdateStep({ id: 'a', status: 'done' }));
  return s;
}

function completedPlan(policy: InvalidTransitionPolicy) {
  const s = activePlan(policy);
  s.session.dispatch(UpdateStep({ id: 'b', status: 'done' }));
  s.session.dispatch(CompletePlan());
  expect(s.workflow.current.done).toBe(true);
  return s;
}

const stateOf = (session: ReturnType<typeof planSession>['session']) => JSON.stringify(session.snapshot().slices);

describe("the seed's PlanWorkflow in a session", () => {
  it('runs the happy path: idle → active (steps added, updated) → completed, machine and Plan committed together', () => {
    const { session, workflow, committed, errors } = planSession();
    expect(workflow.matches('idle')).toBe(true);
    session.dispatch(CreatePlan({ goal: 'ship' }));
    session.dispatch(AddStep({ id: 'a', title: 'tests' }));
    session.dispatch(UpdateStep({ id: 'a', status: 'inProgress' }));
    session.dispatch(UpdateStep({ id: 'a', status: 'done' }));
    expect(workflow.matches('active')).toBe(true);
    expect(session.slice(Plan).all()).toEqual([{ id: 'a', title: 'tests', status: 'done' }]);
    session.dispatch(CompletePlan());
    expect(workflow.current.configuration).toEqual(['completed']);
    expect(workflow.current.done).toBe(true);
    expect(workflow.current.output).toEqual({ goal: 'ship', updates: 2 });
    expect(committed.map((c) => [c.event.type, [...c.changed].sort()])).toEqual([
      ['plan/created', ['machine/planWorkflow', 'plan']],
      ['plan/stepAdded', ['machine/planWorkflow', 'plan']],
      ['plan/stepUpdated', ['machine/planWorkflow', 'plan']],
      ['plan/stepUpdated', ['machine/planWorkflow', 'plan']],
      ['plan/completed', ['machine/planWorkflow']],
    ]);
    expect(errors).toEqual([]);
  });

  it('rejects UpdateStep for a missing step with InvalidTransitionError before the Plan reducer runs; nothing changes', () => {
    const { session, workflow, errors, committed } = activePlan();
    const before = stateOf(session);
    const versions = [session.slice(Plan).version, session.slice(workflow.slice).version];
    const seen = committed.length;
    let caught: unknown;
    try {
      session.dispatch(UpdateStep({ id: 'missing', status: 'done' }));
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(InvalidTransitionError);
    expect(caught).toMatchObject({ code: 'INVALID_TRANSITION', machine: 'planWorkflow', eventType: 'plan/stepUpdated', configuration: ['active'], done: false });
    expect(errors).toEqual([caught]);
    expect(stateOf(session)).toBe(before);
    expect([session.slice(Plan).version, session.slice(workflow.slice).version]).toEqual(versions);
    expect(committed.length).toBe(seen);
    // the session stays usable
    session.dispatch(UpdateStep({ id: 'b', status: 'done' }));
    expect(session.slice(Plan).all().map((s) => s.status)).toEqual(['done', 'done']);
  });

  it('without the workflow, the same event reaches the reducer and fails there with a TypeError (what the workflow prevents)', () => {
    const session = createSession({ slices: [Plan] });
    session.dispatch(CreatePlan({ goal: 'ship' }));
    let caught: unknown;
    try {
      session.dispatch(UpdateStep({ id: 'missing', status: 'done' }));
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(ReducerError);
    expect((caught as ReducerError).cause).toBeInstanceOf(TypeError);
  });

  it('rejects a duplicate AddStep and an early CompletePlan; events of other states are rejected too', () => {
    const { session, workflow } = activePlan();
    const before = stateOf(session);
    expect(() => session.dispatch(AddStep({ id: 'a', title: 'again' }))).toThrow(InvalidTransitionError);
    expect(() => session.dispatch(CompletePlan())).toThrow(InvalidTransitionError); // b is pending
    expect(() => session.dispatch(CreatePlan({ goal: 'another' }))).toThrow(InvalidTransitionError); // only from idle
    expect(stateOf(session)).toBe(before);
    expect(workflow.matches('active')).toBe(true);
  });

  it('availableTransitions in active lists AddStep, UpdateStep and CompletePlan, saying which need the event to decide', () => {
    const { session, workflow } = activePlan();
    expect(workflow.availableTransitions()).toEqual([
      { event: 'plan/stepAdded', enabled: true, requiresEvent: true, transitions: [{ source: 'active', targets: [], requiresEvent: true }] },
      { event: 'plan/stepUpdated', enabled: true, requiresEvent: true, transitions: [{ source: 'active', targets: [], requiresEvent: true }] },
      // b is pending: allStepsDone reads only the Plan slice, so it is decided now (false) and left out
      { event: 'plan/cancelled', enabled: true, requiresEvent: false, transitions: [{ source: 'active', targets: ['cancelled'], requiresEvent: false }] },
    ]);
    session.dispatch(UpdateStep({ id: 'b', status: 'done' }));
    expect(workflow.availableTransitions().map((t) => [t.event, t.requiresEvent])).toEqual([
      ['plan/stepAdded', true],
      ['plan/stepUpdated', true],
      ['plan/completed', false],
      ['plan/cancelled', false],
    ]);
    expect(workflow.availableTransitions()[2]).toEqual({
      event: 'plan/completed',
      enabled: true,
      requiresEvent: false,
      transitions: [{ source: 'active', targets: ['completed'], requiresEvent: false }],
    });
  });

  it('availableTransitions in idle and after completion', () => {
    const { session, workflow } = planSession();
    expect(workflow.availableTransitions()).toEqual([
      { event: 'plan/created', enabled: true, requiresEvent: false, transitions: [{ source: 'idle', targets: ['active'], requiresEvent: false }] },
    ]);
    session.dispatch(CreatePlan({ goal: 'g' }));
    session.dispatch(CancelPlan({ reason: 'no longer needed' }));
    expect(workflow.matches('cancelled')).toBe(true);
    expect(workflow.current.context.cancelReason).toBe('no longer needed');
    expect(workflow.availableTransitions()).toEqual([]);
  });

  it('canTransition decides fully, with the payload and the Plan slice', () => {
    const { workflow } = activePlan();
    expect(workflow.canTransition(UpdateStep({ id: 'a', status: 'failed' }))).toBe(true);
    expect(workflow.canTransition(UpdateStep({ id: 'missing', status: 'done' }))).toBe(false);
    expect(workflow.canTransition(AddStep({ id: 'c', title: 'deploy' }))).toBe(true);
    expect(workflow.canTransition(AddStep({ id: 'a', title: 'dup' }))).toBe(false);
    expect(workflow.canTransition(CompletePlan())).toBe(false);
    expect(workflow.canTransition(CreatePlan({ goal: 'x' }))).toBe(false);
    expect(workflow.canTransition('plan/cancelled')).toBe(true);
  });

  describe('events after the final state follow invalidTransitions', () => {
    it("'throw': a named event throws InvalidTransitionError (done: true) and changes nothing; canTransition is false", () => {
      const { session, workflow, errors } = completedPlan('throw');
      const before = stateOf(session);
      expect(workflow.canTransition(AddStep({ id: 'late', title: 'late' }))).toBe(false);
      let caught: unknown;
      try {
        session.dispatch(AddStep({ id: 'late', title: 'late' }));
      } catch (e) {
        caught = e;
      }
      expect(caught).toBeInstanceOf(InvalidTransitionError);
      expect(caught).toMatchObject({ done: true, configuration: ['completed'], eventType: 'plan/stepAdded' });
      expect((caught as Error).message).toContain('is done');
      expect(errors).toEqual([caught]);
      expect(stateOf(session)).toBe(before);
      // an event the machine does not name is never its business
      session.dispatch(OtherHappened(1));
    });

    it("'report': the event is rejected and reported on errors$; dispatch returns; nothing changes", () => {
      const { session, errors, committed } = completedPlan('report');
      const before = stateOf(session);
      const seen = committed.length;
      session.dispatch(AddStep({ id: 'late', title: 'late' }));
      expect(errors.map((e) => [e.code, (e as InvalidTransitionError).done])).toEqual([['INVALID_TRANSITION', true]]);
      expect(stateOf(session)).toBe(before);
      expect(committed.length).toBe(seen);
    });

    it("'ignore': the machine stays done and the event reaches the slices", () => {
      const { session, workflow, errors } = completedPlan('ignore');
      const machineBefore = workflow.current;
      session.dispatch(AddStep({ id: 'late', title: 'late' }));
      expect(workflow.current).toBe(machineBefore);
      expect(session.slice(Plan).all().map((s) => s.id)).toEqual(['a', 'b', 'late']);
      expect(errors).toEqual([]);
    });
  });

  it('is covered by snapshots: restore (also from JSON) brings back the workflow with the Plan it guards', () => {
    const { session, workflow } = activePlan();
    const mid = session.snapshot();
    const json = JSON.stringify(mid);
    session.dispatch(UpdateStep({ id: 'b', status: 'done' }));
    session.dispatch(CompletePlan());
    expect(workflow.matches('completed')).toBe(true);

    session.restore(mid);
    expect(workflow.matches('active')).toBe(true);
    expect(workflow.current.context).toEqual({ goal: 'ship', updates: 1, cancelReason: null });
    expect(workflow.canTransition(CompletePlan())).toBe(false); // b is pending again
    expect(() => session.dispatch(CompletePlan())).toThrow(InvalidTransitionError);

    const other = createSession({ slices: [Plan], events: [CompletePlan, CancelPlan] });
    const restored = other.install(PlanWorkflow);
    other.restore(snapshotFromJSON(json, [Plan, restored.slice]));
    expect(restored.matches('active')).toBe(true);
    expect(other.slice(Plan).all().map((s) => `${s.id}:${s.status}`)).toEqual(['a:done', 'b:pending']);
    other.dispatch(UpdateStep({ id: 'b', status: 'done' }));
    other.dispatch(CompletePlan());
    expect(restored.current.output).toEqual({ goal: 'ship', updates: 2 });
  });

  it('runs as a pure machine too: guards read the slices passed to transition() / canTransition()', () => {
    const { session, workflow } = activePlan();
    const slices = { get: <T>(def: { name: string }) => session.slice(def as typeof Plan) as unknown as SliceView<T> };
    const snap = workflow.current;
    expect(canTransition(PlanWorkflow, snap, UpdateStep({ id: 'b', status: 'done' }), { slices })).toBe(true);
    expect(canTransition(PlanWorkflow, snap, UpdateStep({ id: 'zz', status: 'done' }), { slices })).toBe(false);
    // without slices the guard cannot read the Plan: it fails (reported), so the event enables nothing
    expect(() => transition(PlanWorkflow, snap, UpdateStep({ id: 'b', status: 'done' }))).toThrow(InvalidTransitionError);
    const report = transition(definePlanWorkflow('report'), snap, UpdateStep({ id: 'b', status: 'done' }));
    expect(report.errors.map((e) => (e as RxSliceError).code)).toEqual(['MACHINE_SLICES_UNAVAILABLE', 'INVALID_TRANSITION']);
  });
});

describe('examples/plan-workflow/main.ts', () => {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'examples/plan-workflow/main.ts'], {
    cwd: resolve(__dirname, '../..'),
    encoding: 'utf8',
    timeout: 60_000,
  });

  it('exits 0, draws the workflow with its guards and prints the run', () => {
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('targetless: plan/stepUpdated [stepExists]');
    expect(r.stdout).toContain('active --> completed: plan/completed [allStepsDone]');
    expect(r.stdout).toContain(
      'available: plan/stepAdded (needs the event), plan/stepUpdated (needs the event), plan/completed (blocked by allStepsDone: all steps must be done (2 of 2 are not)), plan/cancelled\n',
    );
    expect(r.stdout).toContain('canTransition UpdateStep(deploy): false');
    expect(r.stdout).toContain('rejected: InvalidTransitionError: Machine "planWorkflow": guard "stepExists" refused "plan/stepUpdated" in [active]: there is no step "deploy"\n');
    expect(r.stdout).toContain('unchanged: true');
    expect(r.stdout).toContain('[completed] done: true output: {"goal":"ship the release","updates":2}');
    expect(r.stdout).toContain('after completion: InvalidTransitionError: Machine "planWorkflow" is done');
  });
});
