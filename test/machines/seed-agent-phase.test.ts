import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createSession, defineEvent } from '../../src/index.js';
import { defineMachine, InvalidMachineError, InvalidTransitionError, setupMachine, toMermaid } from '../../src/machines/index.js';

// The seed's events (Abstractions Proposal, P5): StartTask, PlanApproved, ExecutionComplete, ReviewApproved, ChangesRequested, TaskAborted.
const StartTask = defineEvent('task/started', z.object({ taskId: z.string() }));
const PlanApproved = defineEvent('plan/approved');
const ExecutionComplete = defineEvent('execution/completed', z.object({ allStepsDone: z.boolean() }));
const ReviewApproved = defineEvent('review/approved');
const ChangesRequested = defineEvent('review/changesRequested');
const TaskAborted = defineEvent('task/aborted');

/** The seed's `AgentPhase`, transition for transition. */
const AgentPhase = setupMachine({ events: [StartTask, PlanApproved, ExecutionComplete, ReviewApproved, ChangesRequested, TaskAborted] }).defineMachine('AgentPhase', {
  initial: 'idle',
  states: {
    idle: {},
    planning: {},
    executing: {},
    reviewing: {},
    complete: { type: 'final' },
    failed: { type: 'final' },
  },
  transitions: [
    { name: 'start_planning', event: 'task/started', from: 'idle', target: 'planning' },
    { name: 'begin_execution', event: 'plan/approved', from: 'planning', target: 'executing' },
    {
      name: 'request_review',
      event: 'execution/completed',
      from: 'executing',
      target: 'reviewing',
      // the seed's `guard=lambda e: e.all_steps_done`: the event is typed from ExecutionComplete
      guard: function all_steps_done({ event }) {
        return event.payload.allStepsDone;
      },
    },
    { name: 'approve', event: 'review/approved', from: 'reviewing', target: 'complete' },
    { name: 'request_changes', event: 'review/changesRequested', from: 'reviewing', target: 'executing' },
    { name: 'abort', event: 'task/aborted', from: ['planning', 'executing', 'reviewing'], target: 'failed' },
  ],
});

