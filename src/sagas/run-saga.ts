import type { Observable } from 'rxjs';
import { linkLayer, SAGA_LAYER, type SagaLayer } from '../session/feature-layers';
import type { CoreStore } from '../session/session-types';
import type { AnySagaDef, InferSagaInput, InferSagaResult } from './define-saga';
import type { SagaHistoryOptions, SagaRecord } from './saga-history';
import { sagaRuntime, type ResumedSaga, type ResumeSagasOptions, type RunSagaOptions } from './saga-runtime';

/**
 * Runs a saga in `session` (what `session.runSaga(def, input)` does): a cold observable that, on
 * each subscription, validates `input`, starts a new run and emits the results by step name once
 * every step completed, then completes; or errors with `SagaFailedError` (naming the failed step
 * and its cause) after the completed steps were compensated in reverse.
 *
 * @remarks
 * - **Reported means recorded.** The outcome (results or `SagaFailedError`) is reported only once
 *   the session committed the saga's terminal event (`rxslice.saga.completed` or `failed`) — with
 *   durable storage, once every transition of the run was written. When the session was idle
 *   that is synchronous with the last transition; a run started while an envelope is processed
 *   (from a subscriber or an epic) reports after its queued terminal event commits; on a shared
 *   session, when that event comes back from the log. When the session does not take a
 *   transition (the storage failed: `StorageFailedError`; a reducer threw on it: `ReducerError`),
 *   the run stops there — no later step runs — and errors with `SagaNotRecordedError` (`cause`:
 *   that error), also reported on `errors$`; the saga stays unfinished in `rxslice/sagas` for
 *   `resumeSagas` (after a storage failure, in a new session on the same storage).
 * - The finished saga's completion record (see `SagaHistorySlice`) is written in the same commit
 *   as its terminal event: `session.sagaHistory()` holds it when the outcome is reported.
 * - Transitions are `rxslice.saga.*` events (see `SagaStarted`), dispatched synchronously as they
 *   happen; timeouts and retry delays run on the session scheduler (marble-testable).
 * - A step's result is its promise's value or its observable's first value (an observable that
 *   completes empty gives `undefined`). A failing compensation is reported on `errors$` as
 *   `SagaCompensationFailedError` (and `rxslice.saga.compensationFailed`); the rollback goes on.
 *   A failed saga is also reported on `errors$` as `SagaFailedError`.
 * - **Unsubscribing cancels**: `ctx.signal` of the step in flight is aborted (reason
 *   `SagaCancelledError`), and the completed steps are compensated in reverse, as a Temporal
 *   cancellation scope would; the saga ends `rxslice.saga.failed` without a `step`. A rollback
 *   under way is not interrupted. The step in flight is not compensated: it should honour `ctx.signal`.
 * - `session.dispose()` aborts the step in flight and records nothing more: the saga stays
 *   unfinished in `rxslice/sagas`, for `resumeSagas` in the next process. The observable then
 *   completes without a value (as every session observable does on dispose).
 * @throws (as the observable's error) `InvalidSagaInputError` for an invalid input (nothing is
 * dispatched), `DuplicateSagaError` for a `sagaId` already running or unfinished,
 * `SessionDisposedError` after `dispose()`, `SagaNotRecordedError` for a transition the session
 * did not record.
 * @example
 * ```ts
 * session.runSaga(Deployment, { app: 'web' }).subscribe({
 *   next: (r) => console.log(r.deployApplication.url), // Logs: https://web.example
 *   error: (e) => console.log(e.step),                  // or: the failed step's name
 * });
 * ```
 */
export function runSaga<TDef extends AnySagaDef>(
  session: CoreStore,
  def: TDef,
  input: InferSagaInput<TDef>,
  options?: RunSagaOptions,
): Observable<InferSagaResult<TDef>> {
  return sagaRuntime(session).run(def, input, options);
}

