/**
 * A LangGraph.js graph (deterministic nodes, no model calls) checkpointed by rxslice:
 * plan → act → review, with the review looping back to act until two actions are done.
 * `RxSliceSaver` stores every super-step; `getStateHistory` walks them, and invoking from an
 * earlier checkpoint forks the thread there (LangGraph's time travel).
 */
import { Annotation, END, START, StateGraph, type BaseCheckpointSaver } from '@langchain/langgraph';

export const PlanState = Annotation.Root({
  steps: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
  actions: Annotation<number>({ reducer: (_a, b) => b, default: () => 0 }),
});

export function planGraph(checkpointer: BaseCheckpointSaver) {
  return new StateGraph(PlanState)
    .addNode('plan', () => ({ steps: ['plan'] }))
    .addNode('act', (s) => ({ steps: [`act ${s.actions + 1}`], actions: s.actions + 1 }))
    .addNode('review', () => ({ steps: ['review'] }))
    .addEdge(START, 'plan')
    .addEdge('plan', 'act')
    .addEdge('act', 'review')
    .addConditionalEdges('review', (s) => (s.actions < 2 ? 'act' : END))
    .compile({ checkpointer });
}
