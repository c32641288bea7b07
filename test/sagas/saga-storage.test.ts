import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EMPTY, filter, lastValueFrom } from 'rxjs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

/** When `failIf` is set, a write whose text it matches fails as a full disk would. */
const disk = vi.hoisted(() => ({ failIf: undefined as ((text: string) => boolean) | undefined }));
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  return {
    ...fs,
    writeSync: (fd: number, data: string | NodeJS.ArrayBufferView, ...rest: unknown[]) => {
      if (disk.failIf !== undefined) {
        const text = typeof data === 'string' ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8');
        if (disk.failIf(text)) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      }
      return (fs.writeSync as (...a: unknown[]) => number)(fd, data, ...rest);
    },
  };
});
import { z } from 'zod';
import { append, createSession, defineEvent, defineSaga, defineSlice, type RxSliceError } from '../../src/index';
import { jsonl } from '../../src/jsonl/index';
import { SagaCompleted } from '../../src/sagas/saga-events';

/**
 * "Reported means stored" for sagas (issue 37): `runSaga`'s result and `resumeSagas()`'s
 * `result$` report success only once every transition of the run was recorded; a transition the
 * storage failed to write (or a reducer rejected) ends the run with `SagaNotRecordedError`, whose
 * `cause` is the session's error, on the observable and on `errors$`.
 */

const Input = z.object({ app: z.string() });
const ReleaseRequested = defineEvent('release/requested', Input);
/** An ordinary slice, so the JSONL reopen does not depend on the seq recovery of a session with none (branch seq). */
const Releases = defineSlice('releases', { policy: 'log', schema: Input, reducers: ({ on }) => [on(ReleaseRequested, (_v, e) => append(e.payload))] });
/** Records each completed saga: its journal record is the completion's, and only the completion's. */
const Done = defineSlice('releases/done', { policy: 'log', reducers: ({ on }) => [on(SagaCompleted, (_v, e) => append(e.payload.sagaId))] });
const completionRecord = (text: string): boolean => text.includes('"releases/done"');

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rxslice-saga-storage-'));
});
afterEach(() => {
  disk.failIf = undefined;
  rmSync(dir, { recursive: true, force: true });
});

function deploySaga(calls: string[], second: () => unknown = () => 'b') {
  return defineSaga('deploy', { input: Input })
    .step('build', {
      run: (input) => {
        calls.push(`build ${input.app}`);
        return 'a';
      },
    })
    .step('ship', {
      run: () => {
        calls.push('ship');
        return second();
      },
    });
}

const open = (saga: ReturnType<typeof deploySaga>) =>
  createSession({ slices: [Releases, Done], sagas: [saga], storage: jsonl({ dir, fsync: 'never' }) });

const codes = (errors: RxSliceError[]) => errors.map((e) => e.code);

