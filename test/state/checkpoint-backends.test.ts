// Issue 37's conformance matrix, the row "partial-update state and the checkpointer": one script of
// checkpoint operations (update, fork, history, retention) run on every checkpoint backend,
// disposing and reopening the backend between its phases, and compared after each reopen with
// what the memory backend gives for the same script.
//
// Backends: createCheckpointer on memoryCheckpoints() (the model), on checkpointFiles(dir) with
// fsync on and off, and the LangGraph saver directory (RxSliceSaver on checkpointFiles(dir),
// driven through a LangGraph graph: updateState, getStateHistory, a fork as a new thread from a
// past checkpoint's values). Not here: PostgreSQL, which stores no checkpoints (src/postgres holds
// shared sessions; a thread-record storage is synchronous, a pg client is not). The saver has no
// retention but deleteThread (LangGraph's BaseCheckpointSaver contract): it runs the script
// without the prune steps, against the memory model run the same way.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Annotation, END, START, StateGraph } from '@langchain/langgraph';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { add, createCheckpointer, defineState, field, memoryCheckpoints, type CheckpointStorage } from '../../src/index';
import { checkpointFiles } from '../../src/jsonl/index';
import { RxSliceSaver, type LangGraphRecord } from '../../src/langgraph/index';

const Run = defineState('run', {
  steps: field(z.array(z.string()), { reducer: add, default: [] }),
  phase: field(z.string(), { default: 'start' }),
});
const GraphState = Annotation.Root({
  steps: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
  phase: Annotation<string>({ reducer: (_a, b) => b, default: () => 'start' }),
});
interface Values {
  readonly steps: readonly string[];
  readonly phase: string;
}
type Update = { readonly steps?: string[]; readonly phase?: string };
/** One checkpoint as every backend can tell it: its values, its step, and whether its parent is the checkpoint before it. */
interface Row {
  readonly values: Values;
  readonly step: number;
  readonly parent: 'previous' | 'none' | 'other';
}
const rows = (list: readonly { values: Values; step: number; id: string; parentId: string | null | undefined }[]): Row[] =>
  list.map((c, i) => ({
    values: { steps: [...c.values.steps], phase: c.values.phase },
    step: c.step,
    parent: c.parentId == null ? 'none' : c.parentId === list[i + 1]?.id ? 'previous' : 'other',
  }));

/** A backend opened on its store: a later `open()` of the same backend reopens that store. */
interface Opened {
  update(thread: string, update: Update): Promise<void>;
  /** Starts `newThread` from the checkpoint at `index` of `thread`'s history (newest first). */
  fork(thread: string, index: number, newThread: string): Promise<void>;
  /** Newest first. */
  history(thread: string): Promise<Row[]>;
  /** Retention, where the backend has it. */
  readonly prune: ((options: { keepLast?: number; ttlMs?: number }) => Promise<number>) | undefined;
  deleteThread(thread: string): Promise<void>;
  dispose(): void;
}
interface Backend {
  open(): Opened;
}

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const freshDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'rxslice-checkpoint-backends-'));
  dirs.push(d);
  return d;
};

/** createCheckpointer over a storage that `reopen` makes anew on the same store each time. */
function checkpointerBackend(reopen: () => CheckpointStorage, clock: { now: number }): Backend {
  return {
    open() {
      const cp = createCheckpointer({ state: Run, storage: reopen(), now: () => clock.now });
      return {
        update: async (thread, update) => void cp.put(thread, [update]),
        fork: async (thread, index, newThread) => void cp.fork(thread, cp.history(thread)[index]!.id, newThread),
        history: async (thread) => rows(cp.history(thread).map((c) => ({ ...c, step: c.metadata.step }))),
        prune: async (options) => cp.prune(options),
        deleteThread: async (thread) => cp.deleteThread(thread),
        dispose: () => undefined, // a checkpointer holds no handle: dropping it is its dispose
      };
    },
  };
}

/** The LangGraph saver directory, driven through a graph as a LangGraph user would. */
function saverBackend(dir: string): Backend {
  return {
    open() {
      const saver = new RxSliceSaver({ storage: checkpointFiles<LangGraphRecord>(dir, { fsync: false }) });
      const graph = new StateGraph(GraphState).addNode('writer', () => ({})).addEdge(START, 'writer').addEdge('writer', END).compile({ checkpointer: saver });
      const config = (thread: string) => ({ configurable: { thread_id: thread } });
      const list = async (thread: string) => {
        const out: { values: Values; step: number; id: string; parentId: string | undefined }[] = [];
        for await (const s of graph.getStateHistory(config(thread))) {
          out.push({
            values: s.values as Values,
            step: s.metadata?.step ?? -1,
            id: s.config.configurable?.['checkpoint_id'] as string,
            parentId: s.parentConfig?.configurable?.['checkpoint_id'] as string | undefined,
          });
        }
        return out;
      };
      return {
        update: async (thread, update) => void (await graph.updateState(config(thread), update, 'writer')),
        fork: async (thread, index, newThread) => {
          const from = (await list(thread))[index]!.values;
          await graph.updateState(config(newThread), { steps: [...from.steps], phase: from.phase }, 'writer');
        },
        history: async (thread) => rows(await list(thread)),
        prune: undefined,
        deleteThread: (thread) => saver.deleteThread(thread),
        dispose: () => undefined,
      };
    },
  };
}

