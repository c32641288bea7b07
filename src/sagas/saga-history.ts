import type { ErrorInfo } from '../effects/lifecycle-events';
import { defineSlice } from '../slices/define-slice';
import type { SliceDef } from '../slices/reducer';
import { append, none, type SliceOp } from '../slices/slice-op';
import type { EvictionDecision, SliceWindowPolicy } from '../slices/window-contract';
import { InvalidSagaHistoryError } from './errors';
import { SagaCompleted, SagaFailed } from './saga-events';
import { SagaProgressSlice, type SagaProgress } from './saga-progress';
import { clip } from '../internal/quote';

/** What became of one step of a finished saga (see {@link SagaRecord.steps}). */
export interface SagaStepRecord {
  readonly step: string;
  /**
   * `'succeeded'`: completed and not undone (the saga completed, or the step has no `compensate`);
   * `'compensated'`: completed, then compensated; `'compensationFailed'`: completed, and its
   * compensation failed (undo it by hand); `'failed'`: the step whose failure rolled the saga back.
   */
  readonly outcome: 'succeeded' | 'compensated' | 'compensationFailed' | 'failed';
  /** The failed step's last error (outcome `'failed'` only). */
  readonly error?: ErrorInfo;
}

/**
 * The completion record of one finished saga, an item of the state slice `rxslice/sagaHistory`,
 * written in the same commit as the saga's `rxslice.saga.completed` or `rxslice.saga.failed`
 * event (so durable storage holds both or neither).
 */
export interface SagaRecord {
  readonly sagaId: string;
  readonly saga: string;
  readonly input: unknown;
  /** `'completed'`: every step completed; `'failed'`: a step failed and the rollback ran; `'cancelled'`: cancelled, then rolled back. */
  readonly outcome: 'completed' | 'failed' | 'cancelled';
  /** Results by step name of the steps that completed (for a completed saga: what `runSaga` emitted). */
  readonly results: Readonly<Record<string, unknown>>;
  /** The steps that ran, in order, with what became of each (steps never reached are absent). */
  readonly steps: readonly SagaStepRecord[];
  /** The failed step (outcome `'failed'`). */
  readonly failedStep?: string;
  /** Why the saga failed or was cancelled (outcome `'failed'` or `'cancelled'`). */
  readonly error?: ErrorInfo;
  /** When the saga started: the session scheduler's time (ms) of its `rxslice.saga.started` event; absent for a saga started by an earlier rxslice version, which did not record it. */
  readonly startedAt?: number;
  /** When the saga finished: the session scheduler's time (ms) of its `completed` or `failed` event. */
  readonly finishedAt: number;
}

/**
 * How many completion records a session keeps (`createSession({ sagaHistory })`). The newest
 * records are kept; each bound applies when set.
 */
export interface SagaHistoryOptions {
  /** Keep at most this many records, the newest (an integer >= 0; 0 keeps none). Default 100. */
  readonly keepLast?: number;
  /**
   * Drop the records of sagas that finished more than `maxAgeMs` ms (session-scheduler time)
   * ago. Default: no age limit. Enforced when the next saga finishes (what the storage holds) and
   * on every `sagaHistory()` read (what it returns).
   */
  readonly maxAgeMs?: number;
}

/** The default retention: the newest 100 records, of any age. */
export const DEFAULT_SAGA_HISTORY: Required<Pick<SagaHistoryOptions, 'keepLast'>> = { keepLast: 100 };

const SLICE_NAME = 'rxslice/sagaHistory' as const;

/** @internal Checks `options`. @throws {@link InvalidSagaHistoryError} */
export function checkSagaHistoryOptions(options: SagaHistoryOptions): { readonly keepLast: number; readonly maxAgeMs: number } {
  const keepLast = options.keepLast ?? DEFAULT_SAGA_HISTORY.keepLast;
  const maxAgeMs = options.maxAgeMs ?? Number.POSITIVE_INFINITY;
  if (!Number.isSafeInteger(keepLast) || keepLast < 0) throw new InvalidSagaHistoryError('keepLast', `must be an integer >= 0, got ${clip(keepLast)}`);
  if (typeof maxAgeMs !== 'number' || Number.isNaN(maxAgeMs) || maxAgeMs < 0) throw new InvalidSagaHistoryError('maxAgeMs', `must be a number of milliseconds >= 0, got ${clip(maxAgeMs)}`);
  return { keepLast, maxAgeMs };
}

/** The retention as a window: records are appended in finishing order, so both bounds drop from the front. */
function retentionWindow(keepLast: number, maxAgeMs: number): SliceWindowPolicy<SagaRecord> {
  return {
    description: `sagaHistory(keepLast ${keepLast}${Number.isFinite(maxAgeMs) ? `, maxAgeMs ${maxAgeMs}` : ''})`,
    evict(view, ctx): EvictionDecision {
      const size = view.size;
      let drop = Math.max(0, size - keepLast);
      if (Number.isFinite(maxAgeMs)) {
        const oldestAllowed = ctx.now - maxAgeMs;
        while (drop < size && ctx.timeAt(drop) < oldestAllowed) drop++;
      }
      return drop > 0 ? { kind: 'front', count: drop } : { kind: 'none' };
    },
  };
}

