// An attached checkpointer records what the session committed (issue 37, "An attached
// checkpointer keeps what was undone"): the thread's latest checkpoint equals the session's
// committed state after every kind of change of the state slice, and a transaction's rolled-back
// work is never recorded, on memory and on checkpointFiles through a reopen.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { add, createCheckpointer, createSession, defineEvent, defineState, field, memoryCheckpoints, type CheckpointStorage, type Session } from '../../src/index';
import { checkpointFiles, flightRecorder, jsonl, readRecording } from '../../src/jsonl/index';

const Run = defineState('run', {
  steps: field(z.array(z.string()), { reducer: add, default: [] }),
  phase: field(z.string(), { default: 'start' }),
});
const step = (s: string) => Run.update({ steps: [s] });

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const freshDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'rxslice-attach-'));
  dirs.push(d);
  return d;
};

const committed = (session: Session) => session.slice(Run).latest();
const stepsOf = (values: { steps: readonly string[] } | undefined) => values?.steps.join(',');

/** The run: plan, code; restore to after plan; test; a transaction that adds oops and throws. */
function undoRun(session: Session): void {
  session.dispatch(step('plan'));
  const afterPlan = session.snapshot();
  session.dispatch(step('code'));
  session.restore(afterPlan);
  session.dispatch(step('test'));
  expect(() =>
    session.transaction(() => {
      session.dispatch(step('oops'));
      throw new Error('abort');
    }),
  ).toThrow('abort');
}

