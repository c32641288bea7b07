import { filter, map, type Observable } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createSession, defineSaga, RetryPolicy, SagaStepRetrying, step, type Session } from '../src/index';

let scheduler: TestScheduler;
beforeEach(() => {
  scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
});

const Input = z.object({ app: z.string() });

/** The saga transitions on `committed$`, as short strings: `stepStarted a 1`, `stepCompensated b`, ... */
function trace$(session: Session): Observable<string> {
  return session.committed$.pipe(
    filter((c) => c.event.type.startsWith('rxslice.saga.')),
    map((c) => {
      const kind = c.event.type.slice('rxslice.saga.'.length);
      const p = c.event.payload as { step?: string; attempt?: number; attempts?: number; reason?: string; steps?: string[]; delayMs?: number; error?: { message: string; code?: string } };
      if (kind === 'stepStarted' || kind === 'stepSucceeded') return `${kind} ${p.step} ${p.attempt}`;
      if (kind === 'stepRetrying' || kind === 'compensationRetrying') return `${kind} ${p.step} ${p.attempt} in ${p.delayMs}ms (${p.error?.code ?? p.error?.message})`;
      if (kind === 'stepFailed') return `${kind} ${p.step} after ${p.attempts}`;
      if (kind === 'compensating') return `${kind} ${p.reason} [${(p.steps ?? []).join(',')}]`;
      if (kind === 'stepCompensated' || kind === 'compensationFailed') return `${kind} ${p.step}`;
      if (kind === 'failed') return `${kind} ${p.step ?? '(cancelled)'}`;
      return kind;
    }),
  );
}