describe('reported means stored: sagas on JSONL storage', () => {
  it('runSaga errors with SagaNotRecordedError (cause StorageFailedError) when the completion is not written, and a reopen resumes the saga', async () => {
    const calls: string[] = [];
    const Deploy = deploySaga(calls);
    const a = open(Deploy);
    const errors: RxSliceError[] = [];
    a.errors$.subscribe((e) => errors.push(e));
    disk.failIf = completionRecord;
    const outcome = lastValueFrom(a.runSaga(Deploy, { app: 'web' }, { sagaId: 'd1' }));
    await expect(outcome).rejects.toMatchObject({ code: 'SAGA_NOT_RECORDED', saga: 'deploy', sagaId: 'd1', transition: 'rxslice.saga.completed', cause: { code: 'STORAGE_FAILED' } });
    expect(codes(errors)).toEqual(['STORAGE_FAILED', 'SAGA_NOT_RECORDED']);
    a.dispose();
    disk.failIf = undefined;

    const b = open(Deploy);
    expect(b.read('rxslice/sagas')).toMatchObject([{ sagaId: 'd1', phase: 'running', completed: [{ step: 'build', result: 'a' }, { step: 'ship', result: 'b' }] }]);
    expect(b.read(Done)).toEqual([]);
    const [resumed] = b.resumeSagas();
    await expect(lastValueFrom(resumed?.result$ ?? EMPTY)).resolves.toEqual({ build: 'a', ship: 'b' });
    expect(calls).toEqual(['build web', 'ship']); // recorded steps did not run again
    b.dispose();
    const c = open(Deploy);
    expect(c.read('rxslice/sagas')).toEqual([]);
    expect(c.read(Done)).toEqual(['d1']);
    c.dispose();
  });

  it('resumeSagas: a result$ whose writes fail reports the failure, never success, and the saga stays unfinished for the next open', async () => {
    const calls: string[] = [];
    let release!: (value: string) => void;
    const Deploy = deploySaga(calls, () => new Promise<string>((resolve) => (release = resolve)));
    const a = open(Deploy);
    a.runSaga(Deploy, { app: 'web' }, { sagaId: 'd1' }).subscribe({ error: () => undefined });
    expect(calls).toEqual(['build web', 'ship']);
    a.dispose(); // the process stops while "ship" is in flight

    const b = open(Deploy);
    const errors: RxSliceError[] = [];
    b.errors$.subscribe((e) => errors.push(e));
    disk.failIf = (text) => text.includes('"rxslice/sagas"'); // every write of the saga's progress
    const [resumed] = b.resumeSagas();
    const outcome = lastValueFrom(resumed?.result$ ?? EMPTY);
    release('b');
    await expect(outcome).rejects.toMatchObject({ code: 'SAGA_NOT_RECORDED', transition: 'rxslice.saga.stepSucceeded', cause: { code: 'STORAGE_FAILED' } });
    expect(codes(errors)).toEqual(['STORAGE_FAILED', 'SAGA_NOT_RECORDED']);
    b.dispose();
    disk.failIf = undefined;

    const c = open(Deploy);
    expect(c.read('rxslice/sagas')).toMatchObject([{ sagaId: 'd1', phase: 'running', completed: [{ step: 'build' }] }]);
    const [again] = c.resumeSagas();
    const done = lastValueFrom(again?.result$ ?? EMPTY);
    release('b2');
    await expect(done).resolves.toEqual({ build: 'a', ship: 'b2' });
    c.dispose();
    const d = open(Deploy);
    expect(d.read('rxslice/sagas')).toEqual([]);
    d.dispose();
  });

  it('a saga run from a subscriber (its transitions queued behind the event being processed) reports only after its completion is written', () => {
    const calls: string[] = [];
    const Deploy = deploySaga(calls);
    const a = open(Deploy);
    const seen: string[] = [];
    a.committed$.pipe(filter((c) => ReleaseRequested.match(c.event))).subscribe((c) => {
      a.runSaga(Deploy, (c.event as ReturnType<typeof ReleaseRequested>).payload, { sagaId: 'd1' }).subscribe({
        next: () => seen.push(`next (done: ${JSON.stringify(a.read(Done))})`),
        error: (e: RxSliceError) => seen.push(`error ${e.code} ${(e.cause as RxSliceError | undefined)?.code}`),
      });
      seen.push('runSaga returned');
    });
    disk.failIf = completionRecord;
    a.dispatch(ReleaseRequested({ app: 'web' }));
    expect(seen).toEqual(['runSaga returned', 'error SAGA_NOT_RECORDED STORAGE_FAILED']);
    a.dispose();
  });

  it('the same queued run reports success once its completion is committed, with the completion already readable', () => {
    const Deploy = deploySaga([]);
    const a = open(Deploy);
    const seen: string[] = [];
    a.committed$.pipe(filter((c) => ReleaseRequested.match(c.event))).subscribe(() => {
      a.runSaga(Deploy, { app: 'web' }, { sagaId: 'd1' }).subscribe({ next: () => seen.push(`next (done: ${JSON.stringify(a.read(Done))})`) });
      seen.push('runSaga returned');
    });
    a.dispatch(ReleaseRequested({ app: 'web' }));
    expect(seen).toEqual(['runSaga returned', 'next (done: ["d1"])']);
    a.dispose();
  });
});

describe('reported means recorded: sagas on memory storage', () => {
  /** A slice whose reducer rejects the completion of saga "bad". */
  const Picky = defineSlice('picky', {
    policy: 'log',
    reducers: ({ on }) => [
      on(SagaCompleted, (_v, e) => {
        if (e.payload.sagaId === 'bad') throw new Error('picky refuses');
        return append(e.payload.sagaId);
      }),
    ],
  });

  it('a completion a reducer rejects ends runSaga with SagaNotRecordedError (cause ReducerError); the saga stays unfinished and resumes', async () => {
    const Deploy = deploySaga([]);
    const session = createSession({ slices: [Picky], sagas: [Deploy] });
    const errors: RxSliceError[] = [];
    session.errors$.subscribe((e) => errors.push(e));
    await expect(lastValueFrom(session.runSaga(Deploy, { app: 'web' }, { sagaId: 'bad' }))).rejects.toMatchObject({
      code: 'SAGA_NOT_RECORDED',
      cause: { code: 'REDUCER_FAILED', sliceName: 'picky' },
    });
    expect(codes(errors)).toEqual(['REDUCER_FAILED', 'SAGA_NOT_RECORDED']);
    expect(session.read('rxslice/sagas')).toMatchObject([{ sagaId: 'bad', phase: 'running' }]);
    await expect(lastValueFrom(session.runSaga(Deploy, { app: 'web' }, { sagaId: 'good' }))).resolves.toEqual({ build: 'a', ship: 'b' });
  });

  it('a queued completion a reducer rejects ends the run with SagaNotRecordedError once the drain is over, never with success', async () => {
    const Deploy = deploySaga([]);
    const session = createSession({ slices: [Picky, Releases], sagas: [Deploy] });
    const seen: string[] = [];
    session.committed$.pipe(filter((c) => ReleaseRequested.match(c.event))).subscribe(() => {
      session.runSaga(Deploy, { app: 'web' }, { sagaId: 'bad' }).subscribe({ next: () => seen.push('next'), error: (e: RxSliceError) => seen.push(e.code) });
    });
    session.dispatch(ReleaseRequested({ app: 'web' }));
    expect(seen).toEqual([]);
    await Promise.resolve();
    expect(seen).toEqual(['SAGA_NOT_RECORDED']);
    expect(session.read('rxslice/sagas')).toMatchObject([{ sagaId: 'bad', phase: 'running' }]);
  });
});
