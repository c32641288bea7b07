import { RxSliceError, type ValidationIssue, formatIssues } from '../internal/errors';
import { messageOf, quote } from '../internal/quote';


/** Thrown by `defineSaga` and `step` for a malformed declaration. */
export class InvalidSagaDefinitionError extends RxSliceError {
  override readonly name = 'InvalidSagaDefinitionError';
  constructor(
    /** The saga's name. */
    readonly saga: string,
    detail: string,
  ) {
    super('INVALID_SAGA_DEFINITION', `Saga ${quote(saga)} is misconfigured: ${detail}.`);
  }
}

/** The error of `runSaga` when the input does not match the saga's schema. Nothing was dispatched. */
export class InvalidSagaInputError extends RxSliceError {
  override readonly name = 'InvalidSagaInputError';
  constructor(
    /** The saga's name. */
    readonly saga: string,
    /** What failed, as zod reports it. */
    readonly issues: readonly ValidationIssue[],
  ) {
    super('INVALID_SAGA_INPUT', `Input of saga ${quote(saga)} is invalid: ${formatIssues(issues)}. Pass a value matching defineSaga(name, { input }).`);
  }
}

/**
 * The error a failed saga ends with (and reports on `errors$` when nobody subscribed to it): the
 * step that failed and its cause, after the completed steps were compensated.
 */
export class SagaFailedError extends RxSliceError {
  override readonly name = 'SagaFailedError';
  constructor(
    /** The saga's name. */
    readonly saga: string,
    /** The saga run's id. */
    readonly sagaId: string,
    /** The failing step, or `undefined` when the saga was cancelled. */
    readonly step: string | undefined,
    cause: unknown,
    /** Steps whose compensation failed (reported separately as `SagaCompensationFailedError`). */
    readonly compensationFailures: readonly string[] = [],
  ) {
    super(
      'SAGA_FAILED',
      (step === undefined ? `Saga ${quote(saga)} (${sagaId}) was cancelled` : `Saga ${quote(saga)} (${sagaId}) failed at step ${quote(step)}: ${messageOf(cause)}`) +
        (compensationFailures.length > 0
          ? `; compensation of ${compensationFailures.map((s) => `${quote(s)}`).join(', ')} failed too (see errors$).`
          : '; the completed steps were compensated.'),
      { cause },
    );
  }
}

/** Reported on `errors$` when a compensation fails (after its retries); the rollback goes on with the earlier steps. */
export class SagaCompensationFailedError extends RxSliceError {
  override readonly name = 'SagaCompensationFailedError';
  constructor(
    /** The saga's name. */
    readonly saga: string,
    /** The saga run's id. */
    readonly sagaId: string,
    /** The step's name. */
    readonly step: string,
    cause: unknown,
  ) {
    super(
      'SAGA_COMPENSATION_FAILED',
      `Compensation of step ${quote(step)} of saga ${quote(saga)} (${sagaId}) failed: ${messageOf(cause)}. ` +
        `The rollback went on; undo ${quote(step)} by hand or make its compensate idempotent and retry it (step retry).`,
      { cause },
    );
  }
}

/** The error an attempt of a step (or compensation) fails with when it runs longer than `timeoutMs`; retried like any error. */
export class SagaStepTimeoutError extends RxSliceError {
  override readonly name = 'SagaStepTimeoutError';
  constructor(
    /** The saga's name. */
    readonly saga: string,
    /** The step's name. */
    readonly step: string,
    /** The step's timeout (ms of the session scheduler). */
    readonly timeoutMs: number,
    /** The attempt that timed out (1 for the first). */
    readonly attempt: number,
  ) {
    super('SAGA_STEP_TIMEOUT', `Attempt ${attempt} of step ${quote(step)} of saga ${quote(saga)} did not finish within ${timeoutMs} ms and was aborted. Raise timeoutMs or make the step observe ctx.signal.`);
  }
}

