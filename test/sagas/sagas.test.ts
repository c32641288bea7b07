import { EMPTY, firstValueFrom, lastValueFrom, NEVER, of, VirtualTimeScheduler } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createSession,
  defineEvent,
  defineSaga,
  DuplicateSagaError,
  InvalidSagaDefinitionError,
  InvalidSagaInputError,
  SagaFailedError,
  step,
  type CommittedEnvelope,
} from '../../src/index';

const Input = z.object({ app: z.string() });
const DeployRequested = defineEvent('deploy/requested', Input);

const sagaEvents = (log: CommittedEnvelope[]) => log.filter((c) => c.event.type.startsWith('rxslice.saga.'));

describe('defineSaga and step', () => {
  it('rejects malformed declarations with InvalidSagaDefinitionError', () => {
    const ok = step('a', { run: () => 1 });
    expect(() => defineSaga('', { input: Input, steps: [ok] })).toThrow(InvalidSagaDefinitionError);
    expect(() => defineSaga('s', { input: Input, steps: [] })).toThrow(/at least one step/);
    expect(() => defineSaga('s', { input: Input, steps: [ok, step('a', { run: () => 2 })] })).toThrow(/two steps are named "a"/);
    expect(() => defineSaga('s', { input: {} as never, steps: [ok] })).toThrow(/zod schema/);
    expect(() => step('a', { run: () => 1, timeoutMs: 0 })).toThrow(/timeoutMs/);
    expect(() => step('', { run: () => 1 })).toThrow(InvalidSagaDefinitionError);
    expect(() => step('a', {} as never)).toThrow(/run function/);
  });

  it('is inert: a frozen declaration that runs nothing', () => {
    let calls = 0;
    const Saga = defineSaga('s', { input: Input, steps: [step('a', { run: () => ++calls })] });
    expect(Object.isFrozen(Saga)).toBe(true);
    expect(Saga.steps.map((s) => s.name)).toEqual(['a']);
    expect(calls).toBe(0);
  });
});

describe('defineSaga builder form', () => {
  it('adds steps one by one; each .step returns a new frozen saga and leaves the earlier one unchanged', async () => {
    const Start = defineSaga('built', { input: Input }).withDeps<{ suffix: string }>();
    const One = Start.step('createResources', { run: (input, ctx) => ({ vmId: `vm-${input.app}${ctx.deps.suffix}` }) });
    const Two = One.step('deployApplication', { run: (input, ctx) => `${input.app}@${ctx.result('createResources').vmId}` });
    expect(Object.isFrozen(One) && Object.isFrozen(Two) && Object.isFrozen(Start)).toBe(true);
    expect(One.steps.map((s) => s.name)).toEqual(['createResources']);
    expect(Two.steps.map((s) => s.name)).toEqual(['createResources', 'deployApplication']);
    expect('steps' in Start).toBe(false);
    const session = createSession({ slices: [], sagas: [Two], dependencies: { suffix: '!' } });
    await expect(lastValueFrom(session.runSaga(Two, { app: 'web' }))).resolves.toEqual({
      createResources: { vmId: 'vm-web!' },
      deployApplication: 'web@vm-web!',
    });
  });

  it('compensates built steps in reverse with their own results, and refuses a step name used twice', async () => {
    const undone: string[] = [];
    const Saga = defineSaga('built-fail', { input: Input })
      .step('a', { run: () => 'ra', compensate: (r) => void undone.push(`a:${r}`) })
      .step('b', { run: () => 'rb', compensate: (r) => void undone.push(`b:${r}`) })
      .step('c', {
        run: () => {
          throw new Error('boom');
        },
      });
    const session = createSession({ slices: [] });
    await expect(lastValueFrom(session.runSaga(Saga, { app: 'x' }))).rejects.toBeInstanceOf(SagaFailedError);
    expect(undone).toEqual(['b:rb', 'a:ra']);
    const One = defineSaga('dup', { input: Input }).step('a', { run: () => 1 });
    expect(() => (One.step as (n: string, c: { run: () => number }) => unknown)('a', { run: () => 2 })).toThrow(/two steps are named "a"/);
    expect(() => defineSaga('', { input: Input })).toThrow(InvalidSagaDefinitionError);
    expect(() => defineSaga('s', { input: {} as never })).toThrow(/zod schema/);
  });
});

