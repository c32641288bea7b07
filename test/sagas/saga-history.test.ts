import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lastValueFrom, NEVER, VirtualTimeScheduler } from 'rxjs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  append,
  createSession,
  defineEvent,
  defineSaga,
  defineSlice,
  InvalidSagaHistoryError,
  SagaHistorySlice,
  type SagaHistoryOptions,
  type SagaRecord,
  type Session,
  type StorageFactory,
} from '../../src/index';
import { jsonl } from '../../src/jsonl/index';

/**
 * "A finished saga leaves no record" (issue 37; issue 33 item 11): every finished saga leaves a
 * completion record in `rxslice/sagaHistory` — name, id, input, outcome, results, steps with their
 * outcomes, failure, start and end times — written in the commit of its terminal event, kept
 * under the retention the session sets, and read back after a reopen.
 */

const Input = z.object({ app: z.string(), fail: z.boolean().default(false) });
const Noted = defineEvent('notes/noted', z.string());
/** An ordinary slice: the JSONL reopen then does not depend on the seq recovery of a session with none (branch seq). */
const Notes = defineSlice('notes', { policy: 'log', reducers: ({ on }) => [on(Noted, (_v, e) => append(e.payload))] });

/** create (compensated), network (compensation fails), deploy (fails when input.fail); each takes 10 ms of scheduler time. */
function deploySaga(scheduler: VirtualTimeScheduler) {
  const after10 = <T>(value: T) => new Promise<T>((resolve) => scheduler.schedule(() => resolve(value), 10));
  return defineSaga('deploy', { input: Input })
    .step('create', { run: (input) => ({ vm: `vm-${input.app}` }), compensate: () => undefined })
    .step('network', {
      run: () => ({ net: 'n1' }),
      compensate: () => {
        throw new Error('network is stuck');
      },
    })
    .step('deploy', {
      run: (input) =>
        input.fail
          ? Promise.reject(new Error('image does not start'))
          : after10({ url: `https://${input.app}.example` }),
    });
}

interface Backend {
  readonly name: string;
  open(options: { scheduler: VirtualTimeScheduler; sagaHistory?: SagaHistoryOptions; sagas?: boolean }): Session;
  /** Ends `session` as a process would and opens the same store again. */
  reopen(session: Session, options: { scheduler: VirtualTimeScheduler; sagaHistory?: SagaHistoryOptions; sagas?: boolean }): ReturnType<Backend['open']>;
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rxslice-saga-history-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function backend(name: 'memory' | 'jsonl'): Backend {
  const storage = (): StorageFactory | undefined => (name === 'jsonl' ? jsonl({ dir, fsync: 'never' }) : undefined);
  const open: Backend['open'] = ({ scheduler, sagaHistory, sagas = true }) =>
    createSession({
      slices: [Notes],
      scheduler,
      ...(sagas ? { sagas: [deploySaga(scheduler)] } : {}),
      ...(sagaHistory === undefined ? {} : { sagaHistory }),
      ...(storage() === undefined ? {} : { storage: storage() as StorageFactory }),
    });
  return {
    name,
    open,
    reopen(session, options) {
      if (name === 'jsonl') {
        session.dispose();
        return open(options);
      }
      // Memory storage: what a process keeps is a snapshot; the next one restores it.
      const snapshot = session.snapshot();
      session.dispose();
      const next = open(options);
      next.restore(snapshot);
      return next;
    },
  };
}

/** Waits for `promise`, flushing the virtual clock between turns of the event loop (the steps mix promises and scheduler delays). */
async function settle<T>(scheduler: VirtualTimeScheduler, promise: Promise<T>): Promise<T> {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true), // the caller reads the rejection once the loop is over
  );
  for (let i = 0; i < 100 && !settled; i++) {
    scheduler.flush();
    await new Promise((r) => setImmediate(r));
  }
  return promise;
}

const at = (scheduler: VirtualTimeScheduler, ms: number) => {
  scheduler.schedule(() => undefined, ms - scheduler.now());
  scheduler.flush();
};