describe("the seed's AgentPhase (Abstractions Proposal, P5)", () => {
  it('toMermaid() gives the seed diagram, line for line', () => {
    expect(toMermaid(AgentPhase)).toBe(
      [
        'stateDiagram-v2',
        '    [*] --> idle',
        '    idle --> planning: start_planning',
        '    planning --> executing: begin_execution',
        '    executing --> reviewing: request_review [all_steps_done]',
        '    reviewing --> complete: approve',
        '    reviewing --> executing: request_changes',
        '    planning --> failed: abort',
        '    executing --> failed: abort',
        '    reviewing --> failed: abort',
        '    complete --> [*]',
        '    failed --> [*]',
      ].join('\n'),
    );
  });

  it('runs as the seed shows: installed in a session, transitions are events, invalid transitions raise', () => {
    const session = createSession({ slices: [] });
    const phase = session.install(AgentPhase);
    expect(phase.current.configuration).toEqual(['idle']);
    session.dispatch(StartTask({ taskId: '123' }));
    expect(phase.current.configuration).toEqual(['planning']);
    // the seed: session.broadcast(ReviewApproved())  # InvalidTransition: planning → complete not allowed
    expect(() => session.dispatch(ReviewApproved())).toThrow(InvalidTransitionError);
    expect(() => session.dispatch(ReviewApproved())).toThrow(
      'Machine "AgentPhase": event "review/approved" enables no transition in configuration [planning]: no active state has a transition for it.',
    );
    session.dispatch(PlanApproved());
    // request_review is refused by its guard: the error names the guard and the transition
    let refused: InvalidTransitionError | undefined;
    try {
      session.dispatch(ExecutionComplete({ allStepsDone: false }));
    } catch (e) {
      refused = e as InvalidTransitionError;
    }
    expect(refused?.message).toContain('guard "all_steps_done" of transition "request_review" refused "execution/completed" in [executing] (it gave no reason: return refuse(reason) instead of false to say why).');
    expect(refused?.considered).toEqual([
      { name: 'request_review', source: 'executing', targets: ['reviewing'], events: ['execution/completed'], guard: 'all_steps_done', verdict: 'refused' },
    ]);
    session.dispatch(ExecutionComplete({ allStepsDone: true }));
    expect(phase.current.configuration).toEqual(['reviewing']);
    session.dispatch(ChangesRequested());
    expect(phase.current.configuration).toEqual(['executing']);
    session.dispatch(ExecutionComplete({ allStepsDone: true }));
    session.dispatch(ReviewApproved());
    expect(phase.current).toMatchObject({ configuration: ['complete'], done: true });
    session.dispose();
  });

  it('abort leaves each active phase, as one transition written once', () => {
    for (const [path, from] of [
      [[], 'planning'],
      [[PlanApproved()], 'executing'],
      [[PlanApproved(), ExecutionComplete({ allStepsDone: true })], 'reviewing'],
    ] as const) {
      const session = createSession({ slices: [] });
      const phase = session.install(AgentPhase);
      session.dispatch(StartTask({ taskId: 't' }));
      for (const e of path) session.dispatch(e);
      expect(phase.current.configuration).toEqual([from]);
      expect(phase.explainTransition(TaskAborted()).considered).toEqual([
        { name: 'abort', source: from, targets: ['failed'], events: ['task/aborted'], verdict: 'enabled' },
      ]);
      session.dispatch(TaskAborted());
      expect(phase.current).toMatchObject({ configuration: ['failed'], done: true });
      session.dispose();
    }
    // not from idle: abort does not leave it
    const session = createSession({ slices: [] });
    session.install(AgentPhase);
    expect(() => session.dispatch(TaskAborted())).toThrow('enables no transition in configuration [idle]');
  });

  it("lists named transitions in availableTransitions with their names", () => {
    const session = createSession({ slices: [] });
    const phase = session.install(AgentPhase);
    session.dispatch(StartTask({ taskId: 't' }));
    expect(phase.availableTransitions()).toEqual([
      { event: 'plan/approved', enabled: true, requiresEvent: false, transitions: [{ name: 'begin_execution', source: 'planning', targets: ['executing'], requiresEvent: false }] },
      { event: 'task/aborted', enabled: true, requiresEvent: false, transitions: [{ name: 'abort', source: 'planning', targets: ['failed'], requiresEvent: false }] },
    ]);
  });

  it("a state's own transitions come first; machine-level ones follow in list order (document order for selection)", () => {
    const M = defineMachine('order', {
      initial: 'a',
      states: { a: { on: { go: 'b' } }, b: {}, c: {} },
      transitions: [{ name: 'later', event: 'go', from: 'a', target: 'c' }],
    });
    const session = createSession({ slices: [] });
    const m = session.install(M);
    expect(m.explainTransition('go').considered.map((t) => [t.name ?? '-', t.targets])).toEqual([['-', ['b']]]);
    session.dispatch({ type: 'go', payload: undefined });
    expect(m.current.configuration).toEqual(['b']);
  });

  it('rejects a malformed machine-level transition with a clear error, defining nothing', () => {
    const states = { a: {}, b: {}, end: { type: 'final' as const } };
    const define = (transitions: unknown) => () => defineMachine('bad', { states, transitions: transitions as never });
    expect(define([{ name: 'x', event: 'go', from: 'nope', target: 'b' }])).toThrow(
      'Machine "bad": transition "x" (transitions[0]) leaves unknown state "nope". Known states: a, b, end.',
    );
    expect(define([{ name: 'x', from: 'a', target: 'b' }])).toThrow('transition "x" (transitions[0]) needs an "event"');
    expect(define([{ event: 'go', from: [], target: 'b' }])).toThrow('transitions[0] needs "from"');
    expect(define([{ event: 'go', from: 'end', target: 'a' }])).toThrow('leaves final state "end", which cannot have transitions');
    expect(define([{ event: 'go', from: ['a', 'a'], target: 'b' }])).toThrow('names state "a" twice in "from"');
    expect(define([{ event: 'go', from: 'a', target: 'zz' }])).toThrow('has a transition to unknown state "zz"');
    expect(define([{ name: '', event: 'go', from: 'a', target: 'b' }])).toThrow('a name must be a non-empty string');
    expect(define([null])).toThrow(InvalidMachineError);
  });
});
