import { Observable } from 'rxjs';
import type { CoreStore } from '../session/session-types';
import type { CommittedEnvelope } from '../session/committed-envelope';
import { SessionDisposedError } from '../session/errors';
import { SESSION_INTERNALS, type SessionInternals } from '../session/internals';
import { toIssues, type RxSliceError } from '../internal/errors';
import type { AnySagaDef, InferSagaInput, InferSagaResult } from './define-saga';
import { DuplicateSagaError, InvalidSagaDefinitionError, InvalidSagaInputError, UnknownSagaError } from './errors';
import { SagaExecution, type SagaHost } from './saga-execution';
import { SagaCompleted, SagaFailed, type SagaRef } from './saga-events';
import { SagaHistorySlice, sagaHistorySlice, type SagaHistoryOptions, type SagaRecord } from './saga-history';
import { SagaProgressSlice, type SagaProgress } from './saga-progress';
import { quote } from '../internal/quote';

/** Options of `session.runSaga`. */
export interface RunSagaOptions<TDeps = unknown> {
  /** Id of the run (idempotency keys start with it). Default: a random UUID. Must not be running or unfinished already. */
  readonly sagaId?: string;
  /** Dependencies of the steps (`ctx.deps`). Default: the session's `dependencies`. */
  readonly deps?: TDeps;
}

/** Options of `session.resumeSagas`. */
export interface ResumeSagasOptions<TDeps = unknown> {
  /** Definitions of the sagas to resume. Default: those given to `createSession({ sagas })`. */
  readonly sagas?: readonly AnySagaDef[];
  /** Dependencies of the steps. Default: the session's `dependencies`. */
  readonly deps?: TDeps;
}

/** A saga continued by `resumeSagas`: its outcome replays to late subscribers (an `AsyncSubject`). */
export interface ResumedSaga {
  readonly sagaId: string;
  readonly saga: string;
  /** The results by step name, then complete; or `SagaFailedError`. */
  readonly result$: Observable<Record<string, unknown>>;
}

const RUNTIME = Symbol.for('rxslice.sagas.runtime');

