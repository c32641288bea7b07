import { defineEventUnchecked } from '../events/define-event';
import type { ErrorInfo } from '../effects/lifecycle-events';

/** Identifies one run of a saga. */
export interface SagaRef {
  readonly sagaId: string;
  readonly saga: string;
}

/**
 * The saga log: every transition of a saga is one of these library events on the session stream,
 * dispatched with `meta.source` = `saga:<name>`, `meta.correlationId` = the saga id and
 * `meta.causationId` = the `seq` of the saga's previous transition (for `started`: the event that
 * started it, if any). The state slice `rxslice/sagas` is reduced from them.
 *
 * `started` → (`stepStarted` → (`stepRetrying` → `stepStarted`)* → `stepSucceeded`)* → `completed`, or
 * … `stepStarted` → `stepFailed` → `compensating` → (`compensationRetrying`* → `stepCompensated` | `compensationFailed`)* → `failed`.
 * A retried attempt leaves a trace between its two `stepStarted`: `stepRetrying` with the attempt
 * about to start, the delay before it and the error of the attempt that failed (as effects emit
 * `rxslice.effect.retrying`).
 * A cancelled saga goes `compensating` (`reason: 'cancelled'`) → … → `failed`.
 * @example
 * ```ts
 * session.committed$.subscribe((c) => SagaStepSucceeded.match(c.event) && console.log(c.event.payload.step)); // Logs: createResources
 * ```
 */
export const SagaStarted = /* @__PURE__ */ defineEventUnchecked<SagaRef & { readonly input: unknown }>('rxslice.saga.started');
/** See {@link SagaStarted}: an attempt of a step starts (`attempt` from 1; `resumed` after recovery). */
export const SagaStepStarted = /* @__PURE__ */ defineEventUnchecked<SagaRef & { readonly step: string; readonly attempt: number; readonly resumed?: boolean }>(
  'rxslice.saga.stepStarted',
);
/**
 * See {@link SagaStarted}: an attempt of a step failed and the step's retry policy allows another.
 * `attempt` is the attempt that will start (2 for the first retry) after `delayMs` milliseconds
 * on the session scheduler (from the policy, jitter included); `error` is the failed attempt's.
 *
 * @remarks Dispatched when the attempt failed, before the delay runs; the next `stepStarted`
 * follows `delayMs` later. The saga log records it but the saga's progress does not change: after a
 * crash, the step in flight runs again (with the same idempotency key), whatever its attempt was.
 * Named after the effects' `rxslice.effect.retrying`, with the same `attempt`, `delayMs`, `error`.
 * @example
 * ```ts
 * session.committed$.pipe(filter((c) => SagaStepRetrying.match(c.event))).subscribe((c) => {
 *   const { step, attempt, delayMs, error } = (c.event as InferEvent<typeof SagaStepRetrying>).payload;
 *   console.log(`${step}: attempt ${attempt} in ${delayMs} ms after "${error.message}"`); // Logs: charge: attempt 2 in 10 ms after "busy"
 * });
 * ```
 */
export const SagaStepRetrying = /* @__PURE__ */ defineEventUnchecked<
  SagaRef & { readonly step: string; readonly attempt: number; readonly delayMs: number; readonly error: ErrorInfo }
>('rxslice.saga.stepRetrying');
/** See {@link SagaStarted}: a step completed; `result` is stored in the saga's progress. */
export const SagaStepSucceeded = /* @__PURE__ */ defineEventUnchecked<SagaRef & { readonly step: string; readonly attempt: number; readonly result: unknown }>(
  'rxslice.saga.stepSucceeded',
);
/** See {@link SagaStarted}: a step failed for good (its last attempt). */
export const SagaStepFailed = /* @__PURE__ */ defineEventUnchecked<SagaRef & { readonly step: string; readonly attempts: number; readonly error: ErrorInfo }>(
  'rxslice.saga.stepFailed',
);
/** See {@link SagaStarted}: the rollback starts; `steps` are the completed steps to compensate, in the order they will be. */
export const SagaCompensating = /* @__PURE__ */ defineEventUnchecked<
  SagaRef & { readonly reason: 'failed' | 'cancelled'; readonly step?: string; readonly steps: readonly string[] }
>('rxslice.saga.compensating');
/**
 * See {@link SagaStarted} and {@link SagaStepRetrying}: an attempt of a step's compensation failed
 * and the step's retry policy allows another (`attempt` is the one that starts after `delayMs`).
 * @example `SagaCompensationRetrying.match(e) && e.payload.attempt` // 2 for the first retry of the compensation
 */
export const SagaCompensationRetrying = /* @__PURE__ */ defineEventUnchecked<
  SagaRef & { readonly step: string; readonly attempt: number; readonly delayMs: number; readonly error: ErrorInfo }
>('rxslice.saga.compensationRetrying');
/** See {@link SagaStarted}: a step's compensation succeeded. */
export const SagaStepCompensated = /* @__PURE__ */ defineEventUnchecked<SagaRef & { readonly step: string }>('rxslice.saga.stepCompensated');
/** See {@link SagaStarted}: a step's compensation failed (also reported on `errors$`); the rollback goes on. */
export const SagaCompensationFailed = /* @__PURE__ */ defineEventUnchecked<SagaRef & { readonly step: string; readonly error: ErrorInfo }>(
  'rxslice.saga.compensationFailed',
);
/** See {@link SagaStarted}: every step completed. */
export const SagaCompleted = /* @__PURE__ */ defineEventUnchecked<SagaRef>('rxslice.saga.completed');
/** See {@link SagaStarted}: the rollback ended; `step` failed (absent when cancelled). */
export const SagaFailed = /* @__PURE__ */ defineEventUnchecked<SagaRef & { readonly step?: string; readonly error: ErrorInfo; readonly compensationFailures: readonly string[] }>(
  'rxslice.saga.failed',
);