describe.each([backend('memory'), backend('jsonl')])('saga completion records on $name storage', (store) => {
  it('records a completed, a failed and a cancelled saga (outcome, input, results, steps, failure, times) and keeps them through a reopen', async () => {
    const scheduler = new VirtualTimeScheduler();
    const Deploy = deploySaga(scheduler);
    const a = store.open({ scheduler });
    a.dispatch(Noted('before'));
    at(scheduler, 100);
    const ok = await settle(scheduler, lastValueFrom(a.runSaga(Deploy, { app: 'web', fail: false }, { sagaId: 'ok' })));
    expect(ok).toEqual({ create: { vm: 'vm-web' }, network: { net: 'n1' }, deploy: { url: 'https://web.example' } });
    at(scheduler, 200);
    await expect(settle(scheduler, lastValueFrom(a.runSaga(Deploy, { app: 'api', fail: true }, { sagaId: 'bad' })))).rejects.toMatchObject({ code: 'SAGA_FAILED' });
    at(scheduler, 300);
    const hanging = defineSaga('deploy', { input: Input }).step('create', { run: () => 'c', compensate: () => undefined }).step('wait', { run: () => NEVER });
    a.runSaga(hanging, { app: 'x', fail: false }, { sagaId: 'cancelled' }).subscribe().unsubscribe();

    const expected: SagaRecord[] = [
      {
        sagaId: 'ok',
        saga: 'deploy',
        input: { app: 'web', fail: false },
        outcome: 'completed',
        results: ok,
        steps: [
          { step: 'create', outcome: 'succeeded' },
          { step: 'network', outcome: 'succeeded' },
          { step: 'deploy', outcome: 'succeeded' },
        ],
        startedAt: 100,
        finishedAt: 110,
      },
      {
        sagaId: 'bad',
        saga: 'deploy',
        input: { app: 'api', fail: true },
        outcome: 'failed',
        results: { create: { vm: 'vm-api' }, network: { net: 'n1' } },
        steps: [
          { step: 'create', outcome: 'compensated' },
          { step: 'network', outcome: 'compensationFailed' },
          { step: 'deploy', outcome: 'failed', error: expect.objectContaining({ message: 'image does not start' }) },
        ],
        failedStep: 'deploy',
        error: expect.objectContaining({ message: 'image does not start' }),
        startedAt: 200,
        finishedAt: 200,
      },
      {
        sagaId: 'cancelled',
        saga: 'deploy',
        input: { app: 'x', fail: false },
        outcome: 'cancelled',
        results: { create: 'c' },
        steps: [{ step: 'create', outcome: 'compensated' }],
        error: expect.objectContaining({ code: 'SAGA_CANCELLED' }),
        startedAt: 300,
        finishedAt: 300,
      },
    ];
    expect(a.sagaHistory()).toEqual(expected);
    expect(a.read('rxslice/sagas')).toEqual([]);

    const b = store.reopen(a, { scheduler });
    expect(b.sagaHistory()).toEqual(expected);
    expect(b.read(SagaHistorySlice)).toBe(b.sagaHistory()); // the slice's own array
    b.dispose();
  });

  it('writes the record in the commit of the terminal event, so it is there when runSaga reports', async () => {
    const scheduler = new VirtualTimeScheduler();
    const Deploy = deploySaga(scheduler);
    const a = store.open({ scheduler });
    const changed: string[][] = [];
    a.committed$.subscribe((c) => c.event.type === 'rxslice.saga.completed' && changed.push([...c.changed].sort()));
    let seenOnReport: readonly SagaRecord[] = [];
    const done = lastValueFrom(a.runSaga(Deploy, { app: 'web', fail: false }, { sagaId: 'd1' }));
    void done.then(() => (seenOnReport = a.sagaHistory()));
    await settle(scheduler, done);
    expect(changed).toEqual([['rxslice/sagaHistory', 'rxslice/sagas']]);
    expect(seenOnReport.map((r) => r.sagaId)).toEqual(['d1']);
    a.dispose();
  });

  it('a saga resumed after a reopen is recorded with the start time of its first process', async () => {
    const scheduler = new VirtualTimeScheduler();
    const Deploy = deploySaga(scheduler);
    const a = store.open({ scheduler });
    a.dispatch(Noted('before'));
    at(scheduler, 50);
    a.runSaga(Deploy, { app: 'web', fail: false }, { sagaId: 'r1' }).subscribe();
    scheduler.flush(); // "deploy" waits 10 ms: stop in flight, at 50
    const b = store.reopen(a, { scheduler });
    expect(b.sagaHistory()).toEqual([]);
    const [resumed] = b.resumeSagas();
    await settle(scheduler, lastValueFrom(resumed!.result$));
    expect(b.sagaHistory()).toMatchObject([{ sagaId: 'r1', outcome: 'completed', startedAt: 50 }]);
    b.dispose();
  });

  it('keeps the newest keepLast records, and none older than maxAgeMs; a session opened without sagas reads them too', async () => {
    const scheduler = new VirtualTimeScheduler();
    const Deploy = deploySaga(scheduler);
    const a = store.open({ scheduler, sagaHistory: { keepLast: 2, maxAgeMs: 1_000 } });
    for (const [i, t] of [0, 100, 200].entries()) {
      at(scheduler, t);
      await settle(scheduler, lastValueFrom(a.runSaga(Deploy, { app: `a${i}`, fail: false }, { sagaId: `s${i}` })));
    }
    expect(a.sagaHistory().map((r) => r.sagaId)).toEqual(['s1', 's2']);
    at(scheduler, 1_150); // s1 finished at 110: older than 1 s now
    expect(a.sagaHistory().map((r) => r.sagaId)).toEqual(['s2']);
    expect(a.read(SagaHistorySlice).map((r) => r.sagaId)).toEqual(['s1', 's2']); // dropped from the slice when the next saga finishes
    await settle(scheduler, lastValueFrom(a.runSaga(Deploy, { app: 'a3', fail: false }, { sagaId: 's3' })));
    expect(a.read(SagaHistorySlice).map((r) => r.sagaId)).toEqual(['s2', 's3']);

    const b = store.reopen(a, { scheduler, sagas: false, sagaHistory: { keepLast: 2, maxAgeMs: 1_000 } });
    expect(b.sagaHistory().map((r) => r.sagaId)).toEqual(['s2', 's3']);
    b.dispose();
  });
});