describe.each<[string, () => CheckpointStorage]>([
  ['memory', () => memoryCheckpoints()],
  ['checkpointFiles', () => checkpointFiles(freshDir(), { fsync: false })],
])('attach on %s', (_name, storage) => {
  it('a restore and a rolled-back transaction: the latest checkpoint is the committed state, and no checkpoint holds the undone work', () => {
    const cp = createCheckpointer({ state: Run, storage: storage() });
    const session = createSession({ slices: [Run] });
    cp.attach(session, 't1');
    undoRun(session);
    expect(committed(session)?.steps).toEqual(['plan', 'test']);
    expect(cp.latest('t1')?.values).toEqual(committed(session));
    // Newest first: test, the restore (back to plan), code, plan. The restore is a checkpoint of its own.
    const history = cp.history('t1');
    expect(history.map((c) => stepsOf(c.values))).toEqual(['plan,test', 'plan', 'plan,code', 'plan']);
    expect(history.map((c) => c.metadata.source)).toEqual(['loop', 'update', 'loop', 'input']);
    expect(history[1]?.metadata['event']).toBe('rxslice.session.restored');
    // Every checkpoint's parent is the one before it.
    for (let i = 0; i < history.length - 1; i++) expect(history[i]?.parentId).toBe(history[i + 1]?.id);
    // A fork from the latest continues from the committed state.
    const latest = cp.latest('t1');
    cp.fork('t1', latest!.id, 't2');
    cp.put('t2', [{ steps: ['deploy'] }]);
    expect(cp.latest('t2')?.values.steps).toEqual(['plan', 'test', 'deploy']);
  });

  it('reset, seed, clear, a partial restore, a run-time reducer and a middleware that changes the outcome are each recorded as committed', () => {
    const Pinned = defineEvent('run/pinned', z.object({ phase: z.string() }));
    const cp = createCheckpointer({ state: Run, storage: storage() });
    const session = createSession({
      slices: [Run],
      events: [Pinned],
      middleware: {
        reducers: [
          // Doubles every step of an update whose phase is "double": the outcome differs from the update's delta.
          (ctx, next) => {
            const op = next();
            const item = ctx.event.type === 'run/updated' && op.kind === 'replace' ? (op.items[0] as { steps: string[]; phase: string } | undefined) : undefined;
            return item?.phase === 'double' ? { ...op, items: [{ ...item, steps: [...item.steps, ...item.steps] }] } : op;
          },
        ],
      },
    });
    cp.attach(session, 't1');
    const expectInSync = () => expect(cp.latest('t1')?.values).toEqual(committed(session) ?? Run.defaults);
    session.dispatch(step('a'));
    expectInSync();
    session.reset();
    expectInSync();
    session.slice(Run).seed([{ steps: ['seeded'], phase: 'p' }]);
    expectInSync();
    session.slice(Run).clear();
    expectInSync();
    session.dispatch(step('b'));
    const snap = session.snapshot({ include: [Run] });
    session.dispatch(step('c'));
    session.restore(snap, { slices: [Run] });
    expectInSync();
    session.slice(Run).register(Pinned, (view, e) => ({ kind: 'replace', items: [{ ...(view.latest() ?? Run.defaults), phase: e.payload.phase }] }) as never);
    session.dispatch(Pinned({ phase: 'pinned' }));
    expectInSync();
    session.dispatch(Run.update({ steps: ['x'], phase: 'double' }));
    expect(committed(session)?.steps).toEqual(['b', 'x', 'b', 'x']);
    expectInSync();
    session.dispatch(step('y')); // a delta again, on top of the full record
    expectInSync();
    expect(cp.history('t1').map((c) => c.metadata['event'] ?? c.metadata.source)).toEqual([
      'loop',
      'loop', // the middleware's outcome: recorded as committed, in full
      'run/pinned',
      'rxslice.session.restored',
      'loop',
      'loop',
      'rxslice.slice.cleared',
      'rxslice.slice.seeded',
      'rxslice.session.reset',
      'input',
    ]);
  });

  it('a transaction is recorded when the outermost commits; a nested rollback drops only its own steps; a batch that undoes its work records nothing of it', async () => {
    const cp = createCheckpointer({ state: Run, storage: storage() });
    const session = createSession({ slices: [Run] });
    cp.attach(session, 't1');
    session.dispatch(step('a'));
    session.transaction(() => {
      session.dispatch(step('b'));
      expect(stepsOf(cp.latest('t1')?.values)).toBe('a'); // held until the outermost transaction commits
      expect(() =>
        session.transaction(() => {
          session.dispatch(step('inner'));
          throw new Error('inner');
        }),
      ).toThrow('inner');
      session.dispatch(step('c'));
    });
    expect(cp.history('t1').map((c) => stepsOf(c.values))).toEqual(['a,b,c', 'a,b', 'a']);
    // An async transaction that rejects: nothing of it, before or after.
    const rejected = session.transaction(async () => {
      session.dispatch(step('async'));
      await Promise.resolve();
      expect(stepsOf(cp.latest('t1')?.values)).toBe('a,b,c');
      throw new Error('later');
    });
    await expect(rejected).rejects.toThrow('later');
    // A rollback inside a batch: the commits are published after the transaction ended.
    session.batch(() => {
      expect(() =>
        session.transaction(() => {
          session.dispatch(step('batched'));
          throw new Error('batched');
        }),
      ).toThrow('batched');
    });
    expect(committed(session)?.steps).toEqual(['a', 'b', 'c']);
    expect(cp.history('t1').map((c) => stepsOf(c.values))).toEqual(['a,b,c', 'a,b', 'a']);
    // Two updates in one batch: two deltas.
    session.batch(() => {
      session.dispatch(step('d'));
      session.dispatch(step('e'));
    });
    expect(cp.history('t1', { limit: 2 }).map((c) => stepsOf(c.values))).toEqual(['a,b,c,d,e', 'a,b,c,d']);
    expect(cp.latest('t1')?.values).toEqual(committed(session));
  });

  it('overlapping async transactions: the first one’s rollback undoes both, and neither’s work is recorded', async () => {
    const cp = createCheckpointer({ state: Run, storage: storage() });
    const session = createSession({ slices: [Run] });
    cp.attach(session, 't1');
    session.dispatch(step('start'));
    let failFirst!: (e: Error) => void;
    let finishSecond!: () => void;
    const first = session.transaction(() => {
      session.dispatch(step('first'));
      return new Promise<void>((_resolve, reject) => (failFirst = reject));
    });
    const second = session.transaction(() => {
      session.dispatch(step('second'));
      return new Promise<void>((resolve) => (finishSecond = resolve));
    });
    failFirst(new Error('first failed')); // restores the state before "first": "second" goes too
    await expect(first).rejects.toThrow('first failed');
    finishSecond();
    await second;
    expect(committed(session)?.steps).toEqual(['start']);
    expect(cp.history('t1').map((c) => stepsOf(c.values))).toEqual(['start']);
    session.dispatch(step('after'));
    expect(cp.history('t1').map((c) => stepsOf(c.values))).toEqual(['start,after', 'start']);
  });

  it('a time-travel restore from a flight recording is recorded', () => {
    const file = join(freshDir(), 'run.jsonl');
    const cp = createCheckpointer({ state: Run, storage: storage() });
    const session = createSession({ slices: [Run] });
    const recorder = flightRecorder(session, { file });
    cp.attach(session, 't1');
    session.dispatch(step('a'));
    session.dispatch(step('b'));
    recorder.close();
    readRecording(file, { slices: [Run] }).restoreTo(session, 1);
    expect(committed(session)?.steps).toEqual(['a']);
    expect(cp.latest('t1')?.values).toEqual(committed(session));
  });

  it('attaching to a session whose state is not the thread’s latest checkpoint records the session’s state first', () => {
    const store = storage();
    const cp = createCheckpointer({ state: Run, storage: store });
    cp.put('t1', [{ steps: ['old', 'run'] }]);
    const session = createSession({ slices: [Run] });
    session.dispatch(step('new'));
    cp.attach(session, 't1');
    expect(cp.latest('t1')?.values).toEqual(committed(session));
    expect(cp.latest('t1')?.metadata).toMatchObject({ source: 'update', attached: true });
    session.dispatch(step('more'));
    expect(cp.latest('t1')?.values.steps).toEqual(['new', 'more']);
    // Attaching again to a session in the same state records nothing.
    const before = cp.history('t1').length;
    cp.attach(session, 't1');
    expect(cp.history('t1')).toHaveLength(before);
  });
});

describe('attach through a reopen', () => {
  it('on checkpointFiles and a JSONL session: after both reopen, the thread and the session agree and a fork carries no undone work', () => {
    const storeDir = freshDir();
    const checkpointDir = freshDir();
    const first = createSession({ slices: [Run], storage: jsonl({ dir: storeDir, fsync: 'never' }) });
    createCheckpointer({ state: Run, storage: checkpointFiles(checkpointDir) }).attach(first, 't1');
    undoRun(first);
    first.dispose();

    const session = createSession({ slices: [Run], storage: jsonl({ dir: storeDir, fsync: 'never' }) });
    const cp = createCheckpointer({ state: Run, storage: checkpointFiles(checkpointDir) });
    expect(committed(session)?.steps).toEqual(['plan', 'test']);
    expect(cp.latest('t1')?.values).toEqual(committed(session));
    expect(cp.history('t1').some((c) => c.values.steps.includes('oops'))).toBe(false);
    const count = cp.history('t1').length;
    cp.attach(session, 't1'); // in sync: nothing to record
    expect(cp.history('t1')).toHaveLength(count);
    session.dispatch(step('deploy'));
    const fork = cp.fork('t1', cp.latest('t1')!.id, 'retry');
    expect(fork.values.steps).toEqual(['plan', 'test', 'deploy']);
    session.dispose();
  });
});
