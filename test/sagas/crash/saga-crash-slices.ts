import { appendFileSync, fsyncSync, openSync, closeSync } from 'node:fs';
import { z } from 'zod';
import { append, defineSaga, defineSlice, step } from '../../../src/index';
import {
  SagaCompensating,
  SagaCompensationFailed,
  SagaCompleted,
  SagaFailed,
  SagaStarted,
  SagaStepCompensated,
  SagaStepFailed,
  SagaStepStarted,
  SagaStepSucceeded,
} from '../../../src/sagas/saga-events';

/** One saga-log entry as the test keeps it (in commit order): short type, saga id, step. */
export interface LogEntry {
  readonly type: string;
  readonly sagaId: string;
  readonly step?: string;
  readonly resumed?: boolean;
}

const entry = (type: string, p: { sagaId: string; step?: string; resumed?: boolean }): LogEntry => ({
  type,
  sagaId: p.sagaId,
  ...(p.step === undefined ? {} : { step: p.step }),
  ...(p.resumed === undefined ? {} : { resumed: p.resumed }),
});

/**
 * The saga log kept in a log slice: each saga event appends its entry in the same journal record
 * as the event itself, so the durable log is exactly the committed saga events.
 */
export const SagaLog = defineSlice('sagaCrash/log', {
  policy: 'log',
  schema: z.object({ type: z.string(), sagaId: z.string(), step: z.string().optional(), resumed: z.boolean().optional() }),
  reducers: ({ on }) => [
    on(SagaStarted, (_v, e) => append(entry('started', e.payload))),
    on(SagaStepStarted, (_v, e) => append(entry('stepStarted', e.payload))),
    on(SagaStepSucceeded, (_v, e) => append(entry('stepSucceeded', e.payload))),
    on(SagaStepFailed, (_v, e) => append(entry('stepFailed', e.payload))),
    on(SagaCompensating, (_v, e) => append(entry('compensating', e.payload as { sagaId: string; step?: string }))),
    on(SagaStepCompensated, (_v, e) => append(entry('stepCompensated', e.payload))),
    on(SagaCompensationFailed, (_v, e) => append(entry('compensationFailed', e.payload))),
    on(SagaCompleted, (_v, e) => append(entry('completed', e.payload))),
    on(SagaFailed, (_v, e) => append(entry('failed', e.payload))),
  ],
});

export const STEPS = ['createResources', 'configureNetworking', 'deployApplication'] as const;

/** Input of a crash saga: `fail` makes the third step fail (after its external call). */
const Input = z.object({ fail: z.boolean() });

/**
 * The external service: every call appends `<kind> <key> <pid> <lastSeq>` to an append-only file
 * and fsyncs it before the step's result is returned (what the service did survives any crash).
 */
export function externalCall(file: string, kind: 'run' | 'compensate' | 'resume', key: string, lastSeq: number): void {
  const fd = openSync(file, 'a');
  try {
    appendFileSync(fd, `${kind} ${key} ${process.pid} ${lastSeq}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The 3-step deployment saga of the crash suite, its calls going to `file`; `lastSeq()` is the session's. */
export function crashSaga(file: string, lastSeq: () => number) {
  const s = (name: (typeof STEPS)[number]) =>
    step(name, {
      run: async (input: { fail: boolean }, ctx) => {
        externalCall(file, 'run', ctx.idempotencyKey, lastSeq());
        if (name === 'deployApplication' && input.fail) throw new Error('deploy failed');
        return { done: ctx.idempotencyKey };
      },
      compensate: async (_r: unknown, ctx) => {
        externalCall(file, 'compensate', ctx.idempotencyKey, lastSeq());
        return undefined;
      },
    });
  return defineSaga('deployment', { input: Input, steps: [s('createResources'), s('configureNetworking'), s('deployApplication')] });
}
