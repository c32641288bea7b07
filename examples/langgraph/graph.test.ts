import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StateSnapshot } from '@langchain/langgraph';
import { afterAll, describe, expect, it } from 'vitest';
import { RxSliceSaver, type LangGraphRecord } from '../../src/langgraph/index';
import { checkpointFiles } from '../../src/jsonl/index';
import { planGraph } from './graph';

const dir = mkdtempSync(join(tmpdir(), 'rxslice-langgraph-example-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const history = async (graph: ReturnType<typeof planGraph>, thread_id: string) => {
  const out: StateSnapshot[] = [];
  for await (const s of graph.getStateHistory({ configurable: { thread_id } })) out.push(s);
  return out;
};

describe('a LangGraph.js graph on RxSliceSaver', () => {
  it('runs, keeps every super-step, and a new process (a new saver on the same directory) reads the history back', async () => {
    const graph = planGraph(new RxSliceSaver({ storage: checkpointFiles<LangGraphRecord>(dir) }));
    const result = await graph.invoke({}, { configurable: { thread_id: 't1' } });
    expect(result.steps).toEqual(['plan', 'act 1', 'review', 'act 2', 'review']);
    const steps = await history(graph, 't1');
    // input, plan, act, review, act, review: newest first, each the parent of the one before.
    expect(steps.map((s) => s.values['steps']?.length ?? 0)).toEqual([5, 4, 3, 2, 1, 0, 0]);
    expect(steps[0]?.next).toEqual([]);
    for (let i = 0; i + 1 < steps.length; i++) expect(steps[i]?.parentConfig?.configurable?.['checkpoint_id']).toBe(steps[i + 1]?.config.configurable?.['checkpoint_id']);
    const reopened = planGraph(new RxSliceSaver({ storage: checkpointFiles<LangGraphRecord>(dir) }));
    expect((await history(reopened, 't1')).map((s) => s.config.configurable?.['checkpoint_id'])).toEqual(steps.map((s) => s.config.configurable?.['checkpoint_id']));
    expect((await reopened.getState({ configurable: { thread_id: 't1' } })).values).toEqual(result);
  });

  it('time travel: invoking from an earlier checkpoint forks the thread there; the original branch stays', async () => {
    const saver = new RxSliceSaver();
    const graph = planGraph(saver);
    await graph.invoke({}, { configurable: { thread_id: 't2' } });
    const steps = await history(graph, 't2');
    const afterFirstAct = steps.find((s) => s.values['steps']?.at(-1) === 'act 1');
    expect(afterFirstAct?.next).toEqual(['review']);
    // Change the past (as node "act"), then resume from there.
    const edited = await graph.updateState(afterFirstAct!.config, { steps: ['act 1 (edited)'], actions: 2 }, 'act');
    const resumed = await graph.invoke(null, edited);
    expect(resumed.steps).toEqual(['plan', 'act 1', 'act 1 (edited)', 'review']);
    expect((await history(graph, 't2')).length).toBeGreaterThan(steps.length);
    expect(steps[0]?.values['steps']).toEqual(['plan', 'act 1', 'review', 'act 2', 'review']);
  });
});