/**
 * Resumes every unfinished saga recorded in `session` (the `rxslice/sagas` slice, restored from a
 * snapshot or reopened from durable storage) — what `session.resumeSagas()` does. Not automatic:
 * call it once the dependencies the steps need are ready (pass them as `dependencies` to
 * `createSession` or here as `deps`) and the definitions are known (`createSession({ sagas })` or
 * `options.sagas`).
 *
 * @remarks Crash-recovery rules (docs/ARCHITECTURE.md, "Sagas"): a step whose completion is
 * recorded never runs again; the step in flight at the crash runs again (attempt 1,
 * `stepStarted.resumed: true`) with the same idempotency key; a compensating saga compensates the
 * completed steps whose compensation is not recorded, in reverse, each once. Sagas already running
 * in this session are skipped, so calling it twice resumes nothing twice. Across processes, the
 * storage's directory lock is what keeps two processes from resuming the same saga.
 * @returns The resumed sagas with their outcomes (replayed to late subscribers), reported as
 * `runSaga` reports them: only once the terminal event is recorded; a transition the storage
 * failed to write ends `result$` with `SagaNotRecordedError` (`cause`: the `StorageFailedError`),
 * never with success. Failures are also reported on `errors$`.
 * @throws {@link UnknownSagaError} when an unfinished saga has no definition (nothing is resumed).
 * @example
 * ```ts
 * const session = createSession({ slices, sagas: [Deployment], dependencies: { cloud } });
 * session.restore(lastSnapshot);
 * session.resumeSagas().forEach((s) => s.result$.subscribe({ error: (e) => console.log(e.message) }));
 * ```
 */
export function resumeSagas(session: CoreStore, options?: ResumeSagasOptions): ResumedSaga[] {
  return sagaRuntime(session).resume(options);
}

/**
 * Attaches the saga layer to a session (what `createSession({ sagas, dependencies, sagaHistory })`
 * does; in a program that defines no saga, it also links the saga runtime as `defineSaga` would): adds the `rxslice/sagas` and `rxslice/sagaHistory` state slices (the latter under the
 * retention `history`, read when the saga layer is first attached), registers the definitions for `resumeSagas`, and starts a run of
 * each saga with `startOn` whenever its event is committed (payload = input, validated; the run's
 * `started` event has `meta.causationId` = that event's `seq`). Runs started by events have no
 * subscriber: failures are reported on `errors$`.
 * @example
 * ```ts
 * installSagas(session, { sagas: [Deployment], deps: { cloud } });
 * session.dispatch(DeployRequested({ app: 'web' })); // rxslice.saga.started (causationId: 1), ...
 * ```
 */
export function installSagas(
  session: CoreStore,
  options: { readonly sagas?: readonly AnySagaDef[]; readonly deps?: unknown; readonly history?: SagaHistoryOptions } = {},
): void {
  // Links the layer as defineSaga does: the session's saga methods then reach this runtime.
  linkLayer(SAGA_LAYER, sagaLayer);
  const runtime = sagaRuntime(session, options.history);
  if (options.deps !== undefined) runtime.deps = options.deps;
  runtime.register(options.sagas ?? []);
}

/**
 * The completion records of the sagas that finished in `session` (what `session.sagaHistory()`
 * returns): one {@link SagaRecord} per finished saga — name, id, input, outcome, results, steps
 * with their outcomes, failure, start and end times — oldest first, under the session's
 * retention (`createSession({ sagaHistory: { keepLast, maxAgeMs } })`, default: the newest 100).
 *
 * @remarks Synchronous: reads the `rxslice/sagaHistory` state slice (adding the saga layer to the
 * session on first use). A record is written in the same commit as the saga's terminal event,
 * so it is there when `runSaga` reports the outcome, and durable storage keeps it across a
 * reopen (create the session with the same storage; the slice is opened with the saga layer).
 * Records older than `maxAgeMs` (session-scheduler time) are left out here and dropped from the
 * slice when the next saga finishes. The same array until the slice changes.
 * @throws `SessionDisposedError` when the saga layer was never used and the session is disposed.
 * @example
 * ```ts
 * const session = createSession({ slices: [Releases], sagas: [Deployment], storage: jsonl({ dir }) });
 * const [last] = session.sagaHistory().slice(-1);
 * console.log(last?.sagaId, last?.outcome, last?.steps.map((s) => s.step)); // Logs: d1 completed [ 'createResources', ... ]
 * ```
 */
export function sagaHistory(session: CoreStore): readonly SagaRecord[] {
  return sagaRuntime(session).history();
}

/** @internal What `defineSaga` and `installSagas` link for `createSession({ sagas })` and the session's saga methods (see `SAGA_LAYER`). */
export const sagaLayer: SagaLayer = { install: installSagas, run: runSaga, resume: resumeSagas, history: sagaHistory };