describe('saga history options', () => {
  it('refuses an impossible retention with InvalidSagaHistoryError naming the option', () => {
    expect(() => createSession({ slices: [], sagaHistory: { keepLast: -1 } })).toThrow(InvalidSagaHistoryError);
    expect(() => createSession({ slices: [], sagaHistory: { keepLast: 1.5 } })).toThrow(/sagaHistory\.keepLast must be an integer >= 0, got 1.5/);
    expect(() => createSession({ slices: [], sagaHistory: { maxAgeMs: -5 } })).toThrow(expect.objectContaining({ code: 'INVALID_SAGA_HISTORY', option: 'maxAgeMs' }));
  });

  it('keeps the newest 100 records by default; keepLast 0 keeps none', async () => {
    const scheduler = new VirtualTimeScheduler();
    const Quick = defineSaga('quick', { input: z.object({}) }).step('only', { run: () => 1 });
    const session = createSession({ slices: [], scheduler, sagas: [Quick] });
    for (let i = 0; i < 105; i++) await lastValueFrom(session.runSaga(Quick, {}, { sagaId: `q${i}` }));
    expect(session.sagaHistory()).toHaveLength(100);
    expect(session.sagaHistory()[0]?.sagaId).toBe('q5');
    const none = createSession({ slices: [], scheduler, sagas: [Quick], sagaHistory: { keepLast: 0 } });
    await lastValueFrom(none.runSaga(Quick, {}));
    expect(none.sagaHistory()).toEqual([]);
  });
});

describe('a saga-only JSONL session (slices: [], the saga guide\'s shape; issue 37)', () => {
  it('keeps its place: resumed after a reopen, finished, recorded; the third open has nothing to resume', async () => {
    const calls: string[] = [];
    let release!: (v: string) => void;
    const Deploy = defineSaga('deploy', { input: z.object({ app: z.string() }) })
      .step('build', { run: () => (calls.push('build'), 'a') })
      .step('ship', {
        run: () =>
          new Promise<string>((resolve) => {
            calls.push('ship');
            release = resolve;
          }),
      });
    const open = () => createSession({ slices: [], sagas: [Deploy], storage: jsonl({ dir, fsync: 'never' }) });
    const a = open();
    a.runSaga(Deploy, { app: 'web' }, { sagaId: 'd1' }).subscribe({ error: () => undefined });
    const stored = a.lastSeq;
    expect(stored).toBeGreaterThan(0);
    a.dispose();
    const b = open();
    expect(b.lastSeq).toBe(stored);
    const [resumed] = b.resumeSagas();
    const done = lastValueFrom(resumed!.result$);
    release('b');
    await expect(done).resolves.toEqual({ build: 'a', ship: 'b' });
    expect(calls).toEqual(['build', 'ship', 'ship']);
    const finished = b.lastSeq;
    b.dispose();
    const c = open();
    expect(c.lastSeq).toBe(finished);
    expect(c.read('rxslice/sagas')).toEqual([]);
    expect(c.resumeSagas()).toEqual([]);
    expect(c.sagaHistory()).toMatchObject([{ sagaId: 'd1', saga: 'deploy', outcome: 'completed', results: { build: 'a', ship: 'b' } }]);
    c.dispose();
  });
});
