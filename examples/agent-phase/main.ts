/**
 * AgentPhase: the phases of an agent run as a statechart.
 * idle -> active(planning -> executing <-> reviewing) -> complete | failed; abort from any active phase.
 * Run: npx tsx examples/agent-phase/main.ts
 */
import { assign, createMachineActor, defineMachine, effect, toMermaid } from '../../src/machines/index.js';

interface AgentContext {
  readonly steps: readonly string[];
  readonly done: number;
  readonly reviews: number;
}

const allStepsDone = function allStepsDone({ context }: { context: AgentContext }) {
  return context.steps.length > 0 && context.done >= context.steps.length;
};

export const AgentPhase = defineMachine('agentPhase', {
  context: { steps: [], done: 0, reviews: 0 } as AgentContext,
  initial: 'idle',
  states: {
    idle: { on: { 'agent/started': 'active' } },
    active: {
      initial: 'planning',
      on: { 'agent/aborted': 'failed', 'agent/crashed': 'failed' },
      states: {
        planning: {
          entry: effect('llm/planRequested'),
          on: {
            'agent/planned': {
              target: 'executing',
              actions: assign<AgentContext>(({ event }) => ({ steps: (event.payload as { steps: string[] }).steps, done: 0 })),
            },
          },
        },
        executing: {
          on: {
            'agent/stepDone': { actions: [assign<AgentContext>(({ context }) => ({ done: context.done + 1 })), effect('tool/stepLogged', ({ context }: { context: AgentContext }) => context.done)] },
            'agent/reviewRequested': { target: 'reviewing', guard: allStepsDone },
          },
        },
        reviewing: {
          entry: assign<AgentContext>(({ context }) => ({ reviews: context.reviews + 1 })),
          on: {
            'agent/approved': 'complete',
            'agent/changesRequested': {
              target: 'executing',
              actions: assign<AgentContext>(({ context, event }) => ({ steps: [...context.steps, ...((event.payload as { steps?: string[] } | undefined)?.steps ?? [])] })),
            },
          },
        },
      },
    },
    complete: { type: 'final', output: ({ context }) => ({ steps: context.steps.length, reviews: context.reviews }) },
    failed: { type: 'final' },
  },
});

console.log('--- Mermaid ---');
console.log(toMermaid(AgentPhase));

console.log('\n--- Run ---');
const actor = createMachineActor(AgentPhase).start();
actor.snapshot$.subscribe((s) => console.log(`[${s.configuration.join(', ')}] done=${s.context.done}/${s.context.steps.length}${s.done ? ' (final)' : ''}`));
actor.effects$.subscribe((e) => console.log(`  effect: ${e.type} ${JSON.stringify(e.payload ?? null)}`));
actor.errors$.subscribe((e) => console.log(`  error: ${(e as Error).message}`));

const events: Parameters<typeof actor.send>[0][] = [
  { type: 'agent/started' },
  { type: 'agent/planned', payload: { steps: ['search', 'summarise'] } },
  { type: 'agent/stepDone' },
  { type: 'agent/stepDone' },
  { type: 'agent/reviewRequested' },
  { type: 'agent/changesRequested', payload: { steps: ['cite sources'] } },
  { type: 'agent/stepDone' },
  { type: 'agent/reviewRequested' },
  { type: 'agent/approved' },
];
for (const e of events) {
  console.log(`> ${typeof e === 'string' ? e : e.type}`);
  actor.send(e);
}
console.log('output:', JSON.stringify(actor.snapshot().output));

console.log('\n--- Abort from an active phase (guard blocks an early review) ---');
const second = createMachineActor(AgentPhase).start();
second.send('agent/started');
second.send({ type: 'agent/planned', payload: { steps: ['a', 'b'] } });
try {
  second.send('agent/reviewRequested'); // guard allStepsDone is false: no transition, policy 'throw'
} catch (e) {
  console.log(`  ${(e as Error).name}: ${(e as Error).message.split('.')[0]}`);
}
second.send('agent/aborted');
console.log(`[${second.snapshot().configuration.join(', ')}] done=${second.snapshot().done}`);
actor.dispose();
second.dispose();
