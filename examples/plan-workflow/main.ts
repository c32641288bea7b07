/**
 * Runs the seed's PlanWorkflow in a session: the workflow decides each plan event before the
 * Plan slice's reducers run, so an update of a missing step is rejected with
 * InvalidTransitionError and changes nothing.
 * Run: npx tsx examples/plan-workflow/main.ts
 */
import { createSession } from '../../src/index';
import { AddStep, CancelPlan, CompletePlan, CreatePlan, Plan, PlanWorkflow, UpdateStep } from './plan-workflow';

// The Plan slice's reducers declare the plan events they handle; the workflow's own events
// (complete, cancel) are listed in `events`, so `dispatch` accepts them (and is typed by them).
const session = createSession({ slices: [Plan], events: [CompletePlan, CancelPlan] });
const workflow = session.install(PlanWorkflow);
const steps = () => session.slice(Plan).all().map((s) => `${s.id}:${s.status}`).join(' ') || '-';
const state = () => workflow.current.configuration.join(', ');
const available = () =>
  workflow
    .availableTransitions({ includeBlocked: true })
    .map((t) => `${t.event}${t.requiresEvent ? ' (needs the event)' : ''}${t.enabled ? '' : ` (blocked by ${t.blockedBy}: ${t.reason})`}`)
    .join(', ');

console.log('--- Mermaid ---');
console.log(workflow.toMermaid());

console.log('\n--- Run ---');
session.dispatch(CreatePlan({ goal: 'ship the release' }));
session.dispatch(AddStep({ id: 'tests', title: 'run the tests' }));
session.dispatch(AddStep({ id: 'notes', title: 'write release notes' }));
console.log(`[${state()}] steps: ${steps()}`);
console.log(`available: ${available()}`);
console.log(`canTransition UpdateStep(tests): ${workflow.canTransition(UpdateStep({ id: 'tests', status: 'done' }))}`);
console.log(`canTransition UpdateStep(deploy): ${workflow.canTransition(UpdateStep({ id: 'deploy', status: 'done' }))}`);

const before = session.snapshot();
try {
  session.dispatch(UpdateStep({ id: 'deploy', status: 'done' })); // no such step: the workflow rejects it
} catch (e) {
  console.log(`rejected: ${(e as Error).name}: ${(e as Error).message.split('. ')[0]}`);
}
console.log(`unchanged: ${JSON.stringify(session.snapshot().slices) === JSON.stringify(before.slices)}`);

session.dispatch(UpdateStep({ id: 'tests', status: 'done' }));
session.dispatch(UpdateStep({ id: 'notes', status: 'done' }));
console.log(`[${state()}] steps: ${steps()}`);
console.log(`available: ${available()}`);
session.dispatch(CompletePlan());
console.log(`[${state()}] done: ${workflow.current.done} output: ${JSON.stringify(workflow.current.output)}`);

try {
  session.dispatch(AddStep({ id: 'late', title: 'too late' })); // after the final state: policy 'throw'
} catch (e) {
  console.log(`after completion: ${(e as Error).name}: ${(e as Error).message.split(':')[0]}`);
}
session.dispose();