const newSagaId = (): string => {
  const crypto = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  if (crypto?.randomUUID !== undefined) return crypto.randomUUID();
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}-${Math.random().toString(36).slice(2)}`;
};

/**
 * @internal The saga runner of one session: runs, resumes and starts (on events) sagas; holds the
 * running executions; stops them when the session is disposed. Created on first use.
 */
export class SagaRuntime implements SagaHost {
  private readonly internals: SessionInternals;
  private readonly running = new Map<string, SagaExecution>();
  private readonly defs = new Map<string, AnySagaDef>();
  /** Executions whose terminal event was dispatched and is not committed yet. */
  private readonly awaiting = new Set<SagaExecution>();
  /** The retention of `rxslice/sagaHistory` (whose definition carries it). */
  private readonly historyMaxAgeMs: number;
  deps: unknown = undefined;
  readonly scheduler;

  constructor(
    private readonly session: CoreStore,
    history: SagaHistoryOptions = {},
  ) {
    this.internals = session[SESSION_INTERNALS];
    this.scheduler = session.scheduler;
    const historySlice = sagaHistorySlice(history);
    this.historyMaxAgeMs = history.maxAgeMs ?? Number.POSITIVE_INFINITY;
    if (!this.internals.hasSlice(SagaProgressSlice.name)) this.internals.addSlice(SagaProgressSlice);
    // After the progress slice: its reducers read a finishing saga's progress as committed before the event.
    if (!this.internals.hasSlice(historySlice.name)) this.internals.addSlice(historySlice);
    this.internals.onDispose(() => {
      for (const execution of [...this.running.values()]) execution.stop();
      this.running.clear();
      this.awaiting.clear();
    });
    this.internals.onDispose(this.internals.onCommitted(this));
    this.internals.onDispose(
      this.internals.onStorageFailure((error) => {
        // Their terminal events were queued and are dropped: nothing more is recorded.
        for (const execution of [...this.awaiting]) execution.notRecorded(execution.awaitedType ?? SagaCompleted.type, error);
        this.awaiting.clear();
      }),
    );
  }

  /**
   * @internal Reports the outcome of a saga whose terminal event was committed, then starts a run
   * of every registered saga whose `startOn` is the committed event's type.
   */
  onCommitted(committed: CommittedEnvelope): void {
    const type = committed.event.type;
    if (type === SagaCompleted.type || type === SagaFailed.type) {
      const execution = this.running.get((committed.event.payload as SagaRef).sagaId);
      if (execution?.awaits(type) === true) {
        this.awaiting.delete(execution);
        execution.recorded();
      }
    }
    if (this.defs.size === 0) return;
    for (const def of this.defs.values()) {
      if (def.startOn === undefined || def.startOn.type !== committed.event.type) continue;
      const parsed = def.input.safeParse(committed.event.payload);
      if (!parsed.success) {
        this.report(new InvalidSagaInputError(def.name, toIssues(parsed.error.issues)));
        continue;
      }
      const execution = this.create(def, newSagaId(), parsed.data, this.deps, committed.seq);
      // Nobody subscribes: a failure is reported on errors$ by the execution.
      execution.outcome.subscribe({ error: () => undefined });
      execution.start();
    }
  }

  /** @throws {@link InvalidSagaDefinitionError} when another definition already has a saga's name (recovery finds sagas by name). */
  register(defs: readonly AnySagaDef[]): void {
    const seen = new Map(this.defs);
    for (const def of defs) {
      const known = seen.get(def.name);
      seen.set(def.name, def);
      if (known !== undefined && known !== def) {
        throw new InvalidSagaDefinitionError(def.name, `two different sagas are named ${quote(def.name)} in this session; resumeSagas finds an unfinished saga by its name, so names must be unique`);
      }
    }
    for (const def of defs) this.defs.set(def.name, def);
    // A saga's startOn event becomes known to the session (docs/ARCHITECTURE.md, "Known events").
    this.internals.declareEvents(defs.flatMap((def) => (def.startOn === undefined ? [] : [def.startOn.type])));
  }

  dispatch(event: { type: string; payload: unknown }, meta: Parameters<SagaHost['dispatch']>[1]): number | undefined {
    if (this.internals.disposed) return undefined;
    // Throws what the session rejected it with (already reported on errors$): the execution stops.
    // On a shared session's local view the event is forwarded to the log unnumbered (seq 0).
    const seq = this.internals.dispatchSystem(event, meta).seq;
    return seq === 0 ? undefined : seq;
  }

  awaitRecord(execution: SagaExecution): void {
    this.awaiting.add(execution);
    if (execution.awaitedSeq === undefined) return; // on its way to a shared log: reported when it comes back
    // Queued behind the envelope being processed: the drain (and any batch around it) is
    // synchronous, so by the next microtask the event was committed (and reported) or rejected
    // by a reducer (reported on errors$; a storage failure is told at once, see the constructor).
    queueMicrotask(() => {
      if (!this.awaiting.delete(execution)) return;
      execution.notRecorded(execution.awaitedType ?? SagaCompleted.type, undefined);
    });
  }

  report(error: RxSliceError): void {
    if (!this.internals.disposed) this.internals.reportError(error);
  }

  finished(execution: SagaExecution): void {
    if (this.running.get(execution.sagaId) === execution) this.running.delete(execution.sagaId);
    this.awaiting.delete(execution);
  }

  /** The completion records kept under the retention, oldest first (those older than `maxAgeMs` left out). */
  history(): readonly SagaRecord[] {
    const records = this.session.read(SagaHistorySlice);
    if (this.historyMaxAgeMs === Number.POSITIVE_INFINITY) return records;
    const oldestAllowed = this.scheduler.now() - this.historyMaxAgeMs;
    return records.some((r) => r.finishedAt < oldestAllowed) ? records.filter((r) => r.finishedAt >= oldestAllowed) : records;
  }

  /**
   * Stops every running saga (each stays unfinished in `rxslice/sagas`, for `resumeSagas`) and
   * forgets the registered definitions, so events start no more runs here. A shared session
   * calls this when its process loses the effect lease: the next holder resumes them.
   */
  stopAll(): void {
    for (const execution of [...this.running.values()]) execution.stop();
    this.running.clear();
    this.awaiting.clear();
    this.defs.clear();
  }

  private create(def: AnySagaDef, sagaId: string, input: unknown, deps: unknown, cause: number | undefined): SagaExecution {
    const execution = new SagaExecution(def, sagaId, input, deps, this, cause);
    this.running.set(sagaId, execution);
    return execution;
  }

  private unfinished(): readonly SagaProgress[] {
    return this.session.read(SagaProgressSlice);
  }

  run<TDef extends AnySagaDef>(def: TDef, input: InferSagaInput<TDef>, options: RunSagaOptions = {}): Observable<InferSagaResult<TDef>> {
    return new Observable<InferSagaResult<TDef>>((subscriber) => {
      if (this.internals.disposed) throw new SessionDisposedError(`run saga ${quote(def.name)}`);
      const parsed = def.input.safeParse(input);
      if (!parsed.success) throw new InvalidSagaInputError(def.name, toIssues(parsed.error.issues));
      const sagaId = options.sagaId ?? newSagaId();
      if (this.running.has(sagaId) || this.unfinished().some((p) => p.sagaId === sagaId)) throw new DuplicateSagaError(sagaId);
      const execution = this.create(def, sagaId, parsed.data, options.deps === undefined ? this.deps : options.deps, undefined);
      const subscription = execution.outcome.subscribe(subscriber as never);
      execution.start();
      return () => {
        subscription.unsubscribe();
        execution.cancel();
      };
    });
  }

  resume(options: ResumeSagasOptions = {}): ResumedSaga[] {
    if (this.internals.disposed) throw new SessionDisposedError('resume sagas');
    const defs = new Map(this.defs);
    for (const def of options.sagas ?? []) defs.set(def.name, def);
    const todo = this.unfinished().filter((p) => !this.running.has(p.sagaId));
    for (const p of todo) if (!defs.has(p.saga)) throw new UnknownSagaError(p.saga, p.sagaId);
    const deps = options.deps === undefined ? this.deps : options.deps;
    return todo.map((progress) => {
      const execution = this.create(defs.get(progress.saga) as AnySagaDef, progress.sagaId, progress.input, deps, undefined);
      execution.outcome.subscribe({ error: () => undefined });
      execution.resume(progress);
      return { sagaId: progress.sagaId, saga: progress.saga, result$: execution.outcome.asObservable() };
    });
  }
}

/**
 * @internal The saga runtime of `session`, created on first use (installs the `rxslice/sagas` and
 * `rxslice/sagaHistory` slices; `history` is the retention of the latter, read at creation only).
 */
export function sagaRuntime(session: CoreStore, history?: SagaHistoryOptions): SagaRuntime {
  const internals = session[SESSION_INTERNALS];
  let runtime = internals.extensions.get(RUNTIME) as SagaRuntime | undefined;
  if (runtime === undefined) {
    if (internals.disposed) throw new SessionDisposedError('use sagas');
    runtime = new SagaRuntime(session, history);
    internals.extensions.set(RUNTIME, runtime);
  }
  return runtime;
}
