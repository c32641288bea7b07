import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createSession, defineEvent } from '../../src/index.js';
import { InvalidTransitionError, setupMachine, toMermaid } from '../../src/machines/index.js';

// The seed's events (Abstractions Proposal, P5): StartTask, PlanApproved, ExecutionComplete, ReviewApproved, ChangesRequested, TaskAborted.
const StartTask = defineEvent('task/started', z.object({ taskId: z.string() }));
const PlanApproved = defineEvent('plan/approved');
const ExecutionComplete = defineEvent('execution/completed', z.object({ allStepsDone: z.boolean() }));
const ReviewApproved = defineEvent('review/approved');
const ChangesRequested = defineEvent('review/changesRequested');
const TaskAborted = defineEvent('task/aborted');

// The seed's guard is `lambda e: e.all_steps_done`: it reads the event.
const all_steps_done = ({ event }: { event: { payload: { allStepsDone: boolean } } }) => event.payload.allStepsDone;

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
    { name: 'request_review', event: 'execution/completed', from: 'executing', target: 'reviewing', guard: all_steps_done },
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
});