/** The script: three phases, the backend disposed and reopened before each; what each reopen reads. */
async function script(backend: Backend, clock: { now: number }, withPrune: boolean): Promise<Record<string, Row[]>[]> {
  const reads: Record<string, Row[]>[] = [];
  const read = async (b: Opened) => ({ t1: await b.history('t1'), t2: await b.history('t2'), old: await b.history('old') });
  let b = backend.open();
  clock.now = 0;
  await b.update('old', { steps: ['ancient'] });
  clock.now = 1000;
  await b.update('t1', { steps: ['plan'] });
  await b.update('t1', { steps: ['code'] });
  await b.update('t1', { phase: 'review' });
  b.dispose();

  b = backend.open();
  reads.push(await read(b));
  clock.now = 1100;
  await b.update('t1', { steps: ['test'] }); // continues the thread written before the reopen
  await b.fork('t1', 2, 't2'); // from the checkpoint after "code"
  await b.update('t2', { steps: ['alt'], phase: 'forked' });
  b.dispose();

  b = backend.open();
  reads.push(await read(b));
  clock.now = 1200;
  if (withPrune) {
    expect(await b.prune?.({ keepLast: 2 })).toBe(2); // t1 keeps its newest 2 of 4; t2 and old keep theirs
    expect(await b.prune?.({ ttlMs: 500 })).toBe(1); // "old" (time 0) goes; the rest is younger
  }
  await b.deleteThread('t2');
  b.dispose();

  b = backend.open();
  reads.push(await read(b));
  await b.update('t1', { steps: ['deploy'] }); // a pruned thread still extends and decodes
  b.dispose();
  reads.push(await read(backend.open()));
  return reads;
}

const backends: [string, (clock: { now: number }) => Backend][] = [
  ['checkpointFiles (fsync on)', (clock) => {
    const dir = freshDir();
    return checkpointerBackend(() => checkpointFiles(dir), clock);
  }],
  ['checkpointFiles (fsync off)', (clock) => {
    const dir = freshDir();
    return checkpointerBackend(() => checkpointFiles(dir, { fsync: false }), clock);
  }],
  ['the LangGraph saver directory', () => saverBackend(freshDir())],
];
const memoryModel = async (withPrune: boolean) => {
  const clock = { now: 0 };
  const storage = memoryCheckpoints();
  return script(checkpointerBackend(() => storage, clock), clock, withPrune);
};

describe('checkpoint backends: update, fork, history and retention through dispose and reopen, as the memory model gives them', () => {
  it('the memory model itself: what the script reads after each reopen', async () => {
    const [afterWrites, afterFork, afterRetention, afterDeploy] = await memoryModel(true);
    const steps = (list: readonly Row[] | undefined) => list?.map((r) => `${r.step}:${r.values.steps.join(',')}/${r.values.phase}`);
    expect(steps(afterWrites?.['t1'])).toEqual(['2:plan,code/review', '1:plan,code/start', '0:plan/start']);
    expect(steps(afterFork?.['t1'])).toEqual(['3:plan,code,test/review', '2:plan,code/review', '1:plan,code/start', '0:plan/start']);
    expect(steps(afterFork?.['t2'])).toEqual(['1:plan,code,alt/forked', '0:plan,code/start']);
    expect(afterFork?.['t2']?.map((r) => r.parent)).toEqual(['previous', 'none']);
    expect(steps(afterRetention?.['t1'])).toEqual(['3:plan,code,test/review', '2:plan,code/review']);
    expect(afterRetention?.['t1']?.map((r) => r.parent)).toEqual(['previous', 'none']); // the oldest kept is stored in full
    expect(afterRetention?.['t2']).toEqual([]);
    expect(afterRetention?.['old']).toEqual([]);
    expect(steps(afterDeploy?.['t1'])).toEqual(['4:plan,code,test,deploy/review', '3:plan,code,test/review', '2:plan,code/review']);
  });

  it.each(backends)('%s', async (_name, make) => {
    const clock = { now: 0 };
    const backend = make(clock);
    const withPrune = backend.open().prune !== undefined;
    expect(await script(backend, clock, withPrune)).toEqual(await memoryModel(withPrune));
  });
});

describe('a directory written by a checkpointer and by the LangGraph saver', () => {
  it('prune applies retention to the checkpointer’s threads and leaves the saver’s alone; a thread that does not decode fails it with nothing removed', async () => {
    const dir = freshDir();
    const cp = createCheckpointer({ state: Run, storage: checkpointFiles(dir, { fsync: false }) });
    for (const s of ['a', 'b', 'c']) cp.put('rx', [{ steps: [s] }]);
    // A checkpointer thread whose record the state's schema refuses (a valid frame, the wrong
    // content): the prune fails on it, and "rx" is not pruned, whichever the directory lists first.
    checkpointFiles(dir, { fsync: false }).append({ id: 'z1', threadId: 'zz', parentId: null, createdAt: 0, metadata: { source: 'input', step: 0 }, values: { steps: 'nope', phase: 'p' } });
    expect(() => cp.prune({ keepLast: 1 })).toThrow(expect.objectContaining({ code: 'CHECKPOINT_CORRUPT' }));
    expect(cp.history('rx')).toHaveLength(3);
    cp.deleteThread('zz');

    const saver = saverBackend(dir).open();
    await saver.update('lg', { steps: ['x'] });
    await saver.update('lg', { steps: ['y'] });
    expect(cp.prune({ keepLast: 1 })).toBe(2);

    const reopened = createCheckpointer({ state: Run, storage: checkpointFiles(dir, { fsync: false }) });
    expect(reopened.history('rx').map((c) => c.values.steps.join(','))).toEqual(['a,b,c']);
    expect((await saverBackend(dir).open().history('lg')).map((r) => r.values.steps.join(','))).toEqual(['x,y', 'x']);
  });
});