/** The record of the saga `progress` finishing with `event` at `at` (ms). */
function recordOf(progress: SagaProgress, event: { readonly type: string; readonly payload: unknown }, at: number): SagaRecord {
  const results: Record<string, unknown> = {};
  for (const c of progress.completed) results[c.step] = c.result;
  const base = { sagaId: progress.sagaId, saga: progress.saga, input: progress.input, results };
  const times = progress.startedAt === undefined ? { finishedAt: at } : { startedAt: progress.startedAt, finishedAt: at };
  if (event.type === SagaCompleted.type) {
    return { ...base, outcome: 'completed', steps: progress.completed.map((c) => ({ step: c.step, outcome: 'succeeded' as const })), ...times };
  }
  const failed = event.payload as { readonly step?: string; readonly error: ErrorInfo };
  const steps: SagaStepRecord[] = progress.completed.map((c) => ({
    step: c.step,
    outcome: progress.compensationFailures.includes(c.step) ? 'compensationFailed' : progress.compensated.includes(c.step) ? 'compensated' : 'succeeded',
  }));
  if (failed.step === undefined) return { ...base, outcome: 'cancelled', steps, error: failed.error, ...times };
  steps.push({ step: failed.step, outcome: 'failed', error: failed.error });
  return { ...base, outcome: 'failed', steps, failedStep: failed.step, error: failed.error, ...times };
}

/**
 * Appends the record of the saga the terminal event ends. Reads the saga's progress as committed
 * before this event (the progress slice drops the saga in this same commit); a terminal event of
 * a saga with no progress (recorded twice, or never started here) records nothing.
 */
function finished(event: { readonly type: string; readonly payload: unknown }, at: number, read: (slice: typeof SagaProgressSlice) => readonly SagaProgress[]): SliceOp<SagaRecord> {
  const sagaId = (event.payload as { readonly sagaId: string }).sagaId;
  const progress = read(SagaProgressSlice).find((p) => p.sagaId === sagaId);
  return progress === undefined ? none() : append(recordOf(progress, event, at));
}

/** The history slice with this retention. */
function historySlice(keepLast: number, maxAgeMs: number): SliceDef<'rxslice/sagaHistory', SagaRecord> {
  return defineSlice<SagaRecord, 'rxslice/sagaHistory'>(SLICE_NAME, {
    policy: 'state',
    window: retentionWindow(keepLast, maxAgeMs),
    reducers: ({ on }) => [
      on(SagaCompleted, (_view, e, ctx) => finished(e, ctx.at, (slice) => ctx.session.read(slice))),
      on(SagaFailed, (_view, e, ctx) => finished(e, ctx.at, (slice) => ctx.session.read(slice))),
    ],
  });
}

/**
 * The state slice of completion records (`rxslice/sagaHistory`): one {@link SagaRecord} per
 * finished saga, oldest first, under the session's retention (`createSession({ sagaHistory })`,
 * default {@link DEFAULT_SAGA_HISTORY}). Installed with `rxslice/sagas`; snapshots and durable
 * storage cover it, so the records survive a reopen. Read it with `session.sagaHistory()`, or
 * observe it with `session.slice(SagaHistorySlice).all$`.
 *
 * @remarks A record is appended in the same commit as the saga's `completed` or `failed` event,
 * by a reducer that reads the saga's progress as committed before that event. Both slices are
 * state slices: a `restore` or a rolled-back `transaction` takes back the completion and its
 * record together.
 * @example
 * ```ts
 * session.slice(SagaHistorySlice).all$.subscribe((records) => console.log(records.at(-1)?.outcome)); // Logs: completed
 * ```
 */
export const SagaHistorySlice: SliceDef<'rxslice/sagaHistory', SagaRecord> = historySlice(DEFAULT_SAGA_HISTORY.keepLast, Number.POSITIVE_INFINITY);

/**
 * @internal The history slice under `options`: {@link SagaHistorySlice} itself for the default
 * retention. @throws {@link InvalidSagaHistoryError}
 */
export function sagaHistorySlice(options: SagaHistoryOptions = {}): SliceDef<'rxslice/sagaHistory', SagaRecord> {
  const { keepLast, maxAgeMs } = checkSagaHistoryOptions(options);
  return keepLast === DEFAULT_SAGA_HISTORY.keepLast && maxAgeMs === Number.POSITIVE_INFINITY ? SagaHistorySlice : historySlice(keepLast, maxAgeMs);
}
