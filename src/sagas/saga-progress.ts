import type { ErrorInfo } from '../effects/lifecycle-events';
import { defineSlice } from '../slices/define-slice';
import { append, clear, none, replace, type SliceOp } from '../slices/slice-op';
import type { SliceView } from '../slices/slice-view';
import {
  SagaCompensating,
  SagaCompensationFailed,
  SagaCompleted,
  SagaFailed,
  SagaStarted,
  SagaStepCompensated,
  SagaStepFailed,
  SagaStepSucceeded,
} from './saga-events';

/** A completed step in a saga's progress. */
export interface CompletedStep {
  readonly step: string;
  readonly result: unknown;
}

/**
 * The recorded progress of one unfinished saga, an item of the state slice `rxslice/sagas`,
 * reduced from the `rxslice.saga.*` events. Finished sagas (completed or failed) leave the slice;
 * their completion record goes to `rxslice/sagaHistory` in the same commit (see `SagaHistorySlice`).
 */
export interface SagaProgress {
  readonly sagaId: string;
  readonly saga: string;
  readonly input: unknown;
  /** When the saga started: the session scheduler's time (ms) of its `rxslice.saga.started` event (absent when recorded by an earlier rxslice version). */
  readonly startedAt?: number;
  /** `'running'` until a step fails (or the saga is cancelled), then `'compensating'`. */
  readonly phase: 'running' | 'compensating';
  /** Completed steps with their results, in completion order. */
  readonly completed: readonly CompletedStep[];
  /** Steps whose compensation is recorded as done: succeeded or failed (each runs at most once per recorded outcome). */
  readonly compensated: readonly string[];
  /** Steps whose compensation failed. */
  readonly compensationFailures: readonly string[];
  /** The failed step (absent when cancelled) and its error, once compensating. */
  readonly failedStep?: string;
  readonly error?: ErrorInfo;
  readonly reason?: 'failed' | 'cancelled';
}

type View = SliceView<SagaProgress>;

/** Replaces the progress of `sagaId` with `update(progress)`; nothing when the saga is unknown. */
function update(view: View, sagaId: string, change: (p: SagaProgress) => SagaProgress | undefined): SliceOp<SagaProgress> {
  const items = view.all();
  const i = items.findIndex((p) => p.sagaId === sagaId);
  if (i < 0) return none();
  const next = change(items[i] as SagaProgress);
  if (next === undefined || next === items[i]) return none();
  const copy = items.slice();
  copy[i] = next;
  return replace(copy);
}

const finish = (view: View, sagaId: string): SliceOp<SagaProgress> =>
  view.all().some((p) => p.sagaId === sagaId) ? clear((p) => p.sagaId === sagaId) : none();

/**
 * The state slice holding every unfinished saga's progress (`rxslice/sagas`). Installed by
 * `createSession({ sagas })` or on the first `runSaga`; snapshots and durable storage cover it,
 * and `resumeSagas` reads it. Reducers are idempotent: a transition recorded twice changes nothing.
 */
export const SagaProgressSlice = /* @__PURE__ */ defineSlice<SagaProgress, 'rxslice/sagas'>('rxslice/sagas', {
  policy: 'state',
  reducers: ({ on }) => [
    on(SagaStarted, (view, e, ctx) =>
      view.all().some((p) => p.sagaId === e.payload.sagaId)
        ? none()
        : append({
            sagaId: e.payload.sagaId,
            saga: e.payload.saga,
            input: e.payload.input,
            startedAt: ctx.at,
            phase: 'running',
            completed: [],
            compensated: [],
            compensationFailures: [],
          }),
    ),
    on(SagaStepSucceeded, (view, e) =>
      update(view, e.payload.sagaId, (p) =>
        p.phase !== 'running' || p.completed.some((c) => c.step === e.payload.step)
          ? undefined
          : { ...p, completed: [...p.completed, { step: e.payload.step, result: e.payload.result }] },
      ),
    ),
    on(SagaStepFailed, (view, e) =>
      update(view, e.payload.sagaId, (p) =>
        p.phase !== 'running' ? undefined : { ...p, phase: 'compensating', failedStep: e.payload.step, error: e.payload.error, reason: 'failed' },
      ),
    ),
    on(SagaCompensating, (view, e) =>
      update(view, e.payload.sagaId, (p) =>
        p.phase === 'compensating'
          ? undefined
          : { ...p, phase: 'compensating', reason: e.payload.reason, error: { name: 'SagaCancelledError', message: 'cancelled', code: 'SAGA_CANCELLED' } },
      ),
    ),
    on(SagaStepCompensated, (view, e) =>
      update(view, e.payload.sagaId, (p) => (p.compensated.includes(e.payload.step) ? undefined : { ...p, compensated: [...p.compensated, e.payload.step] })),
    ),
    on(SagaCompensationFailed, (view, e) =>
      update(view, e.payload.sagaId, (p) =>
        p.compensated.includes(e.payload.step)
          ? undefined
          : { ...p, compensated: [...p.compensated, e.payload.step], compensationFailures: [...p.compensationFailures, e.payload.step] },
      ),
    ),
    on(SagaCompleted, (view, e) => finish(view, e.payload.sagaId)),
    on(SagaFailed, (view, e) => finish(view, e.payload.sagaId)),
  ],
});