describe('runSaga', () => {
  it('runs promise, observable and plain-value steps; the first value of an observable is the result, empty gives undefined', async () => {
    const session = createSession({ slices: [] });
    const Saga = defineSaga('s', {
      input: Input,
      steps: [
        step('promise', { run: async (input) => `${input.app}-1` }),
        step('observable', { run: () => of('first', 'second') }),
        step('empty', { run: () => EMPTY }),
        step('plain', { run: (_input, ctx) => `${String(ctx.result('promise'))}+plain` }),
      ],
    });
    await expect(lastValueFrom(session.runSaga(Saga, { app: 'web' }))).resolves.toEqual({
      promise: 'web-1',
      observable: 'first',
      empty: undefined,
      plain: 'web-1+plain',
    });
  });

  it('errors with InvalidSagaInputError for a bad input and dispatches nothing', async () => {
    const session = createSession({ slices: [] });
    const Saga = defineSaga('s', { input: Input, steps: [step('a', { run: () => 1 })] });
    await expect(firstValueFrom(session.runSaga(Saga, { app: 3 } as never))).rejects.toBeInstanceOf(InvalidSagaInputError);
    expect(session.lastSeq).toBe(0);
  });

  it('fails with SagaFailedError naming the step and its cause; meta chains causation and correlates by saga id', async () => {
    const session = createSession({ slices: [] });
    const log: CommittedEnvelope[] = [];
    session.committed$.subscribe((c) => log.push(c));
    const cause = new Error('quota exceeded');
    const Saga = defineSaga('s', {
      input: Input,
      steps: [step('a', { run: () => 1, compensate: () => undefined }), step('b', { run: () => Promise.reject(cause) })],
    });
    const error = await firstValueFrom(session.runSaga(Saga, { app: 'web' }, { sagaId: 'id-1' })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SagaFailedError);
    expect(error).toMatchObject({ code: 'SAGA_FAILED', step: 'b', saga: 's', sagaId: 'id-1', cause });
    const events = sagaEvents(log);
    expect(events.map((c) => c.event.type.replace('rxslice.saga.', ''))).toEqual([
      'started',
      'stepStarted',
      'stepSucceeded',
      'stepStarted',
      'stepFailed',
      'compensating',
      'stepCompensated',
      'failed',
    ]);
    expect(events.every((c) => c.meta.correlationId === 'id-1' && c.meta.source === 'saga:s')).toBe(true);
    for (let i = 1; i < events.length; i++) expect(events[i]?.meta.causationId).toBe(events[i - 1]?.seq);
  });

  it('a step reading a result that is not there fails with SagaStepNotCompletedError', async () => {
    const session = createSession({ slices: [] });
    const Saga = defineSaga('s', { input: Input, steps: [step('a', { run: (_i, ctx) => ctx.result('later' as never) }), step('later', { run: () => 1 })] });
    const error = (await firstValueFrom(session.runSaga(Saga, { app: 'x' })).catch((e: unknown) => e)) as SagaFailedError;
    expect((error.cause as { code: string }).code).toBe('SAGA_STEP_NOT_COMPLETED');
  });

  it('rejects a sagaId that is already running with DuplicateSagaError', async () => {
    const session = createSession({ slices: [] });
    const Saga = defineSaga('s', { input: Input, steps: [step('a', { run: () => NEVER })] });
    const sub = session.runSaga(Saga, { app: 'x' }, { sagaId: 'same' }).subscribe();
    await expect(firstValueFrom(session.runSaga(Saga, { app: 'x' }, { sagaId: 'same' }))).rejects.toBeInstanceOf(DuplicateSagaError);
    sub.unsubscribe();
  });

  it('gives steps the session dependencies, or those passed to runSaga', async () => {
    const session = createSession({ slices: [], dependencies: { greeting: 'hello' } });
    const Saga = defineSaga('s', { input: Input, steps: [step('a', { run: (input, ctx) => `${(ctx.deps as { greeting: string }).greeting} ${input.app}` })] });
    await expect(lastValueFrom(session.runSaga(Saga, { app: 'web' }))).resolves.toEqual({ a: 'hello web' });
    await expect(lastValueFrom(session.runSaga(Saga, { app: 'web' }, { deps: { greeting: 'hi' } }))).resolves.toEqual({ a: 'hi web' });
  });
});

