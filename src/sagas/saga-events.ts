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
 * `started` → (`stepStarted` → `stepSucceeded`)* → `completed`, or
 * … `stepStarted` → `stepFailed` → `compensating` → (`stepCompensated` | `compensationFailed`)* → `failed`.
 * A cancelled saga goes `compensating` (`reason: 'cancelled'`) → … → `failed`.
 * @example
 * ```ts
 * session.committed$.subscribe((c) => SagaStepSucceeded.match(c.event) && console.log(c.event.payload.step)); // Logs: createResources
 * ```
 */
export const SagaStarted = defineEventUnchecked<SagaRef & { readonly input: unknown }>('rxslice.saga.started');
/** See {@link SagaStarted}: an attempt of a step starts (`attempt` from 1; `resumed` after recovery). */
export const SagaStepStarted = defineEventUnchecked<SagaRef & { readonly step: string; readonly attempt: number; readonly resumed?: boolean }>(
  'rxslice.saga.stepStarted',
);
/** See {@link SagaStarted}: a step completed; `result` is stored in the saga's progress. */
export const SagaStepSucceeded = defineEventUnchecked<SagaRef & { readonly step: string; readonly attempt: number; readonly result: unknown }>(
  'rxslice.saga.stepSucceeded',
);
/** See {@link SagaStarted}: a step failed for good (its last attempt). */
export const SagaStepFailed = defineEventUnchecked<SagaRef & { readonly step: string; readonly attempts: number; readonly error: ErrorInfo }>(
  'rxslice.saga.stepFailed',
);
/** See {@link SagaStarted}: the rollback starts; `steps` are the completed steps to compensate, in the order they will be. */
export const SagaCompensating = defineEventUnchecked<
  SagaRef & { readonly reason: 'failed' | 'cancelled'; readonly step?: string; readonly steps: readonly string[] }
>('rxslice.saga.compensating');
/** See {@link SagaStarted}: a step's compensation succeeded. */
export const SagaStepCompensated = defineEventUnchecked<SagaRef & { readonly step: string }>('rxslice.saga.stepCompensated');
/** See {@link SagaStarted}: a step's compensation failed (also reported on `errors$`); the rollback goes on. */
export const SagaCompensationFailed = defineEventUnchecked<SagaRef & { readonly step: string; readonly error: ErrorInfo }>(
  'rxslice.saga.compensationFailed',
);
/** See {@link SagaStarted}: every step completed. */
export const SagaCompleted = defineEventUnchecked<SagaRef>('rxslice.saga.completed');
/** See {@link SagaStarted}: the rollback ended; `step` failed (absent when cancelled). */
export const SagaFailed = defineEventUnchecked<SagaRef & { readonly step?: string; readonly error: ErrorInfo; readonly compensationFailures: readonly string[] }>(
  'rxslice.saga.failed',
);
