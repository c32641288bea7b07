// Issue 37, "An attached checkpointer keeps what was undone", through LangGraph: a run recorded by
// `createCheckpointer(...).attach(session, 't1')` is resumed in a LangGraph graph checkpointed by
// `RxSliceSaver` on a directory. The saver is not fed by `attach` (LangGraph writes its own
// checkpoints); what reaches it is what the user resumes from, the thread's latest checkpoint. That
// must be the session's committed state, so the resumed graph, and the saver's directory after a
// reopen, never hold the work the session undid.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Annotation, END, START, StateGraph } from '@langchain/langgraph';
import { afterAll, expect, it } from 'vitest';
import { z } from 'zod';
import { add, createCheckpointer, createSession, defineState, field } from '../../src/index';
import { checkpointFiles } from '../../src/jsonl/index';
import { RxSliceSaver, type LangGraphRecord } from '../../src/langgraph/index';

const Run = defineState('run', { steps: field(z.array(z.string()), { reducer: add, default: [] }) });
const GraphState = Annotation.Root({ steps: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }) });
const deployGraph = (saver: RxSliceSaver) =>
  new StateGraph(GraphState)
    .addNode('deploy', () => ({ steps: ['deploy'] }))
    .addEdge(START, 'deploy')
    .addEdge('deploy', END)
    .compile({ checkpointer: saver });

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const freshDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'rxslice-attached-langgraph-'));
  dirs.push(d);
  return d;
};

it('a LangGraph run resumed from an attached thread after a restore and a rollback carries no undone work, also after the saver directory reopens', async () => {
  const checkpointDir = freshDir();
  const saverDir = freshDir();
  const session = createSession({ slices: [Run] });
  createCheckpointer({ state: Run, storage: checkpointFiles(checkpointDir, { fsync: false }) }).attach(session, 't1');
  session.dispatch(Run.update({ steps: ['plan'] }));
  const afterPlan = session.snapshot();
  session.dispatch(Run.update({ steps: ['code'] }));
  session.restore(afterPlan);
  session.dispatch(Run.update({ steps: ['test'] }));
  expect(() =>
    session.transaction(() => {
      session.dispatch(Run.update({ steps: ['oops'] }));
      throw new Error('abort');
    }),
  ).toThrow('abort');
  session.dispose();

  // Another process: reads the thread's latest checkpoint from the directory and resumes in LangGraph.
  const latest = createCheckpointer({ state: Run, storage: checkpointFiles(checkpointDir, { fsync: false }) }).latest('t1');
  const config = { configurable: { thread_id: 'run-t1' } };
  const graph = deployGraph(new RxSliceSaver({ storage: checkpointFiles<LangGraphRecord>(saverDir, { fsync: false }) }));
  await graph.updateState(config, { steps: [...(latest?.values.steps ?? [])] });
  expect((await graph.invoke(null, config)).steps).toEqual(['plan', 'test', 'deploy']);

  const reopened = deployGraph(new RxSliceSaver({ storage: checkpointFiles<LangGraphRecord>(saverDir, { fsync: false }) }));
  expect((await reopened.getState(config)).values.steps).toEqual(['plan', 'test', 'deploy']);
  const history: string[][] = [];
  for await (const snapshot of reopened.getStateHistory(config)) history.push(snapshot.values.steps ?? []);
  expect(history.some((steps) => steps.includes('oops') || steps.includes('code'))).toBe(false);
  expect(history.length).toBeGreaterThan(1);
});