/** The reason of `ctx.signal` when a saga is cancelled (`runSaga` unsubscribed) or its session disposed. */
export class SagaCancelledError extends RxSliceError {
  override readonly name = 'SagaCancelledError';
  constructor(
    /** The saga's name. */
    readonly saga: string,
    /** The saga run's id. */
    readonly sagaId: string,
    reason: 'cancelled' | 'disposed',
  ) {
    super('SAGA_CANCELLED', reason === 'cancelled' ? `Saga ${quote(saga)} (${sagaId}) was cancelled.` : `Saga ${quote(saga)} (${sagaId}) stopped: its session was disposed. Resume it with resumeSagas().`);
  }
}

/** Thrown by `ctx.result(name)` for a step that has not completed (or is not part of the saga). */
export class SagaStepNotCompletedError extends RxSliceError {
  override readonly name = 'SagaStepNotCompletedError';
  constructor(
    /** The saga's name. */
    readonly saga: string,
    /** The step's name. */
    readonly step: string,
  ) {
    super('SAGA_STEP_NOT_COMPLETED', `ctx.result(${quote(step)}) in saga ${quote(saga)}: that step has not completed. Read only results of steps listed before this one.`);
  }
}

/** The error of `runSaga` when a saga with the same id is already running or unfinished in the session. */
export class DuplicateSagaError extends RxSliceError {
  override readonly name = 'DuplicateSagaError';
  constructor(
    /** The saga run's id. */
    readonly sagaId: string,
  ) {
    super('DUPLICATE_SAGA', `A saga with id ${quote(sagaId)} is already running or unfinished in this session. Pass another sagaId, or resume it with resumeSagas().`);
  }
}

/** Thrown by `resumeSagas` when an unfinished saga's definition was not given (it is then left untouched). */
export class UnknownSagaError extends RxSliceError {
  override readonly name = 'UnknownSagaError';
  constructor(
    /** The saga's name. */
    readonly saga: string,
    /** The saga run's id. */
    readonly sagaId: string,
  ) {
    super('UNKNOWN_SAGA', `Unfinished saga ${quote(saga)} (${sagaId}) has no definition in this session. Pass it: createSession({ sagas: [${saga}] }) or resumeSagas({ sagas: [...] }).`);
  }
}

/**
 * The error a saga run ends with (and reports on `errors$`) when the session did not record one of
 * its transitions: the storage failed to write it (`cause`: the session's `StorageFailedError`), or
 * the event was rejected (`cause`: the `ReducerError` of a reducer that threw on it). The run stops
 * there: no step runs after a transition that was not recorded, and no success is reported for
 * work the storage does not hold. What was recorded before stays in `rxslice/sagas` as an
 * unfinished saga, for `resumeSagas()` (after a storage failure: in a new session on the same storage).
 */
export class SagaNotRecordedError extends RxSliceError {
  override readonly name = 'SagaNotRecordedError';
  constructor(
    /** The saga's name. */
    readonly saga: string,
    /** The saga run's id. */
    readonly sagaId: string,
    /** The type of the transition that was not recorded (`rxslice.saga.completed`, ...). */
    readonly transition: string,
    cause: unknown,
  ) {
    super(
      'SAGA_NOT_RECORDED',
      `Saga ${quote(saga)} (${quote(sagaId)}) stopped: the session did not record its transition ${quote(transition)}` +
        (cause === undefined ? ' (the event was rejected; see errors$)' : `: ${messageOf(cause)}`) +
        '. What was recorded before stays unfinished; resume it with resumeSagas() (after a storage failure, in a new session opened on the same storage).',
      { cause },
    );
  }
}

/** Thrown by `createSession({ sagaHistory })` (and `installSagas`) for an impossible retention. */
export class InvalidSagaHistoryError extends RxSliceError {
  override readonly name = 'InvalidSagaHistoryError';
  constructor(
    /** The option at fault (`keepLast` or `maxAgeMs`). */
    readonly option: string,
    detail: string,
  ) {
    super('INVALID_SAGA_HISTORY', `sagaHistory.${option} ${detail}. Pass e.g. { keepLast: 100, maxAgeMs: 7 * 24 * 3_600_000 }.`);
  }
}