describe('startOn', () => {
  it('starts a run on each committed event (payload = input), caused by that event; failures go to errors$', () => {
    const scheduler = new VirtualTimeScheduler();
    const inputs: string[] = [];
    const Saga = defineSaga('deploy', {
      input: Input,
      startOn: DeployRequested,
      steps: [step('a', { run: (input) => (inputs.push(input.app), input.app === 'bad' ? Promise.reject(new Error('no')) : 1) })],
    });
    const session = createSession({ slices: [], scheduler, sagas: [Saga], events: [DeployRequested] });
    const log: CommittedEnvelope[] = [];
    session.committed$.subscribe((c) => log.push(c));
    const env = session.dispatch(DeployRequested({ app: 'web' }));
    const started = sagaEvents(log).find((c) => c.event.type === 'rxslice.saga.started');
    expect(started?.meta.causationId).toBe(env.seq);
    expect(started?.event.payload).toMatchObject({ saga: 'deploy', input: { app: 'web' } });
    expect(sagaEvents(log).at(-1)?.event.type).toBe('rxslice.saga.completed');
    expect(inputs).toEqual(['web']);
  });
});

describe('dispose', () => {
  it('aborts the step in flight, records nothing more, and leaves the saga unfinished for resumeSagas', async () => {
    const scheduler = new VirtualTimeScheduler();
    let signal: AbortSignal | undefined;
    const Saga = defineSaga('s', {
      input: Input,
      steps: [
        step('a', { run: () => 1 }),
        step('b', {
          run: (_i, ctx) => {
            signal = ctx.signal;
            return NEVER;
          },
        }),
      ],
    });
    const session = createSession({ slices: [], scheduler, sagas: [Saga] });
    const outcome: string[] = [];
    session.runSaga(Saga, { app: 'x' }, { sagaId: 'd' }).subscribe({ next: () => outcome.push('next'), error: () => outcome.push('error'), complete: () => outcome.push('complete') });
    const snapshot = session.snapshot();
    const seq = session.lastSeq;
    session.dispose();
    expect(signal?.aborted).toBe(true);
    expect((signal?.reason as { code: string }).code).toBe('SAGA_CANCELLED');
    expect(outcome).toEqual(['complete']); // completes without a value, as session observables do on dispose
    expect(seq).toBe(4);
    expect(snapshot.slices['rxslice/sagas']?.items).toMatchObject([{ sagaId: 'd', phase: 'running', completed: [{ step: 'a', result: 1 }] }]);
    // resumed by the next session
    const next = createSession({ slices: [], scheduler, sagas: [defineSaga('s', { input: Input, steps: [step('a', { run: () => 99 }), step('b', { run: () => 2 })] })] });
    next.restore(snapshot);
    const [resumed] = next.resumeSagas();
    await expect(lastValueFrom(resumed?.result$ ?? EMPTY)).resolves.toEqual({ a: 1, b: 2 });
  });
});

describe('progress slice', () => {
  it('holds the unfinished sagas only, with their start time, completed steps and results', () => {
    const scheduler = new VirtualTimeScheduler();
    scheduler.schedule(() => undefined, 5);
    scheduler.flush(); // the session's clock reads 5 ms
    const session = createSession({ slices: [], scheduler });
    const Saga = defineSaga('s', { input: Input, steps: [step('a', { run: () => 'ra' }), step('b', { run: () => NEVER })] });
    const sub = session.runSaga(Saga, { app: 'x' }, { sagaId: 'p' }).subscribe();
    expect(session.read('rxslice/sagas')).toEqual([
      { sagaId: 'p', saga: 's', input: { app: 'x' }, startedAt: 5, phase: 'running', completed: [{ step: 'a', result: 'ra' }], compensated: [], compensationFailures: [] },
    ]);
    sub.unsubscribe(); // cancel: nothing to compensate (a has no compensate) → failed
    expect(session.read('rxslice/sagas')).toEqual([]);
  });
});