describe('sagas in virtual time', () => {
  it('runs steps in order, each subscribed when the previous one emitted, and emits every result by name', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const session = createSession({ slices: [], scheduler });
      const a$ = cold('--a|', { a: { vmId: 'vm-1' } });
      const b$ = cold('---b|', { b: { networkId: 'net-1' } });
      const c$ = cold('-c|', { c: { url: 'https://web' } });
      const seen: unknown[] = [];
      const Saga = defineSaga('deploy', {
        input: Input,
        steps: [
          step('a', { run: () => a$ }),
          step('b', {
            run: (_input, ctx) => {
              seen.push(ctx.result('a'));
              return b$;
            },
          }),
          step('c', { run: () => c$ }),
        ],
      });
      const log = timeline(session);
      expectObservable(session.runSaga(Saga, { app: 'web' }, { sagaId: 's1' })).toBe('------(r|)', {
        r: { a: { vmId: 'vm-1' }, b: { networkId: 'net-1' }, c: { url: 'https://web' } },
      });
      expectSubscriptions(a$.subscriptions).toBe('^-!');
      expectSubscriptions(b$.subscriptions).toBe('--^--!');
      expectSubscriptions(c$.subscriptions).toBe('-----^!');
      scheduler.flush();
      expect(log).toEqual([
        '0 started',
        '0 stepStarted a 1',
        '2 stepSucceeded a 1',
        '2 stepStarted b 1',
        '5 stepSucceeded b 1',
        '5 stepStarted c 1',
        '6 stepSucceeded c 1',
        '6 completed',
      ]);
      expect(seen).toEqual([{ vmId: 'vm-1' }]);
      expect(session.read('rxslice/sagas')).toEqual([]); // finished sagas leave the progress slice
    });
  });

  it('times out a slow attempt on the scheduler (aborting ctx.signal), retries after the policy delay, then compensates', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const session = createSession({ slices: [], scheduler });
      const a$ = cold('a|', { a: 1 });
      const slow$ = cold('--------b|', { b: 2 });
      const undo$ = cold('----u|', { u: true });
      const reasons: string[] = [];
      const undone: unknown[] = [];
      const Saga = defineSaga('deploy', {
        input: Input,
        steps: [
          step('a', {
            run: () => a$,
            compensate: (result, ctx) => {
              undone.push([result, ctx.idempotencyKey]);
              return undo$;
            },
          }),
          step('b', {
            timeoutMs: 5,
            retry: RetryPolicy.fixed(3, 1),
            run: (_input, ctx) => {
              ctx.signal.addEventListener('abort', () => reasons.push((ctx.signal.reason as { code: string }).code));
              return slow$;
            },
          }),
        ],
      });
      const log = timeline(session);
      expectObservable(outcome$(session.runSaga(Saga, { app: 'web' }, { sagaId: 's1' }))).toBe('17ms (e|)', { e: 'SAGA_FAILED b SAGA_STEP_TIMEOUT' });
      expectSubscriptions(a$.subscriptions).toBe('(^!)');
      expectSubscriptions(slow$.subscriptions).toBe(['^----!', '8ms ^----!']);
      expectSubscriptions(undo$.subscriptions).toBe('13ms ^---!');
      scheduler.flush();
      expect(log).toEqual([
        '0 started',
        '0 stepStarted a 1',
        '0 stepSucceeded a 1',
        '0 stepStarted b 1',
        '5 stepRetrying b 2 in 3ms (SAGA_STEP_TIMEOUT)',
        '8 stepStarted b 2',
        '13 stepFailed b after 2',
        '13 compensating failed [a]',
        '17 stepCompensated a',
        '17 failed b',
      ]);
      expect(reasons).toEqual(['SAGA_STEP_TIMEOUT', 'SAGA_STEP_TIMEOUT']);
      expect(undone).toEqual([[1, 's1/a/compensate']]);
    });
  });

  it('retries a failing step with exponential backoff on the scheduler, with the same idempotency key on every attempt', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const session = createSession({ slices: [], scheduler });
      const fail$ = cold('-#', undefined, new Error('503'));
      const ok$ = cold('-v|', { v: 'done' });
      const keys: string[] = [];
      const Saga = defineSaga('deploy', {
        input: Input,
        steps: [
          step('flaky', {
            retry: RetryPolicy.exponential({ maxAttempts: 3, initialDelayMs: 10, factor: 2 }),
            run: (_input, ctx) => {
              keys.push(`${ctx.idempotencyKey}#${ctx.attempt}`);
              return ctx.attempt < 3 ? fail$ : ok$;
            },
          }),
        ],
      });
      // attempt 1 at 0 fails at 1; +10 → attempt 2 at 11 fails at 12; +20 → attempt 3 at 32 succeeds at 33
      const log = timeline(session);
      expectObservable(session.runSaga(Saga, { app: 'web' }, { sagaId: 's1' })).toBe('33ms (r|)', { r: { flaky: 'done' } });
      expectSubscriptions(fail$.subscriptions).toBe(['^!', '11ms ^!']);
      expectSubscriptions(ok$.subscriptions).toBe('32ms ^!');
      scheduler.flush();
      expect(log).toEqual([
        '0 started',
        '0 stepStarted flaky 1',
        '1 stepRetrying flaky 2 in 10ms (503)',
        '11 stepStarted flaky 2',
        '12 stepRetrying flaky 3 in 20ms (503)',
        '32 stepStarted flaky 3',
        '33 stepSucceeded flaky 3',
        '33 completed',
      ]);
      expect(keys).toEqual(['s1/flaky#1', 's1/flaky#2', 's1/flaky#3']);
    });
  });

  it('leaves a trace between the two stepStarted of a retried step: stepRetrying with the attempt, the delay and the error, as plain data', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const session = createSession({ slices: [], scheduler });
      const fail$ = cold('--#', undefined, Object.assign(new Error('busy'), { code: 'E_BUSY' }));
      const ok$ = cold('-v|', { v: 'charged' });
      const Saga = defineSaga('checkout', {
        input: Input,
        steps: [step('charge', { retry: RetryPolicy.fixed(5, 1), run: (_input, ctx) => (ctx.attempt === 1 ? fail$ : ok$) })],
      });
      const events$ = session.committed$.pipe(
        filter((c) => c.event.type === 'rxslice.saga.stepStarted' || c.event.type === 'rxslice.saga.stepRetrying'),
        map((c) => c.event),
      );
      // attempt 1 at 0 fails at 2 (stepRetrying at 2), attempt 2 starts 5 ms later at 7 and succeeds at 8.
      expectObservable(events$).toBe('s-r----t', {
        s: { type: 'rxslice.saga.stepStarted', payload: { sagaId: 'c1', saga: 'checkout', step: 'charge', attempt: 1 } },
        r: {
          type: 'rxslice.saga.stepRetrying',
          payload: { sagaId: 'c1', saga: 'checkout', step: 'charge', attempt: 2, delayMs: 5, error: { name: 'Error', message: 'busy', code: 'E_BUSY' } },
        },
        t: { type: 'rxslice.saga.stepStarted', payload: { sagaId: 'c1', saga: 'checkout', step: 'charge', attempt: 2 } },
      });
      expectObservable(session.runSaga(Saga, { app: 'shop' }, { sagaId: 'c1' })).toBe('8ms (r|)', { r: { charge: 'charged' } });
      expectSubscriptions(fail$.subscriptions).toBe('^-!');
      expectSubscriptions(ok$.subscriptions).toBe('7ms ^!');
    });
  });

  it('chains stepRetrying into the saga log: correlated by saga id, caused by the stepStarted before it, and SagaStepRetrying.match narrows it', () => {
    scheduler.run(({ cold }) => {
      const session = createSession({ slices: [], scheduler });
      const Saga = defineSaga('checkout', {
        input: Input,
        steps: [step('charge', { retry: RetryPolicy.fixed(1, 1), run: (_input, ctx) => (ctx.attempt === 1 ? cold<number>('-#', undefined, new Error('busy')) : cold('-v|', { v: 1 })) })],
      });
      const seen: { seq: number; type: string; causationId: number | undefined; correlationId: string | undefined }[] = [];
      const retries: number[] = [];
      session.committed$.subscribe((c) => {
        if (c.event.type.startsWith('rxslice.saga.')) seen.push({ seq: c.seq, type: c.event.type, causationId: c.meta.causationId, correlationId: c.meta.correlationId });
        if (SagaStepRetrying.match(c.event)) retries.push(c.event.payload.delayMs);
      });
      session.runSaga(Saga, { app: 'shop' }, { sagaId: 'c2' }).subscribe();
      scheduler.flush();
      const started = seen.find((e) => e.type === 'rxslice.saga.stepStarted');
      const retrying = seen.find((e) => e.type === 'rxslice.saga.stepRetrying');
      expect(retrying).toEqual({ seq: (started?.seq ?? 0) + 1, type: 'rxslice.saga.stepRetrying', causationId: started?.seq, correlationId: 'c2' });
      expect(seen.filter((e) => e.type === 'rxslice.saga.stepStarted')[1]?.causationId).toBe(retrying?.seq);
      expect(retries).toEqual([1]);
    });
  });

  it('retries a failing compensation under the step policy and leaves compensationRetrying between its attempts', () => {
    scheduler.run(({ cold, expectSubscriptions }) => {
      const session = createSession({ slices: [], scheduler });
      const undoFails$ = cold('-#', undefined, new Error('locked'));
      const undoOk$ = cold('-u|', { u: true });
      let undoAttempts = 0;
      const Saga = defineSaga('checkout', {
        input: Input,
        steps: [
          step('reserve', {
            retry: RetryPolicy.fixed(4, 2),
            run: () => cold('-r|', { r: 'room 1' }),
            compensate: () => (++undoAttempts === 1 ? undoFails$ : undoOk$),
          }),
          step('pay', { run: () => cold('-#', undefined, new Error('declined')) }),
        ],
      });
      const log = timeline(session);
      session.runSaga(Saga, { app: 'shop' }, { sagaId: 'c3' }).subscribe({ error: () => undefined });
      scheduler.flush();
      // reserve 0-1, pay 1-2 fails, undo attempt 1 at 2 fails at 3, +4 → attempt 2 at 7 succeeds at 8
      expectSubscriptions(undoFails$.subscriptions).toBe('--^!');
      expectSubscriptions(undoOk$.subscriptions).toBe('7ms ^!');
      expect(log.filter((t) => !/stepStarted|stepSucceeded/.test(t))).toEqual([
        '0 started',
        '2 stepFailed pay after 1',
        '2 compensating failed [reserve]',
        '3 compensationRetrying reserve 2 in 4ms (locked)',
        '8 stepCompensated reserve',
        '8 failed pay',
      ]);
    });
  });

  it('compensates the completed steps in reverse order (3 → 2 → 1), each with its own result', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const session = createSession({ slices: [], scheduler });
      const undone: string[] = [];
      const undo = (name: string) => cold('-u|', { u: name });
      const u1 = undo('1');
      const u2 = undo('2');
      const u3 = undo('3');
      const Saga = defineSaga('deploy', {
        input: Input,
        steps: [
          step('one', { run: () => cold('-r|', { r: 'r1' }), compensate: (r) => (undone.push(r), u1) }),
          step('two', { run: () => cold('-r|', { r: 'r2' }), compensate: (r) => (undone.push(r), u2) }),
          step('three', { run: () => cold('-r|', { r: 'r3' }), compensate: (r) => (undone.push(r), u3) }),
          step('four', { run: () => cold('-#', undefined, new Error('deploy failed')) }),
        ],
      });
      expectObservable(outcome$(session.runSaga(Saga, { app: 'web' }))).toBe('7ms (e|)', { e: 'SAGA_FAILED four Error' });
      expectSubscriptions(u3.subscriptions).toBe('----^!');
      expectSubscriptions(u2.subscriptions).toBe('-----^!');
      expectSubscriptions(u1.subscriptions).toBe('------^!');
      scheduler.flush();
      expect(undone).toEqual(['r3', 'r2', 'r1']);
    });
  });

  it('reports a failing compensation (errors$ and compensationFailed) and goes on compensating the earlier steps', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const session = createSession({ slices: [], scheduler });
      const u1 = cold('-u|', { u: 1 });
      const u2 = cold('-#', undefined, new Error('network gone'));
      const Saga = defineSaga('deploy', {
        input: Input,
        steps: [
          step('one', { run: () => cold('-r|', { r: 1 }), compensate: () => u1 }),
          step('two', { run: () => cold('-r|', { r: 2 }), compensate: () => u2 }),
          step('three', { run: () => cold('-#', undefined, new Error('boom')) }),
        ],
      });
      const log = timeline(session);
      const errors: string[] = [];
      session.errors$.subscribe((e) => errors.push(`${scheduler.now()} ${e.code}`));
      expectObservable(
        session.runSaga(Saga, { app: 'web' }).pipe(
          map(() => 'ok'),
          (s) => outcome$(s, (e) => `${(e as { compensationFailures: string[] }).compensationFailures.join(',')}`),
        ),
      ).toBe('5ms (e|)', { e: 'two' });
      expectSubscriptions(u2.subscriptions).toBe('---^!');
      expectSubscriptions(u1.subscriptions).toBe('----^!');
      scheduler.flush();
      expect(log.filter((t) => !/stepStarted|stepSucceeded/.test(t))).toEqual([
        '0 started',
        '3 stepFailed three after 1',
        '3 compensating failed [two,one]',
        '4 compensationFailed two',
        '5 stepCompensated one',
        '5 failed three',
      ]);
      expect(errors).toEqual(['4 SAGA_COMPENSATION_FAILED', '5 SAGA_FAILED']);
    });
  });

  it('cancels on unsubscribe: aborts the step in flight and compensates the completed steps in reverse', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const session = createSession({ slices: [], scheduler });
      const u1 = cold('-u|', { u: 1 });
      const u2 = cold('-u|', { u: 2 });
      const hang$ = cold('----------r|', { r: 3 });
      const reasons: string[] = [];
      const Saga = defineSaga('deploy', {
        input: Input,
        steps: [
          step('one', { run: () => cold('-r|', { r: 1 }), compensate: () => u1 }),
          step('two', { run: () => cold('-r|', { r: 2 }), compensate: () => u2 }),
          step('three', {
            run: (_input, ctx) => {
              ctx.signal.addEventListener('abort', () => reasons.push((ctx.signal.reason as { code: string }).code));
              return hang$;
            },
            compensate: () => cold('-u|'),
          }),
        ],
      });
      const log = timeline(session);
      expectObservable(session.runSaga(Saga, { app: 'web' }), '^----!').toBe('-');
      expectSubscriptions(hang$.subscriptions).toBe('--^--!');
      expectSubscriptions(u2.subscriptions).toBe('-----^!');
      expectSubscriptions(u1.subscriptions).toBe('------^!');
      scheduler.flush();
      expect(log.filter((t) => !/stepStarted|stepSucceeded/.test(t))).toEqual([
        '0 started',
        '5 compensating cancelled [two,one]',
        '6 stepCompensated two',
        '7 stepCompensated one',
        '7 failed (cancelled)',
      ]);
      expect(reasons).toEqual(['SAGA_CANCELLED']);
      expect(session.read('rxslice/sagas')).toEqual([]);
    });
  });
});

/** Every saga transition with the virtual time it was committed at: `'5 stepCompensated two'`. */
function timeline(session: Session): string[] {
  const log: string[] = [];
  trace$(session).subscribe((t) => log.push(`${session.scheduler.now()} ${t}`));
  return log;
}

/** The outcome of a saga run as one string: its error's code, step and cause name (or a custom description). */
function outcome$(result$: Observable<unknown>, describe?: (error: unknown) => string): Observable<string> {
  return new (result$.constructor as typeof import('rxjs').Observable<string>)((subscriber) =>
    result$.subscribe({
      next: () => undefined,
      error: (e: { code: string; step: string; cause: { code?: string; name: string } }) => {
        subscriber.next(describe !== undefined ? describe(e) : `${e.code} ${e.step} ${e.cause.code ?? e.cause.name}`);
        subscriber.complete();
      },
      complete: () => subscriber.complete(),
    }),
  );
}
