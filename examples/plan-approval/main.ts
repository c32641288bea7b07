/**
 * PlanApproval: a plan is drafted, approved, then carried out. While in progress, two
 * parallel regions run: the steps (with deep history, so pausing and resuming returns to
 * the same step) and a reviewer that must sign off. A 'stalled' reminder is a delayed send
 * that is cancelled when progress is made. Both regions finishing raises done.state.inProgress.
 * (The seed's PlanWorkflow, a workflow that guards a Plan slice, is in examples/plan-workflow/.)
 * Run: npx tsx examples/plan-approval/main.ts
 */
import { VirtualTimeScheduler } from 'rxjs';
import { cancel, createMachineActor, defineMachine, send, toMermaid } from '../../src/machines/index.js';

const remind = send('plan/stalled', { delayMs: 60_000, id: 'stall-reminder' });

export const PlanApproval = defineMachine('planApproval', {
  initial: 'drafting',
  states: {
    drafting: { on: { 'plan/submitted': 'approval' } },
    approval: { on: { 'plan/approved': 'inProgress', 'plan/rejected': 'drafting' } },
    inProgress: {
      type: 'parallel',
      on: { 'plan/paused': 'paused', 'done.state.inProgress': 'completed' },
      states: {
        steps: {
          initial: 'research',
          states: {
            stepsHistory: { type: 'history', history: 'deep' },
            research: { entry: remind, exit: cancel('stall-reminder'), on: { 'step/finished': 'write', 'plan/stalled': 'research' } },
            write: {
              initial: 'outline',
              entry: remind,
              exit: cancel('stall-reminder'),
              states: { outline: { on: { 'step/finished': 'prose' } }, prose: { on: { 'step/finished': 'stepsDone' } } },
            },
            stepsDone: { type: 'final' },
          },
        },
        review: {
          initial: 'waiting',
          states: { waiting: { on: { 'review/signedOff': 'signedOff' } }, signedOff: { type: 'final' } },
        },
      },
    },
    paused: { on: { 'plan/resumed': ['stepsHistory', 'waiting'] } },
    completed: { type: 'final' },
  },
});

console.log('--- Mermaid ---');
console.log(toMermaid(PlanApproval));

console.log('\n--- Run (virtual time) ---');
const scheduler = new VirtualTimeScheduler();
const actor = createMachineActor(PlanApproval, { scheduler }).start();
actor.snapshot$.subscribe((s) =>
  console.log(`t=${String(scheduler.now()).padStart(6)}ms [${s.basicConfiguration.join(', ')}] pending=${s.delayed.map((d) => `${d.event.type}@${d.dueAtMs}`).join(',') || '-'}${s.done ? ' (final)' : ''}`),
);
const at = (ms: number, event: Parameters<typeof actor.send>[0]) =>
  scheduler.schedule(() => {
    console.log(`> ${typeof event === 'string' ? event : event.type}`);
    actor.send(event);
  }, ms);
at(1_000, 'plan/submitted');
at(2_000, 'plan/approved');
at(30_000, 'step/finished'); // research -> write/outline
at(40_000, 'step/finished'); // outline -> prose
at(50_000, 'plan/paused');
at(70_000, 'plan/resumed'); // deep history: back to prose
at(200_000, 'step/finished'); // prose -> stepsDone (after a stalled reminder at 130 000 ms)
at(210_000, 'review/signedOff'); // both regions final: done.state.inProgress -> completed
scheduler.flush();
console.log('history recorded:', JSON.stringify(actor.snapshot().historyValue));
actor.dispose();
